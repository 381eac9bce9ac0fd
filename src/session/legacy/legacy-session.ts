// The TaskSession for servers whose negotiated protocol is 2025-11-25 (core's experimental tasks):
// an `initialize` session (Mcp-Session-Id over HTTP), `params.task: {ttl}` on tools/call,
// tasks/get + tasks/result (blocking, the only way to the result), tasks/list, tasks/cancel, and
// input as server→client requests on the tasks/result stream or the standalone GET stream.
//
// Built on our SDK v2 connection (connect.ts), not on @modelcontextprotocol/ext-tasks' client
// engine: that engine's legacy driver polls to a terminal state before it calls tasks/result, and
// server-everything (like every SDK 1.x server) delivers a task's elicitation only on an open
// tasks/result stream, so its input flow would never start; the engine also drives a call to its
// end, where our commands take one observation at a time and may stop and resume in another
// process. Its core/v1 schemas and capability helpers are used for every answer.
//
// Two mappings to the 2026-07-28 shape the commands know:
// - a tool error: this generation marks the task `failed` and tasks/result returns the
//   CallToolResult with `isError: true`. The snapshot says `completed` with that result (as on
//   2026-07-28), so the exit-code logic sees a tool error (4), not a failed task (2). A JSON-RPC
//   error from tasks/result is `failed` with `error`.
// - input: each pending server request is listed under `inputRequests` with the key of
//   input-keys.ts; answering a key sends the JSON-RPC response to that request.
// - input during a tools/call itself (a plain call whose tool asks the person, on the call's
//   stream or the standalone GET stream): callTool returns `input_required` while the call stays
//   open, with a requestState naming that call; the retry with inputResponses and that
//   requestState answers the server's requests and goes on waiting for the same call, as a
//   multi round-trip retry does on 2026-07-28. Nothing is resent. A request still unanswered
//   when the command ends is dismissed (an elicitation gets `cancel`): the server is not left
//   waiting on a client that has gone.
// - a tools/call whose round timed out stays open: its late CreateTaskResult still names the
//   task, its late plain result is the call's (lateCallOutcome), so the caller can store the
//   handle or the result it would lose.
import {
  CallToolResultV1Schema,
  CancelTaskResultV1Schema,
  CreateTaskResultV1Schema,
  GetTaskResultV1Schema,
  ListTasksResultV1Schema,
  ServerTaskCapabilitiesV1Schema,
  hasTaskListCapabilityV1,
  hasTaskToolCallCapabilityV1,
  type ServerTaskCapabilitiesV1,
} from '@modelcontextprotocol/ext-tasks/core/v1';
import type { ConnectOptions, Connection, RefusedTool, ServerRequest, ToolInfo } from '../../connection/connect.js';
import { ErrorCode, isTerminalStatus, LEGACY_PROTOCOL_VERSION, type TaskStatus } from '../../protocol/constants.js';
import { markNotSent, ProtocolViolationError, RpcResponseError, TransportError } from '../../protocol/remote-errors.js';
import { confirmingRejection } from '../rejection.js';
import { readableTask, type CallToolParams, type CallToolResult, type ToolCallOutcome } from '../../protocol/task-wire.js';
import type { ServerEntry } from '../../servers/server-entry.js';
import type { InputRequestSnapshot, TaskSnapshot } from '../../tasks/task-snapshot.js';
import type { Principal } from '../../tasks/principal.js';
import type { CancelAnswer, RemoteTaskPage, RequestOptions, SessionResume, StoredInputRequest, TaskSession } from '../task-session.js';
import { INPUT_METHODS, inputRequestKey } from './input-keys.js';
import { NO_PUSH, type PushChannel } from '../../tasks/push.js';
import { SessionEndedError, TaskRequiredError } from './legacy-errors.js';

export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
const DEFAULT_INPUT_WAIT_MS = 10_000;
/** How long one round of a tools/call waits for its answer or a request for input, unless told. */
const DEFAULT_CALL_ROUND_MS = 60_000;
/** How long updateTask waits for the server to move a task on after its answers. */
const ANSWER_SETTLE_MS = 5_000;
/** tasks/result blocks until the task ends: the stream is bounded by the session's life, not a request timeout. */
const RESULT_STREAM_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export interface LegacySessionOptions {
  serverName: string;
  /**
   * Whether this command can answer input (a terminal, --answers, --decline/--cancel). Only then
   * is tasks/result opened on an `input_required` task: opening it may make the server hand over
   * its queued request, which a command that cannot answer would then drop.
   */
  serveInput?: boolean;
  /** The TTL asked for in `params.task` (servers may override it). */
  taskTtlMs?: number;
  /** How long getTask waits, with tasks/result open on an input_required task, for the server's request. */
  inputWaitMs?: number;
  debug?: (line: string) => void;
  /** Who the connection's stored sign-in acts for, read when asked (an in-place sign-in changes it). */
  principal?: () => Principal | undefined;
}

interface PendingInput {
  /** The task it is for, or (callId) the tools/call still open that it is for. */
  taskId?: string;
  callId?: number;
  requestId: string | number;
  request: InputRequestSnapshot;
  /** Taken back from the vault (an earlier process received it), not received by this session. */
  restored?: boolean;
}

/** A tools/call on its way: the server may ask for input before it answers. */
interface OpenCall {
  id: number;
  asTask: boolean;
  settled?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

/** The requestState that names an open call between input rounds (opaque to the caller). */
const OPEN_CALL_STATE = 'mcp-tasks-open-call-';

type ResultOutcome = { kind: 'result'; result: CallToolResult } | { kind: 'error'; error: { code: number; message: string; data?: unknown } };

interface ResultStream {
  promise: Promise<ResultOutcome>;
  settled?: ResultOutcome;
}

interface ValidParser {
  safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

function validate<T>(schema: ValidParser, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data as T;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length ? issue.path.map(String).join('.') : '(top level)';
  throw new ProtocolViolationError(`the server's ${what} is malformed: ${where}: ${issue?.message ?? 'invalid'}`);
}

interface TaskV1 {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

/** An invalid 2025-11-25 Task that names a taskId, read leniently under this generation's field names. */
function readableTaskV1(raw: unknown): { task: TaskSnapshot; problems: string[] } | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const { ttl, pollInterval, ...rest } = raw as Record<string, unknown>;
  const kept = readableTask({ ...rest, ...(ttl !== undefined ? { ttlMs: ttl } : {}), ...(pollInterval !== undefined ? { pollIntervalMs: pollInterval } : {}) });
  if (!kept) return undefined;
  const problems = kept.problems.map((p) => p.replace('ttlMs', 'ttl').replace('pollIntervalMs', 'pollInterval').replace('CreateTaskResult schema', '2025-11-25 CreateTaskResult schema'));
  return { task: kept.task, problems };
}

/** A 2025-11-25 Task (`ttl`, `pollInterval`) in the generation-neutral snapshot shape (`ttlMs`, `pollIntervalMs`). */
export function snapshotFromTaskV1(t: TaskV1): TaskSnapshot {
  const s: TaskSnapshot = { taskId: t.taskId, status: t.status, createdAt: t.createdAt, lastUpdatedAt: t.lastUpdatedAt, ttlMs: t.ttl ?? null };
  if (typeof t.statusMessage === 'string') s.statusMessage = t.statusMessage;
  if (typeof t.pollInterval === 'number') s.pollIntervalMs = t.pollInterval;
  return s;
}

/** The terminal snapshot with its tasks/result outcome folded in (see the header on tool errors). */
export function withOutcome(s: TaskSnapshot, outcome: ResultOutcome): TaskSnapshot {
  if (outcome.kind === 'error') return { ...s, status: 'failed', error: outcome.error };
  const result = outcome.result as Record<string, unknown>;
  if (result.isError === true) return { ...s, status: 'completed', result };
  return { ...s, result };
}

export class LegacyTaskSession implements TaskSession {
  readonly generation = '2025-11-25' as const;
  readonly serverName: string;
  /** The SDK client validates a call against the tools it listed itself: this session lists them. */
  readonly reusesToolList = false;
  readonly taskListUnavailable: string | undefined;
  private readonly taskCaps: ServerTaskCapabilitiesV1 | undefined;
  private readonly principal: () => Principal | undefined;
  private readonly serveInput: boolean;
  private readonly taskTtlMs: number;
  private readonly inputWaitMs: number;
  private readonly debug: ((line: string) => void) | undefined;
  private readonly streams = new Map<string, ResultStream>();
  private readonly pending = new Map<string, PendingInput>();
  /** JSON-RPC id of every input request seen → its key, so a re-delivery keeps its key. */
  private readonly keyByRequestId = new Map<string, string>();
  private readonly repeats = new Map<string, number>();
  private readonly wakers = new Set<() => void>();
  private readonly closing = new AbortController();
  private tools: ToolInfo[] | undefined;
  private standaloneOpened = false;
  private openCall: OpenCall | undefined;
  /** A task-augmented call whose round timed out: its request is still open, and its answer may still bring the handle. */
  private lateCall: OpenCall | undefined;
  private callSeq = 0;
  /** The server answered that it no longer knows this session. */
  private sessionEnded = false;

  constructor(private readonly conn: Connection, opts: LegacySessionOptions) {
    this.serverName = opts.serverName;
    this.serveInput = opts.serveInput ?? false;
    this.taskTtlMs = opts.taskTtlMs ?? DEFAULT_TASK_TTL_MS;
    this.inputWaitMs = opts.inputWaitMs ?? DEFAULT_INPUT_WAIT_MS;
    this.debug = opts.debug;
    const tasks = (conn.serverCapabilities as { tasks?: unknown } | undefined)?.tasks;
    const parsed = tasks === undefined ? undefined : ServerTaskCapabilitiesV1Schema.safeParse(tasks);
    this.taskCaps = parsed?.success ? parsed.data : undefined;
    // A resumed session skipped initialize and does not know the capabilities: tasks/list is tried
    // (a server without it answers -32601); `list --remote` only resumes after a fresh session showed it.
    const resumed = conn.serverCapabilities === undefined;
    this.taskListUnavailable = resumed || (this.taskCaps && hasTaskListCapabilityV1(this.taskCaps)) ? undefined : 'it does not offer tasks/list (capabilities.tasks.list is not advertised)';
    this.principal = opts.principal ?? (() => undefined);
    conn.interceptServerRequests((r) => this.takeServerRequest(r));
  }

  get protocolVersion(): string {
    return this.conn.protocolVersion === 'unknown' ? LEGACY_PROTOCOL_VERSION : this.conn.protocolVersion;
  }

  get serverInfo(): { name: string; version: string } | undefined {
    return this.conn.serverInfo;
  }

  get tasksAdvertised(): boolean {
    return this.taskCaps !== undefined && hasTaskToolCallCapabilityV1(this.taskCaps);
  }

  /** The server's `capabilities.tasks` (for `server check`); undefined when not advertised or on a resumed session. */
  get taskCapabilities(): ServerTaskCapabilitiesV1 | undefined {
    return this.taskCaps;
  }

  resumeState(taskId?: string): SessionResume {
    const sessionId = this.conn.sessionId();
    const pendingInput: StoredInputRequest[] = [];
    if (taskId !== undefined) for (const [key, p] of this.pending) if (p.taskId === taskId) pendingInput.push({ key, requestId: p.requestId, request: p.request });
    return { protocolVersion: this.protocolVersion, ...(sessionId ? { sessionId } : {}), ...(pendingInput.length ? { pendingInput } : {}) };
  }

  /**
   * Requests an earlier process received for this task on this session and left unanswered: the
   * server will not hand them out again (its queue gave them away) but still waits for a response
   * to their ids, so they are pending here as if just received. A re-delivery under the same id
   * keeps its key (no duplicate), and a new request asking the same gets the next `-n` key.
   */
  restoreInput(taskId: string, stored: StoredInputRequest[]): void {
    for (const s of stored) {
      const idKey = `${typeof s.requestId}:${String(s.requestId)}`;
      if (this.pending.has(s.key) || this.keyByRequestId.has(idKey)) continue;
      this.keyByRequestId.set(idKey, s.key);
      const base = inputRequestKey(s.request.method, s.request.params);
      const n = s.key === base ? 1 : Number(s.key.slice(base.length + 1)) || 1;
      this.repeats.set(base, Math.max(this.repeats.get(base) ?? 0, n));
      this.pending.set(s.key, { taskId, requestId: s.requestId, request: s.request, restored: true });
    }
  }

  async listTools(): Promise<ToolInfo[]> {
    this.tools = await this.guard(() => this.conn.listTools());
    return this.tools;
  }

  refusedTools(): RefusedTool[] {
    return this.conn.refusedTools();
  }

  async callTool(p: CallToolParams, opts: RequestOptions = {}): Promise<ToolCallOutcome> {
    if (p.requestState !== undefined) return this.continueCall(p, opts);
    const tools = this.tools ?? (await this.listTools());
    const support = tools.find((t) => t.name === p.name)?.execution?.taskSupport ?? 'forbidden';
    if (support === 'required' && !this.tasksAdvertised) throw markNotSent(new TaskRequiredError(this.serverName, p.name));
    const asTask = this.tasksAdvertised && (support === 'required' || support === 'optional');
    const params: Record<string, unknown> = { name: p.name, arguments: p.arguments };
    if (p.meta) params._meta = p.meta;
    if (asTask) params.task = { ttl: this.taskTtlMs };
    const call: OpenCall = { id: ++this.callSeq, asTask };
    this.openCall = call;
    // The call's own timeout is per round (awaitCall): time a person spends answering does not count.
    this.rpc('tools/call', params, { ...(opts.signal ? { signal: opts.signal } : {}), timeoutMs: RESULT_STREAM_TIMEOUT_MS }).then(
      (value) => {
        call.settled = { ok: true, value };
        this.wake();
      },
      (error: unknown) => {
        call.settled = { ok: false, error };
        this.wake();
      },
    );
    return this.awaitCall(call, opts);
  }

  /** The retry of a call that asked for input: answer its requests, then wait for it again. */
  private async continueCall(p: CallToolParams, opts: RequestOptions): Promise<ToolCallOutcome> {
    const call = this.openCall;
    if (!call || p.requestState !== `${OPEN_CALL_STATE}${call.id}`) {
      throw new Error(`internal: no open tools/call for requestState ${JSON.stringify(p.requestState)}`);
    }
    for (const [key, response] of Object.entries(p.inputResponses ?? {})) {
      const pending = this.pending.get(key);
      if (!pending || pending.callId !== call.id) continue;
      await this.guard(() => this.conn.respond(pending.requestId, { result: response }));
      this.pending.delete(key);
    }
    return this.awaitCall(call, opts);
  }

  /** Until the open call answers, asks for input, or a round's timeout passes. */
  private async awaitCall(call: OpenCall, opts: RequestOptions): Promise<ToolCallOutcome> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_CALL_ROUND_MS;
    await this.waitUntil(() => call.settled !== undefined || this.hasPendingForCall(call.id), timeoutMs, opts.signal);
    if (call.settled) {
      this.openCall = undefined;
      this.dropPendingForCall(call.id);
      if (!call.settled.ok) throw call.settled.error;
      return this.toolCallOutcome(call.asTask, call.settled.value);
    }
    const inputRequests = this.pendingForCall(call.id);
    if (Object.keys(inputRequests).length > 0) return { kind: 'input_required', inputRequests, requestState: `${OPEN_CALL_STATE}${call.id}`, callOpen: true };
    this.openCall = undefined;
    if (opts.signal?.aborted) throw new TransportError('tools/call interrupted');
    // The request stays open (its own timeout is the session's life): a late CreateTaskResult
    // still names the task it created, a late plain result is the call's (lateCallOutcome).
    this.lateCall = call;
    throw new TransportError(`no answer to tools/call within ${Math.round(timeoutMs / 1000)} s`);
  }

  async lateCallOutcome(waitMs: number, signal?: AbortSignal): Promise<ToolCallOutcome | undefined> {
    const call = this.lateCall;
    if (!call) return undefined;
    const stop = signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
    this.debug?.(`listening up to ${Math.round(waitMs / 1000)} s more for a late answer to tools/call`);
    await this.waitUntil(() => call.settled !== undefined, waitMs, stop);
    if (!call.settled) return undefined;
    this.lateCall = undefined;
    if (!call.settled.ok) return undefined;
    this.debug?.('the late answer to tools/call came');
    try {
      return this.toolCallOutcome(call.asTask, call.settled.value);
    } catch (err) {
      this.debug?.(`the late answer to tools/call is unusable: ${(err as Error).message}`);
      return undefined;
    }
  }

  private toolCallOutcome(asTask: boolean, raw: unknown): ToolCallOutcome {
    if (asTask && raw && typeof raw === 'object' && 'task' in raw) {
      const parsed = CreateTaskResultV1Schema.safeParse(raw);
      if (parsed.success) return { kind: 'task', task: snapshotFromTaskV1((parsed.data as { task: TaskV1 }).task) };
      // The task exists on the server: a readable taskId is kept, whatever else is wrong (as on 2026-07-28).
      const kept = readableTaskV1((raw as { task: unknown }).task);
      if (kept) return { kind: 'task', task: kept.task, problems: kept.problems };
      validate(CreateTaskResultV1Schema, raw, 'CreateTaskResult');
    }
    // A server may still answer a task-augmented call synchronously: that is a plain result.
    return { kind: 'complete', result: validate<CallToolResult>(CallToolResultV1Schema, raw, 'tools/call result') };
  }

  /** 2025-11-25 has no subscriptions/listen: its tasks are polled, as before. */
  pushFor(): PushChannel {
    return NO_PUSH;
  }
  async getTask(taskId: string, opts: RequestOptions = {}): Promise<TaskSnapshot> {
    let snapshot = await this.tasksGet(taskId, opts);
    // The server moved on without the kept requests (answered elsewhere, or it gave up waiting).
    if (snapshot.status !== 'input_required') this.dropRestoredFor(taskId);
    if (snapshot.status === 'input_required' && this.serveInput) {
      this.openResultStream(taskId);
      if (!this.hasPendingFor(taskId)) await this.waitUntil(() => this.hasPendingFor(taskId) || this.streams.get(taskId)?.settled !== undefined, this.inputWaitMs, opts.signal);
      // The task may have ended meanwhile (the stream answered): observe it again.
      if (this.streams.get(taskId)?.settled) snapshot = await this.tasksGet(taskId, opts);
    }
    if (isTerminalStatus(snapshot.status)) {
      // A cancelled task has no result to fetch; every other terminal task's result is fetched now.
      if (snapshot.status !== 'cancelled') snapshot = withOutcome(snapshot, await this.resultOf(taskId, opts));
      this.dropPendingFor(taskId);
      return snapshot;
    }
    const inputs = this.pendingFor(taskId);
    if (Object.keys(inputs).length > 0) snapshot.inputRequests = inputs;
    return snapshot;
  }

  async updateTask(taskId: string, inputResponses: Record<string, unknown>, opts: RequestOptions = {}): Promise<void> {
    // As tasks/update on 2026-07-28: answers to unknown or already-answered keys are ignored.
    let sent = 0;
    for (const [key, response] of Object.entries(inputResponses)) {
      const p = this.pending.get(key);
      if (!p || p.taskId !== taskId) continue;
      await this.guard(() => this.conn.respond(p.requestId, { result: response }));
      this.pending.delete(key);
      sent++;
    }
    if (sent > 0) await this.untilAnswerTaken(taskId, opts);
  }

  /**
   * The server takes a response in on its own time: until it moves the task on (or asks again),
   * tasks/get still says input_required with nothing pending, which would read as "needs input".
   * Wait a little for that, polling gently; a server that stays put is reported as it is.
   */
  private async untilAnswerTaken(taskId: string, opts: RequestOptions): Promise<void> {
    const deadline = Date.now() + ANSWER_SETTLE_MS;
    for (let delayMs = 25; Date.now() < deadline && !opts.signal?.aborted; delayMs = Math.min(delayMs * 2, 400)) {
      if (this.hasPendingFor(taskId) || this.streams.get(taskId)?.settled) return;
      const s = await this.tasksGet(taskId, opts);
      if (s.status !== 'input_required') return;
      await this.waitUntil(() => this.hasPendingFor(taskId) || this.streams.get(taskId)?.settled !== undefined, delayMs, opts.signal);
    }
  }

  async cancelTask(taskId: string, opts: RequestOptions = {}): Promise<CancelAnswer> {
    const send = async () => void validate(CancelTaskResultV1Schema, await this.rpc('tasks/cancel', { taskId }, opts), 'tasks/cancel result');
    try {
      // The spec says -32602 for a task that already ended: not a loss, if tasks/get agrees; and
      // -32602 for a task tasks/get still shows is a refusal, never a loss (see rejection.ts).
      const ended = await confirmingRejection('tasks/cancel', send, () => this.tasksGet(taskId, opts), { terminalIsDone: true });
      return ended ? { endedAlready: ended } : {};
    } catch (err) {
      // mcp-framework answers -32603 for a task that already ended: the same, if tasks/get agrees.
      if (!(err instanceof RpcResponseError && err.code === ErrorCode.InternalError)) throw err;
      const current = await this.tasksGet(taskId, opts).catch(() => undefined);
      if (!current || !isTerminalStatus(current.status)) throw err;
      return { endedAlready: current };
    }
  }

  async close(): Promise<void> {
    await this.dismissOpenCallInput();
    this.closing.abort();
    // The session itself stays open on the server (no DELETE) unless endSession() ended it:
    // another process may resume it for a task that lives there.
    await this.conn.close();
  }

  /** HTTP DELETE of the session (the caller knows no task still needs it); the server forgets its tasks. */
  async endSession(): Promise<boolean> {
    // Nothing to end: no session (stdio), or the server said it has ended already.
    if (this.conn.sessionId() === undefined || this.sessionEnded) return false;
    await this.dismissOpenCallInput();
    this.closing.abort();
    await this.conn.terminateSession();
    return true;
  }

  /**
   * The command ends with a tools/call still waiting on requests nobody answered (no person, no
   * answers file): the server gets the spec's "dismissed without a choice" (an elicitation's
   * `cancel`, an error for anything else) rather than a request that never gets an answer.
   */
  private async dismissOpenCallInput(): Promise<void> {
    const call = this.openCall;
    if (!call || call.settled) return;
    for (const [key, p] of [...this.pending]) {
      if (p.callId !== call.id) continue;
      this.pending.delete(key);
      const outcome = p.request.method === 'elicitation/create' ? { result: { action: 'cancel' } } : { error: { code: -1, message: 'not answered: the command ended without an answer' } };
      await this.conn.respond(p.requestId, outcome).catch((e: unknown) => this.debug?.(`dismissing "${key}": ${String(e)}`));
    }
  }

  adoptTools(): undefined {
    return undefined;
  }

  signInPrincipal(): Principal | undefined {
    return this.principal();
  }

  async listTasks(cursor?: string, opts: RequestOptions = {}): Promise<RemoteTaskPage> {
    const raw = await this.rpc('tasks/list', cursor ? { cursor } : {}, opts);
    const page = validate<{ tasks: TaskV1[]; nextCursor?: string }>(ListTasksResultV1Schema, raw, 'tasks/list result');
    return { tasks: page.tasks.map(snapshotFromTaskV1), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  private async tasksGet(taskId: string, opts: RequestOptions): Promise<TaskSnapshot> {
    const raw = await this.rpc('tasks/get', { taskId }, opts);
    const task = validate<TaskV1>(GetTaskResultV1Schema, raw, 'tasks/get result');
    if (task.taskId !== taskId) throw new ProtocolViolationError('the server answered tasks/get with a different taskId');
    return snapshotFromTaskV1(task);
  }

  /** The terminal outcome: from the stream opened earlier, else from a new tasks/result. */
  private async resultOf(taskId: string, opts: RequestOptions): Promise<ResultOutcome> {
    const stream = this.openResultStream(taskId);
    if (stream.settled) return stream.settled;
    const signal = opts.signal;
    if (!signal) return stream.promise;
    if (signal.aborted) throw new TransportError('tasks/result interrupted');
    // Stop waiting on interrupt; the stream itself stays open for the rest of the session.
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        stream.promise,
        new Promise<never>((_, reject) => {
          onAbort = () => reject(new TransportError('tasks/result interrupted'));
          signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  /** Open tasks/result once per task; it settles when the task ends. A transport failure may be retried. */
  private openResultStream(taskId: string): ResultStream {
    const existing = this.streams.get(taskId);
    if (existing) return existing;
    if (!this.standaloneOpened && this.serveInput && this.conn.serverCapabilities === undefined) {
      // A resumed session has no standalone GET stream yet, and some servers send input only there.
      this.standaloneOpened = true;
      void this.conn.openStandaloneStream();
    }
    const stream: ResultStream = {
      promise: this.rpc('tasks/result', { taskId }, { signal: this.closing.signal, timeoutMs: RESULT_STREAM_TIMEOUT_MS }).then(
        (raw): ResultOutcome => ({ kind: 'result', result: validate<CallToolResult>(CallToolResultV1Schema, raw, 'tasks/result') }),
        (err: unknown): ResultOutcome => {
          if (err instanceof RpcResponseError && err.httpStatus === undefined) {
            return { kind: 'error', error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) } };
          }
          if (this.streams.get(taskId) === stream) this.streams.delete(taskId);
          throw err;
        },
      ),
    };
    stream.promise.then(
      (o) => {
        stream.settled = o;
        this.wake();
      },
      () => this.wake(),
    );
    this.streams.set(taskId, stream);
    return stream;
  }

  private takeServerRequest(r: ServerRequest): boolean {
    if (!INPUT_METHODS.includes(r.method)) return false;
    const related = (r.params?._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META] as { taskId?: unknown } | undefined;
    let taskId = typeof related?.taskId === 'string' ? related.taskId : undefined;
    // Not for a task while a tools/call is open: the tool itself asks (on the call's stream or the GET stream).
    const callId = taskId === undefined && this.openCall && !this.openCall.settled ? this.openCall.id : undefined;
    if (callId !== undefined && r.method === 'roots/list') {
      // Configuration, not a question for the person (servers ask it whenever they like): the
      // server entry's roots, answered at once as `call` answers them anyway.
      const roots = (this.conn.entry.roots ?? []).map((uri) => ({ uri }));
      void this.conn.respond(r.id, { result: { roots } }).catch((e: unknown) => this.debug?.(`roots/list: ${String(e)}`));
      return true;
    }
    if (taskId === undefined && callId === undefined) {
      // No related-task evidence (the GET stream of some servers): only unambiguous while one task is served.
      const served = [...this.streams.keys()];
      if (served.length !== 1) return false;
      taskId = served[0]!;
    }
    const idKey = `${typeof r.id}:${String(r.id)}`;
    if (this.keyByRequestId.has(idKey)) return true; // a re-delivery of a request already listed
    const base = inputRequestKey(r.method, r.params);
    const n = (this.repeats.get(base) ?? 0) + 1;
    this.repeats.set(base, n);
    const key = n === 1 ? base : `${base}-${n}`;
    this.keyByRequestId.set(idKey, key);
    this.pending.set(key, { ...(callId !== undefined ? { callId } : { taskId: taskId! }), requestId: r.id, request: { method: r.method, ...(r.params ? { params: r.params } : {}) } });
    this.debug?.(`← ${r.method} (input for ${callId !== undefined ? 'the open tools/call' : 'a task'}), listed as "${key}"`);
    this.wake();
    return true;
  }

  private hasPendingFor(taskId: string): boolean {
    for (const p of this.pending.values()) if (p.taskId === taskId) return true;
    return false;
  }

  private pendingFor(taskId: string): Record<string, InputRequestSnapshot> {
    const out: Record<string, InputRequestSnapshot> = {};
    for (const [key, p] of this.pending) if (p.taskId === taskId) out[key] = p.request;
    return out;
  }

  private hasPendingForCall(callId: number): boolean {
    for (const p of this.pending.values()) if (p.callId === callId) return true;
    return false;
  }

  private pendingForCall(callId: number): Record<string, InputRequestSnapshot> {
    const out: Record<string, InputRequestSnapshot> = {};
    for (const [key, p] of this.pending) if (p.callId === callId) out[key] = p.request;
    return out;
  }

  private dropPendingForCall(callId: number): void {
    for (const [key, p] of this.pending) if (p.callId === callId) this.pending.delete(key);
  }

  private dropRestoredFor(taskId: string): void {
    for (const [key, p] of this.pending) if (p.taskId === taskId && p.restored) this.pending.delete(key);
  }

  private dropPendingFor(taskId: string): void {
    for (const [key, p] of this.pending) if (p.taskId === taskId) this.pending.delete(key);
  }

  private wake(): void {
    for (const w of [...this.wakers]) w();
  }

  /** Resolve when `done()` holds, `ms` passed, or `signal` aborts (whichever first). */
  private waitUntil(done: () => boolean, ms: number, signal?: AbortSignal): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wakers.delete(check);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      const check = () => {
        if (done()) finish();
      };
      const timer = setTimeout(finish, ms);
      this.wakers.add(check);
      signal?.addEventListener('abort', finish, { once: true });
    });
  }

  /** One request on this session; a server that forgot the session says so as SessionEndedError. */
  private rpc(method: string, params: Record<string, unknown>, opts: RequestOptions): Promise<unknown> {
    return this.guard(() => this.conn.request(method, params, { ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) }));
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (this.sessionGone(err)) {
        this.sessionEnded = true;
        throw new SessionEndedError(this.serverName);
      }
      throw err;
    }
  }

  /**
   * HTTP 404 to a request carrying a session id is the spec's "session not found"; SDK-based
   * servers that route sessions themselves (server-everything) answer HTTP 400 with -32000 instead.
   */
  private sessionGone(err: unknown): boolean {
    if (this.conn.sessionId() === undefined || !(err instanceof RpcResponseError)) return false;
    return err.httpStatus === 404 || (err.httpStatus === 400 && err.code === -32000);
  }
}

export interface OpenLegacyOptions extends LegacySessionOptions {
  /** The vault record's resume state: rejoin that session instead of initializing a new one. */
  resume?: SessionResume;
}

/** Connect to a 2025-11-25 server (or rejoin a stored session) and wrap it as a TaskSession. */
export async function openLegacySession(entry: ServerEntry, connectOpts: ConnectOptions, opts: OpenLegacyOptions): Promise<LegacyTaskSession> {
  const { connect } = await import('../../connection/connect.js');
  // connect() declares elicitation, sampling and roots at initialize: a 2025-11-25 server
  // (server-everything) asks for input only when the handshake declared it.
  const conn = await connect(entry, {
    ...connectOpts,
    ...(opts.resume?.sessionId ? { resume: { protocolVersion: opts.resume.protocolVersion, sessionId: opts.resume.sessionId } } : {}),
  });
  if (conn.generation !== '2025-11-25') {
    await conn.close();
    throw new ProtocolViolationError(`server "${entry.name}" negotiated ${conn.protocolVersion}, not the 2025-11-25 generation`);
  }
  return new LegacyTaskSession(conn, opts);
}
