// The task-session seam: what a command does with a task on a server, whichever protocol
// generation and transport carry it. Commands and app/ use this; only session/ implementations
// (one per generation) touch protocol/ and connection/.
import type { RefusedTool, ToolInfo } from '../connection/connect.js';
import type { CallToolParams, ToolCallOutcome } from '../protocol/task-wire.js';
import { AuthRefusedError, RpcResponseError, TransportError, wasNotSent } from '../protocol/remote-errors.js';
import { ErrorCode, MODERN_PROTOCOL_VERSION } from '../protocol/constants.js';
import { SignInError } from '../connection/connection-errors.js';
import type { InputRequestSnapshot, TaskSnapshot } from '../tasks/task-snapshot.js';
import type { Principal } from '../tasks/principal.js';
import type { PushChannel } from '../tasks/push.js';

export type { ToolInfo, CallToolParams, ToolCallOutcome };
export type { CallToolResult } from '../protocol/task-wire.js';
/** Status vocabulary shared by both generations. */
export { isTerminalStatus, type TaskStatus } from '../protocol/constants.js';

import type { TaskGeneration } from '../protocol/constants.js';
export type { TaskGeneration };

/** What the server said to tasks/cancel. */
export interface CancelAnswer {
  /** It refused the cancel because the task had already ended: what tasks/get then showed. */
  endedAlready?: TaskSnapshot;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * What a vault record keeps so a later process reconnects to the same server-side scope:
 * for 2025-11-25 over HTTP, the Mcp-Session-Id and the negotiated protocol version.
 */
export interface SessionResume {
  protocolVersion: string;
  sessionId?: string;
  /**
   * 2025-11-25: server requests (input) this task received and nobody answered yet. The server
   * hands each one out once (on a tasks/result stream) and then waits for a response to its
   * JSON-RPC id, so a later process shows and answers it from here.
   */
  pendingInput?: StoredInputRequest[];
}

/** A server→client request kept for a later process: its key (as `--answers` uses it), JSON-RPC id and content. */
export interface StoredInputRequest {
  key: string;
  requestId: string | number;
  request: InputRequestSnapshot;
}

/** A page of the server's own task list (2025-11-25 `tasks/list`). */
export interface RemoteTaskPage {
  tasks: TaskSnapshot[];
  nextCursor?: string;
}

export interface TaskSession {
  readonly generation: TaskGeneration;
  readonly serverName: string;
  readonly protocolVersion: string;
  readonly serverInfo?: { name: string; version: string } | undefined;
  /** Whether the server advertises tasks for tools/call on this generation. */
  readonly tasksAdvertised: boolean;
  /**
   * Undefined when nothing needs keeping (2026-07-28 has no session). With a taskId, it also
   * carries the input requests that task received and nobody answered (`pendingInput`).
   */
  resumeState(taskId?: string): SessionResume | undefined;
  /**
   * Take back the input requests an earlier process received for `taskId` and left unanswered
   * (its record's `session.pendingInput`); a generation whose server hands them out again on
   * every observation keeps none and ignores them.
   */
  restoreInput(taskId: string, stored: StoredInputRequest[]): void;
  /**
   * End the server-side session, if the generation has one (HTTP DELETE with its
   * Mcp-Session-Id). Only when no task still needs it: the server forgets every task scoped to
   * it. False when there was nothing to end (no session, or the server had ended it already).
   */
  endSession(): Promise<boolean>;
  listTools(): Promise<ToolInfo[]>;
  /** Tools left out of listTools() because their declarations break a rule (x-mcp-header), with the reason. */
  refusedTools(): RefusedTool[];
  /** Whether a tool list read earlier (the server entry's cache) can stand in for tools/list. */
  readonly reusesToolList: boolean;
  /** Use a tool list read earlier as if just listed, without a request; undefined where reusesToolList is false. */
  adoptTools(tools: ToolInfo[]): ToolInfo[] | undefined;
  /** tools/call, asking for a task where the generation and tool allow it. */
  callTool(params: CallToolParams, opts?: RequestOptions): Promise<ToolCallOutcome>;
  /**
   * The tools/call whose round timed out is still open on the connection; wait up to `waitMs`
   * (or until `signal` or the session closes) for its late answer. Undefined when none came (or
   * it was an error, or no call timed out): the submission stays in doubt.
   */
  lateCallOutcome(waitMs: number, signal?: AbortSignal): Promise<ToolCallOutcome | undefined>;
  /**
   * The task's pushed states, where the generation and server offer them (2026-07-28:
   * subscriptions/listen, one stream per session for every task followed); a channel that never
   * pushes elsewhere. Close it when the follow ends.
   */
  pushFor(taskId: string): PushChannel;
  /** One observation; on 2025-11-25 a terminal task also carries its result (tasks/result), fetched before returning. */
  getTask(taskId: string, opts?: RequestOptions): Promise<TaskSnapshot>;
  /** Deliver answers keyed as in `TaskSnapshot.inputRequests` (2026-07-28: tasks/update). */
  updateTask(taskId: string, inputResponses: Record<string, unknown>, opts?: RequestOptions): Promise<void>;
  /** Request cancellation; a request is not a cancellation (the task may still complete). */
  cancelTask(taskId: string, opts?: RequestOptions): Promise<CancelAnswer>;
  /** Who the connection's stored sign-in acts for (undefined without one): a task created now belongs to it. */
  signInPrincipal(): Principal | undefined;
  /** Why listTasks cannot answer on this session (the generation or the server offers no task list); undefined when it can. */
  readonly taskListUnavailable: string | undefined;
  /** A page of the server's own task list; only where taskListUnavailable is undefined. */
  listTasks(cursor?: string, opts?: RequestOptions): Promise<RemoteTaskPage>;
  close(): Promise<void>;
}

/**
 * Every generation reports failures with the typed errors of protocol/remote-errors.ts; these
 * predicates let app/ and commands decide on them without reaching into the wire layer.
 */
export const isUnknownTaskError = (err: unknown): boolean => (err instanceof RpcResponseError && err.isUnknownTask) || lostReasonOf(err) !== undefined;

/** Why a failure means the task is gone, when the error says (2025-11-25: its session ended). */
export const lostReasonOf = (err: unknown): string | undefined => {
  const reason = (err as { lostReason?: unknown } | null)?.lostReason;
  return typeof reason === 'string' ? reason : undefined;
};

/**
 * JSON-RPC codes the protocol defines as refusals before execution: a request answered with one
 * of them was not admitted (parse error, invalid request, unknown method, invalid params, a
 * missing client capability, a header mismatch).
 */
const REFUSED_BEFORE_EXECUTION: ReadonlySet<number> = new Set([
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.MethodNotFound,
  ErrorCode.InvalidParams,
  ErrorCode.MissingCapability,
  ErrorCode.MissingCapabilityLegacy,
  ErrorCode.HeaderMismatch,
]);

/**
 * The one admission rule for a submission's record: it may leave the vault only on proof that
 * nothing was admitted. Proof is a request that never left (connection refused, our own refusal
 * before sending), HTTP 401/403 or 429 (also when the sign-in they started could not finish: a
 * SignInError starts only on such a refusal, or before the first byte), or a JSON-RPC refusal the protocol defines before
 * execution (REFUSED_BEFORE_EXECUTION) that the server itself sent. Everything else proves
 * nothing and keeps the record in doubt: -32603 and server-defined codes (the server may have
 * created the task, then failed), any JSON-RPC error inside an HTTP 5xx (a gateway speaking for
 * a server it may have reached), a transport failure after sending, an answer that cannot be
 * parsed or validated, a disk error.
 */
export function provesNothingCreated(err: unknown): boolean {
  if (wasNotSent(err)) return true;
  if (err instanceof AuthRefusedError || err instanceof SignInError) return true;
  if (err instanceof RpcResponseError) return err.httpStatus === 429 || (REFUSED_BEFORE_EXECUTION.has(err.code) && (err.httpStatus === undefined || err.httpStatus < 500));
  if (err instanceof TransportError) return !err.requestMayHaveArrived;
  return false;
}

/** What the server (or a gateway) answered, in words for an in-doubt record's reason; undefined for other failures. */
export function serverAnswerOf(err: unknown): string | undefined {
  if (!(err instanceof RpcResponseError)) return undefined;
  return `the server answered error ${err.code}${err.httpStatus !== undefined ? ` with HTTP ${err.httpStatus}` : ''}: "${err.message}"`;
}

/**
 * The server advertises no `tools` capability, so it has none to list or call (it would answer
 * tools/list with -32601). `capabilities`: what it does advertise (server text, unsanitised).
 */
export class NoToolsError extends Error {
  constructor(
    readonly serverName: string,
    readonly capabilities: readonly string[],
  ) {
    super(`server "${serverName}" offers no tools`);
    this.name = 'NoToolsError';
  }
}

/** No TaskSession exists (yet) for the generation this server speaks. */
export class UnsupportedGenerationError extends Error {
  constructor(
    readonly serverName: string,
    readonly protocolVersion: string,
    readonly generation: TaskGeneration,
  ) {
    super(`server "${serverName}" speaks only ${protocolVersion}, the experimental tasks generation; mcp-tasks follows the ${MODERN_PROTOCOL_VERSION} tasks extension`);
    this.name = 'UnsupportedGenerationError';
  }
}

