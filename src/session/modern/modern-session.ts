// The 2026-07-28 generation: the io.modelcontextprotocol/tasks extension over a stateless
// connection (server/discover, per-request envelope). No session to keep; no list, no result.
//
// A tools/call whose round timed out stays open (its HTTP request is not aborted): a late answer,
// a task handle or a plain result, still tells what the server did (lateCallOutcome), so the
// caller can turn the record in doubt into the task's, or store the result it would lose.
import type { Connection } from '../../connection/connect.js';
import { callTool, cancelTask, getTask, updateTask } from '../../protocol/task-wire.js';
import type { CallToolParams, CancelAnswer, RemoteTaskPage, RequestOptions, StoredInputRequest, TaskSession, ToolCallOutcome, ToolInfo } from '../task-session.js';
import type { Principal } from '../../tasks/principal.js';
import type { RefusedTool } from '../../connection/connect.js';
import type { TaskSnapshot } from '../../tasks/task-snapshot.js';
import { TransportError } from '../../protocol/remote-errors.js';
import { confirmingRejection } from '../rejection.js';
import type { PushChannel } from '../../tasks/push.js';
import { TaskPushFeed } from '../task-push-feed.js';

/** The open tools/call's own limit: its round's wait is kept here; the session's close ends it sooner. */
const OPEN_CALL_LIMIT_MS = 24 * 60 * 60 * 1000;

export class ModernTaskSession implements TaskSession {
  readonly generation = '2026-07-28' as const;

  /** The tools/call whose round timed out, still open on the connection. */
  private lateCall: Promise<ToolCallOutcome | undefined> | undefined;
  private readonly closing = new AbortController();
  private feed: TaskPushFeed | undefined;

  readonly reusesToolList = true;
  readonly taskListUnavailable = 'its tasks extension (2026-07-28) has no task list by design: task ids are bearer handles';

  constructor(
    private readonly conn: Connection,
    private readonly principal: () => Principal | undefined,
    private readonly debug?: (line: string) => void,
  ) {}

  get serverName(): string {
    return this.conn.entry.name;
  }
  get protocolVersion(): string {
    return this.conn.protocolVersion;
  }
  get serverInfo(): { name: string; version: string } | undefined {
    return this.conn.serverInfo;
  }
  get tasksAdvertised(): boolean {
    return this.conn.tasksAdvertised;
  }
  resumeState(): undefined {
    return undefined;
  }
  /** Nothing to take back: a task's pending input comes with every tasks/get. */
  restoreInput(_taskId: string, _stored: StoredInputRequest[]): void {}
  /** No server-side session on this generation. */
  endSession(): Promise<boolean> {
    return Promise.resolve(false);
  }
  signInPrincipal(): Principal | undefined {
    return this.principal();
  }
  listTasks(_cursor?: string, _opts?: RequestOptions): Promise<RemoteTaskPage> {
    return Promise.reject(new Error(`listTasks: ${this.taskListUnavailable}`));
  }
  listTools(): Promise<ToolInfo[]> {
    return this.conn.listTools();
  }
  refusedTools(): RefusedTool[] {
    return this.conn.refusedTools();
  }
  adoptTools(tools: ToolInfo[]): ToolInfo[] {
    return this.conn.adoptTools(tools);
  }
  async callTool(params: CallToolParams, opts: RequestOptions = {}): Promise<ToolCallOutcome> {
    this.lateCall = undefined;
    const roundMs = opts.timeoutMs;
    if (roundMs === undefined) return callTool(this.conn, params, opts);
    // The round's wait is ours, not the request's: past it the request stays open for a late answer.
    const answer = callTool(this.conn, params, { ...(opts.signal ? { signal: opts.signal } : {}), timeoutMs: OPEN_CALL_LIMIT_MS });
    let timer: NodeJS.Timeout | undefined;
    const roundOver = new Promise<'round over'>((resolve) => (timer = setTimeout(() => resolve('round over'), roundMs)));
    try {
      const first = await Promise.race([answer, roundOver]);
      if (first !== 'round over') return first;
    } finally {
      clearTimeout(timer);
    }
    this.lateCall = answer.then(
      (outcome) => outcome,
      (err: unknown) => {
        this.debug?.(`the late answer to tools/call is unusable: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      },
    );
    throw new TransportError(`no answer to tools/call within ${Math.round(roundMs / 1000)} s`);
  }

  async lateCallOutcome(waitMs: number, signal?: AbortSignal): Promise<ToolCallOutcome | undefined> {
    const call = this.lateCall;
    if (!call) return undefined;
    this.lateCall = undefined;
    const stop = signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
    if (stop.aborted) return undefined;
    this.debug?.(`listening up to ${Math.round(waitMs / 1000)} s more for a late answer to tools/call`);
    let timer: NodeJS.Timeout | undefined;
    let onStop: (() => void) | undefined;
    const gaveUp = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
      onStop = () => resolve(undefined);
      stop.addEventListener('abort', onStop, { once: true });
    });
    try {
      const late = await Promise.race([call, gaveUp]);
      // Input asked late creates nothing yet and cannot be answered now: the record stays in doubt.
      if (!late || late.kind === 'input_required') return undefined;
      this.debug?.('the late answer to tools/call came');
      return late;
    } finally {
      clearTimeout(timer);
      if (onStop) stop.removeEventListener('abort', onStop);
    }
  }
  pushFor(taskId: string): PushChannel {
    this.feed ??= new TaskPushFeed(this.conn, this.debug);
    return this.feed.channel(taskId);
  }
  getTask(taskId: string, opts?: RequestOptions): Promise<TaskSnapshot> {
    return getTask(this.conn, taskId, opts);
  }
  async updateTask(taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
    // -32602 may be a refused answer to a task that is still waiting: a tasks/get tells.
    await confirmingRejection('tasks/update', () => updateTask(this.conn, taskId, inputResponses), () => this.getTask(taskId));
  }
  async cancelTask(taskId: string): Promise<CancelAnswer> {
    const ended = await confirmingRejection('tasks/cancel', () => cancelTask(this.conn, taskId), () => this.getTask(taskId), { terminalIsDone: true });
    return ended ? { endedAlready: ended } : {};
  }
  close(): Promise<void> {
    this.closing.abort();
    this.feed?.close();
    return this.conn.close();
  }
}
