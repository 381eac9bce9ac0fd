// The shapes of a connection, apart from connect.ts so its parts (transport.ts, raw-channel.ts,
// tool-catalog.ts) read them without importing connect.ts back.
import type { DiscoveredGeneration, ServerEntry } from '../servers/server-entry.js';
import type { TaskGeneration } from '../protocol/constants.js';
import type { HeaderRule } from '../protocol/tool-headers.js';
import type { ToolInfo } from '../protocol/task-wire.js';

/** A request the server sent us (2025-11-25 input: elicitation/create, sampling/createMessage, roots/list). */
export interface ServerRequest {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** A listed tool mcp-tasks will not call: its `x-mcp-header` declarations break a rule of the spec. */
export interface RefusedTool {
  name: string;
  rule: HeaderRule;
  reason: string;
}

export interface Connection {
  readonly entry: ServerEntry;
  /** The task generation the handshake negotiated (converted from the SDK's getProtocolEra() in connect.ts). */
  readonly generation: TaskGeneration;
  readonly protocolVersion: string;
  readonly serverInfo?: { name: string; version: string };
  readonly tasksAdvertised: boolean;
  /** The 2025-11-25 experimental tasks capability (capabilities.tasks), advertised by legacy servers. */
  readonly legacyTasksAdvertised: boolean;
  /** What to cache so the next connection needs no probe. */
  discovered(): DiscoveredGeneration;
  /** One raw JSON-RPC request; resolves with `result`, throws the typed errors of remote-errors.ts. */
  request(method: string, params: Record<string, unknown>, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<unknown>;
  /** The callable tools. Over HTTP, tools with invalid `x-mcp-header` declarations are left out (see refusedTools). */
  listTools(): Promise<ToolInfo[]>;
  /** Use a tool list read earlier (the server entry's cache) as if just listed: no request. */
  adoptTools(tools: ToolInfo[]): ToolInfo[];
  /** Tools the last listTools() left out, with the rule each breaks. */
  refusedTools(): RefusedTool[];
  close(): Promise<void>;
  /** The capabilities the server advertised; undefined on a resumed session (no handshake). */
  readonly serverCapabilities?: Record<string, unknown>;
  /** Streamable HTTP on 2025-11-25: the Mcp-Session-Id the server assigned, or the resumed one. */
  sessionId(): string | undefined;
  /** Offer server→client requests to `handler` before the SDK's dispatcher; it returns true when it took one. */
  interceptServerRequests(handler: (request: ServerRequest) => boolean): void;
  /** Answer a server→client request with a JSON-RPC response. */
  respond(id: string | number, outcome: { result: unknown } | { error: { code: number; message: string } }): Promise<void>;
  /** Open the standalone GET stream where a resumed session has none yet (servers may send input there). */
  openStandaloneStream(): Promise<void>;
  /** Streamable HTTP: end the session on the server (the SDK transport's DELETE with Mcp-Session-Id); a no-op without one. */
  terminateSession(): Promise<void>;
  /**
   * 2026-07-28: a `subscriptions/listen` stream for these task ids, opened and closed by the SDK
   * client's listen(). Resolves on the server's acknowledgement with the ids it agreed to; each
   * `notifications/tasks` on the connection is handed to `onTask` unparsed (the caller validates).
   */
  listenTasks(taskIds: string[], onTask: (params: unknown) => void, opts?: { timeoutMs?: number }): Promise<TaskListen>;
}

/** An open listen stream for tasks. */
export interface TaskListen {
  /** The ids the server acknowledged (a subset of those asked). */
  readonly acknowledged: string[];
  /** 'local': we closed it; 'graceful': the server ended it; 'remote': the stream or connection dropped. */
  readonly closed: Promise<'local' | 'graceful' | 'remote'>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Extra capabilities declared besides the tasks extension (elicitation, sampling, roots). */
  capabilities?: Record<string, unknown>;
  /** Ignore the cached discover result and probe the server afresh (`server check`). */
  fresh?: boolean;
  /** stdio child's stderr lines (diagnostics; may contain anything the server prints). */
  onServerStderr?: (line: string) => void;
  debug?: (line: string) => void;
  /** A server with a stored sign-in: the OAuth transport (connection/oauth-provider.ts). */
  httpTransport?: import('./oauth-provider.js').HttpTransportFactory;
  /** Rejoin a 2025-11-25 HTTP session (kept in the vault record) instead of starting a new one. */
  resume?: { protocolVersion: string; sessionId?: string };
}
