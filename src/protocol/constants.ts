// Wire constants of the 2026-07-28 protocol and the io.modelcontextprotocol/tasks extension.
// Kept free of SDK imports so both the CLI's fast paths and the demo server can use them.

export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
/** Stamped on every message of a subscriptions/listen stream: the listen request's id. */
export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId';

export const HEADER_PROTOCOL_VERSION = 'mcp-protocol-version';
export const HEADER_METHOD = 'mcp-method';
export const HEADER_NAME = 'mcp-name';

export const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
export type TaskMethod = (typeof TASK_METHODS)[number];
export const isTaskMethod = (m: unknown): m is TaskMethod => TASK_METHODS.includes(m as TaskMethod);

/** JSON-RPC error codes this project meets on the tasks surface. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Header / body mismatch on Streamable HTTP. */
  HeaderMismatch: -32020,
  /** Missing required client capability (current drafts). */
  MissingCapability: -32021,
  /** Missing required client capability (older drafts); accepted, never sent. */
  MissingCapabilityLegacy: -32003,
  /** The server does not accept the protocol version in the envelope. */
  UnsupportedProtocolVersion: -32022,
  /**
   * A poll came faster than the server allows (the demo's rate-limit fault; data.retryAfterMs).
   * An application code, outside the JSON-RPC and MCP reserved ranges (-32768..-32000).
   */
  RateLimited: -31429,
  /** The same, as earlier demo servers sent it (inside the range MCP reserves); accepted, never sent. */
  RateLimitedLegacy: -32029,
} as const;

export const TERMINAL_STATUSES = ['completed', 'failed', 'cancelled'] as const;
/** The two task generations: the io.modelcontextprotocol/tasks extension, and core's experimental tasks. */
export type TaskGeneration = '2026-07-28' | '2025-11-25';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export const isTerminalStatus = (s: TaskStatus): boolean =>
  (TERMINAL_STATUSES as readonly string[]).includes(s);
