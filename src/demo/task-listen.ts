// subscriptions/listen for tasks on the demo server: per listen request, the acknowledgement
// naming the ids it will push (known, unexpired tasks only; unknown ids are left out), then a
// `notifications/tasks` with the full DetailedTask (what tasks/get would answer at that moment)
// right after the acknowledgement and on every change. The SDK's own listen router knows only
// list-changed and resource events, so task ids are served here, on both transports.
//
// Timelines are pure functions of time and the stored answers, so a change is found by
// evaluating each subscribed task on a short tick (and at once after an answer or a cancel).
import { hasTaskClientCapabilityV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { ErrorCode, isTerminalStatus, SUBSCRIPTION_ID_META, TASKS_EXTENSION_ID } from '../protocol/constants.js';
import { declaredCapabilities, missingCapabilities } from './input-capabilities.js';
import type { TaskEngine } from './task-engine.js';
import type { StoredTask } from './task-store.js';
import type { InputRequest, JsonObject } from './tools.js';
import type { RpcRequest } from './tools.js';
import { DEMO_SERVER_INFO } from './sdk-server.js';

const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo';

/** How often subscribed tasks are evaluated: a change is pushed at most this late. */
const TICK_MS = 20;
/** Stored tasks are re-read this often (another process on the same store may have answered). */
const RELOAD_MS = 1000;

/** A JSON-RPC message for the listen stream's sink (a notification, or the closing result). */
export type StreamMessage = JsonObject & { jsonrpc: '2.0' };

export type ListenOutcome =
  | { kind: 'error'; code: number; message: string; data?: unknown }
  | { kind: 'stream'; subscription: Subscription };

/** Whether a subscriptions/listen request asks for task ids (the rest is the SDK's). */
export function asksForTasks(request: RpcRequest): boolean {
  const n = (request.params as { notifications?: unknown } | undefined)?.notifications;
  return request.method === 'subscriptions/listen' && typeof n === 'object' && n !== null && 'taskIds' in n;
}

interface Followed {
  stored: StoredTask;
  /** What was last pushed (status, time, message, interval, keys); undefined before the first. */
  sent?: string;
}

export class Subscription {
  private readonly tasks = new Map<string, Followed>();
  private closed = false;

  constructor(
    readonly id: string | number,
    private readonly engine: TaskEngine,
    private readonly declared: Record<string, unknown>,
    private readonly sink: (m: StreamMessage) => void,
    private readonly end: (s: Subscription) => void,
  ) {}

  /** Acknowledge the known ones among `asked`, then push each one's state. */
  start(asked: string[], ackNone: boolean): void {
    for (const taskId of ackNone ? [] : asked) {
      const now = this.engine.detailed(taskId);
      if (now) this.tasks.set(taskId, { stored: now.task });
    }
    this.sink(this.stamp({ method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: [...this.tasks.keys()] } } }));
    this.tick();
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Re-read a task after an answer or a cancel request, and push what changed. */
  reload(taskId: string): void {
    const f = this.tasks.get(taskId);
    if (!f) return;
    const now = this.engine.detailed(taskId);
    if (!now) return void this.tasks.delete(taskId);
    f.stored = now.task;
    this.push(taskId, f);
  }

  reloadAll(): void {
    for (const taskId of [...this.tasks.keys()]) this.reload(taskId);
  }

  tick(): void {
    for (const [taskId, f] of [...this.tasks]) this.push(taskId, f);
  }

  private push(taskId: string, f: Followed): void {
    if (this.closed) return;
    const view = this.engine.viewNow(f.stored);
    // Expired: tasks/get would answer "not found" now; nothing more is pushed for it.
    if (!view) return void this.tasks.delete(taskId);
    // Every tick evaluates every task: the comparison is kept cheap, the wire task built on change only.
    const sig = `${view.status}\0${view.changedAtMs}\0${view.statusMessage ?? ''}\0${view.pollIntervalMs}\0${Object.keys(view.inputRequests ?? {}).join('\0')}`;
    if (sig === f.sent) return;
    // Never an input request the client did not declare (tasks/get answers -32021 for it).
    if (view.status === 'input_required' && missingCapabilities((view.inputRequests ?? {}) as Record<string, InputRequest>, this.declared)) return;
    f.sent = sig;
    this.sink(this.stamp({ method: 'notifications/tasks', params: this.engine.wireTask(f.stored, view, true) }));
    if (isTerminalStatus(view.status)) this.tasks.delete(taskId);
  }

  private stamp(n: { method: string; params: JsonObject }): StreamMessage {
    const meta = (n.params._meta ?? {}) as JsonObject;
    return { jsonrpc: '2.0', method: n.method, params: { ...n.params, _meta: { ...meta, [SUBSCRIPTION_ID_META]: this.id } } };
  }

  /** Server-side end (shutdown): the empty listen result, the spec's graceful close. */
  closeGracefully(serverInfo: typeof DEMO_SERVER_INFO): void {
    if (this.closed) return;
    this.sink({ jsonrpc: '2.0', id: this.id, result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META]: this.id, [SERVER_INFO_META]: serverInfo } } });
    this.close();
  }

  /** The client went away or cancelled: nothing more is sent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.tasks.clear();
    this.end(this);
  }
}

export class TaskListenHub {
  private readonly open = new Set<Subscription>();
  private timer: NodeJS.Timeout | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private readonly onChange = (taskId: string) => {
    for (const s of this.open) s.reload(taskId);
  };

  constructor(private readonly engine: TaskEngine) {}

  /** Serve one subscriptions/listen request asking for task ids; `sink` carries the stream. */
  listen(request: RpcRequest, sink: (m: StreamMessage) => void): ListenOutcome {
    const params = (request.params ?? {}) as JsonObject;
    // The spec's MUST: task notifications only for a client that declares the extension.
    if (!hasTaskClientCapabilityV2(params)) {
      return {
        kind: 'error',
        code: ErrorCode.MissingCapability,
        message: `Missing required client capability: ${TASKS_EXTENSION_ID} (needed for task notifications); declare it in _meta clientCapabilities.extensions`,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
      };
    }
    const taskIds = (params.notifications as { taskIds?: unknown }).taskIds;
    if (!Array.isArray(taskIds) || !taskIds.every((t) => typeof t === 'string')) {
      return { kind: 'error', code: ErrorCode.InvalidParams, message: 'Invalid params: notifications.taskIds must be an array of strings' };
    }
    const sub = new Subscription(request.id, this.engine, declaredCapabilities(params), sink, (s) => this.ended(s));
    this.open.add(sub);
    if (this.open.size === 1) {
      this.engine.changed.add(this.onChange);
      this.timer = setInterval(() => this.each((s) => s.tick()), TICK_MS);
      this.reloadTimer = setInterval(() => this.each((s) => s.reloadAll()), RELOAD_MS);
      this.timer.unref();
      this.reloadTimer.unref();
    }
    sub.start([...new Set(taskIds as string[])], this.engine.faults.noPush === true);
    // Nothing to push: the acknowledgement, then the graceful end (as the SDK's router does).
    if (sub.size === 0) sub.closeGracefully(DEMO_SERVER_INFO);
    return { kind: 'stream', subscription: sub };
  }

  /** Every open stream ends with the graceful listen result (the server is shutting down). */
  closeAll(): void {
    for (const s of [...this.open]) s.closeGracefully(DEMO_SERVER_INFO);
  }

  private each(f: (s: Subscription) => void): void {
    for (const s of [...this.open]) {
      try {
        f(s);
      } catch {
        // One broken task must not stop the other streams; tasks/get reports it.
      }
    }
  }

  private ended(s: Subscription): void {
    this.open.delete(s);
    if (this.open.size > 0) return;
    this.engine.changed.delete(this.onChange);
    clearInterval(this.timer);
    clearInterval(this.reloadTimer);
  }
}
