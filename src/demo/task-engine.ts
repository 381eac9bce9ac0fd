// The demo server's task runtime: creates tasks in the durable store and answers tasks/get,
// tasks/update and tasks/cancel by evaluating each task's timeline at the current time.
import { randomBytes } from 'node:crypto';
import { ErrorCode, isTerminalStatus } from '../protocol/constants.js';
import type { FileTaskStore, StoredTask } from './task-store.js';
import { findTool, hostileInputs, hostileTaskId, hostileText, plainKey, plainText, type DemoTool, type JsonObject, type TaskView } from './tools.js';

export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
    this.name = 'RpcError';
  }
}

export interface Faults {
  dropCreateResponse: boolean;
  ttlMs?: number;
  rateLimit: boolean;
  slowGetMs?: number;
  hostileText: boolean;
  /** Every task id begins with "-", as one in 64 base64url ids from other servers does. */
  dashTaskIds: boolean;
  /** Task ids, inputRequests keys and free-text form defaults carry ESC, C1 and bare CR. */
  hostileIds: boolean;
  /** subscriptions/listen acknowledges no task id (a server that never pushes task states). */
  noPush?: boolean;
}

export const NO_FAULTS: Faults = { dropCreateResponse: false, rateLimit: false, hostileText: false, dashTaskIds: false, hostileIds: false };

/** Parse `--fault` values; throws a message naming the bad one. */
export function parseFaults(values: string[]): Faults {
  const f: Faults = { ...NO_FAULTS };
  for (const v of values) {
    const [name, arg] = v.split('=', 2) as [string, string | undefined];
    const ms = () => {
      const n = Number(arg);
      if (arg === undefined || !/^\d+$/.test(arg) || !Number.isSafeInteger(n)) throw new Error(`--fault ${name} needs a number of milliseconds, as in ${name}=500`);
      return n;
    };
    switch (name) {
      case 'drop-create-response': f.dropCreateResponse = true; break;
      case 'ttl': f.ttlMs = ms(); break;
      case 'rate-limit': f.rateLimit = true; break;
      case 'slow-get': f.slowGetMs = ms(); break;
      // Hostile text covers ids and keys too: every server-chosen string a client may echo.
      case 'hostile-text': f.hostileText = true; f.hostileIds = true; break;
      case 'dash-task-ids': f.dashTaskIds = true; break;
      case 'hostile-ids': f.hostileIds = true; break;
      case 'no-push': f.noPush = true; break;
      default:
        throw new Error(`unknown fault "${v}"; known: drop-create-response, ttl=<ms>, rate-limit, slow-get=<ms>, hostile-text, hostile-ids, dash-task-ids, no-push`);
    }
  }
  return f;
}

/** The _meta key under which the demo server accepts a client operation id for duplicate prevention. */
export const IDEMPOTENCY_META_KEY = 'io.github.mcp-tasks/idempotency-key';
export const DEFAULT_TTL_MS = 60 * 60 * 1000;

/** Minimum fraction of pollIntervalMs between two polls of one task under the rate-limit fault. */
const RATE_LIMIT_SLACK = 0.8;

export class TaskEngine {
  /** Last tasks/get per task, for the rate-limit fault (per process: a fault, not a contract). */
  private readonly lastPoll = new Map<string, number>();
  /** Told the taskId after an answer or a cancel request was stored (listen streams re-read the task). */
  readonly changed = new Set<(taskId: string) => void>();

  constructor(
    private readonly store: FileTaskStore,
    readonly faults: Faults = NO_FAULTS,
    private readonly now: () => number = Date.now,
  ) {}

  newTaskId(): string {
    // 192 bits of randomness: ids are bearer handles and must not be guessable. An id that
    // begins with "-" reads as an option when a person pastes it into a command line, so such
    // draws are redrawn (1 in 64; the ids keep over 191 bits).
    for (;;) {
      const id = randomBytes(24).toString('base64url');
      if (this.faults.dashTaskIds) return `-${id.slice(1)}`;
      if (id.startsWith('-')) continue;
      return this.faults.hostileIds ? hostileTaskId(id) : id;
    }
  }

  /** Evaluate a stored task at `nowMs`, applying cooperative cancellation. */
  view(task: StoredTask, nowMs: number): TaskView {
    const tool = findTool(task.tool);
    if (!tool?.timeline) throw new RpcError(ErrorCode.InternalError, `task ${task.tool} has no timeline`);
    const style = task.hostileText ? hostileText : plainText;
    const cancelAt = task.cancelRequestedAtMs;
    if (cancelAt !== undefined && cancelAt <= nowMs) {
      const atCancel = tool.timeline(task, cancelAt, style);
      const tooLate = isTerminalStatus(atCancel.status) || (atCancel.commitsAtMs !== undefined && cancelAt >= atCancel.commitsAtMs);
      if (!tooLate) {
        return { status: 'cancelled', statusMessage: style('Cancelled at the client\'s request'), changedAtMs: cancelAt, pollIntervalMs: atCancel.pollIntervalMs };
      }
    }
    return tool.timeline(task, nowMs, style);
  }

  /** Frame a view as the wire Task (flat, as in CreateTaskResult and tasks/get). */
  wireTask(task: StoredTask, view: TaskView, detailed: boolean): JsonObject {
    const out: JsonObject = {
      taskId: task.taskId,
      status: view.status,
      createdAt: new Date(task.createdAtMs).toISOString(),
      lastUpdatedAt: new Date(Math.max(view.changedAtMs, task.createdAtMs)).toISOString(),
      ttlMs: task.ttlMs,
      pollIntervalMs: view.pollIntervalMs,
    };
    if (view.statusMessage !== undefined) out.statusMessage = view.statusMessage;
    if (detailed) {
      if (view.status === 'input_required') out.inputRequests = this.faults.hostileIds ? hostileInputs(view.inputRequests ?? {}) : (view.inputRequests ?? {});
      // The inlined result is a complete result in its own right: it says so, as the schema asks.
      if (view.status === 'completed') out.result = { resultType: 'complete', ...view.result };
      if (view.status === 'failed') out.error = view.error ?? { code: ErrorCode.InternalError, message: 'failed' };
    }
    return out;
  }

  /** The task as tasks/get would frame it now (without resultType), or undefined if unknown or expired. */
  detailed(taskId: string, stored?: StoredTask): { task: StoredTask; view: TaskView; wire: JsonObject } | undefined {
    const task = stored ?? this.store.get(taskId);
    const now = this.now();
    if (!task || (task.ttlMs !== null && now > task.createdAtMs + task.ttlMs)) return undefined;
    const view = this.view(task, now);
    return { task, view, wire: this.wireTask(task, view, true) };
  }

  /** The task's view now, or undefined once it has expired (a listen stream's cheap re-evaluation). */
  viewNow(task: StoredTask): TaskView | undefined {
    const now = this.now();
    if (task.ttlMs !== null && now > task.createdAtMs + task.ttlMs) return undefined;
    return this.view(task, now);
  }

  private tell(taskId: string): void {
    for (const f of this.changed) f(taskId);
  }

  private load(taskId: unknown): StoredTask {
    if (typeof taskId !== 'string' || taskId.length === 0) throw new RpcError(ErrorCode.InvalidParams, 'params.taskId must be a non-empty string');
    const task = this.store.get(taskId);
    const now = this.now();
    if (!task || (task.ttlMs !== null && now > task.createdAtMs + task.ttlMs)) {
      throw new RpcError(ErrorCode.InvalidParams, 'Task not found or expired');
    }
    return task;
  }

  /** Create a task for a tools/call; with an idempotency key a repeat returns the first task. */
  create(tool: DemoTool, args: JsonObject, opts: { idempotencyKey?: string; answers?: Record<string, unknown> } = {}): { result: JsonObject; created: boolean } {
    const now = this.now();
    const answers = opts.answers ?? {};
    const candidate: StoredTask = {
      taskId: this.newTaskId(),
      tool: tool.name,
      args,
      createdAtMs: now,
      ttlMs: this.faults.ttlMs ?? DEFAULT_TTL_MS,
      answers,
      answeredAtMs: Object.fromEntries(Object.keys(answers).map((k) => [k, now])),
      ...(opts.idempotencyKey !== undefined ? { idempotencyKey: opts.idempotencyKey } : {}),
      ...(this.faults.hostileText ? { hostileText: true } : {}),
    };
    const { task, created } = this.store.insert(candidate);
    if (!created && JSON.stringify(task.args) !== JSON.stringify(args)) {
      // The same key for different work is a client bug: refuse rather than answer for the wrong task.
      throw new RpcError(ErrorCode.InvalidParams, `idempotency key reused with different arguments for ${tool.name}`);
    }
    const view = this.view(task, now);
    return { result: { resultType: 'task', ...this.wireTask(task, view, false) }, created };
  }

  async get(params: JsonObject): Promise<JsonObject> {
    const task = this.load(params.taskId);
    const now = this.now();
    const view = this.view(task, now);
    if (this.faults.rateLimit) {
      const last = this.lastPoll.get(task.taskId);
      if (last !== undefined && now - last < view.pollIntervalMs * RATE_LIMIT_SLACK) {
        throw new RpcError(ErrorCode.RateLimited, `Polling too fast: wait ${view.pollIntervalMs} ms between tasks/get`, {
          retryAfterMs: view.pollIntervalMs - (now - last),
        });
      }
      this.lastPoll.set(task.taskId, now);
    }
    if (this.faults.slowGetMs) await new Promise((r) => setTimeout(r, this.faults.slowGetMs));
    return { resultType: 'complete', ...this.wireTask(task, view, true) };
  }

  update(params: JsonObject): JsonObject {
    const responses = params.inputResponses;
    if (!responses || typeof responses !== 'object' || Array.isArray(responses)) {
      throw new RpcError(ErrorCode.InvalidParams, 'params.inputResponses must be an object');
    }
    const task = this.load(params.taskId);
    const now = this.now();
    this.store.update(task.taskId, (t) => {
      const pending = this.view(t, now).inputRequests ?? {};
      for (const [sent, value] of Object.entries(responses as JsonObject)) {
        const key = this.faults.hostileIds ? plainKey(sent) : sent;
        // Unknown or already-answered keys are ignored, as the spec asks.
        if (Object.prototype.hasOwnProperty.call(pending, key) && t.answeredAtMs[key] === undefined) {
          t.answers[key] = value;
          t.answeredAtMs[key] = now;
        }
      }
    });
    this.tell(task.taskId);
    return { resultType: 'complete' };
  }

  cancel(params: JsonObject): JsonObject {
    const task = this.load(params.taskId);
    const now = this.now();
    this.store.update(task.taskId, (t) => {
      if (t.cancelRequestedAtMs === undefined && !isTerminalStatus(this.view(t, now).status)) t.cancelRequestedAtMs = now;
    });
    this.tell(task.taskId);
    return { resultType: 'complete' };
  }
}
