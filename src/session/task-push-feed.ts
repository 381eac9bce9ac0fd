// One listen stream per server session for every task being followed (2026-07-28
// `subscriptions/listen` + `notifications/tasks`). Each followed task gets a PushChannel; the
// ids asked within a few milliseconds go out in one listen, ids added later in a new listen for
// the whole set (the old stream is closed once the new one is acknowledged, so no gap). Ids the
// server did not acknowledge are never asked again: they are polled. A dropped stream is
// re-opened with back-off; meanwhile every channel reads epoch 0 and its task is polled.
import type { Connection, TaskListen } from '../connection/connect.js';
import { RpcResponseError } from '../protocol/remote-errors.js';
import { readTaskNotification } from '../protocol/task-wire.js';
import { NO_PUSH, type PushChannel, type PushEvent } from '../tasks/push.js';

/** Follow requests within this window share one listen request. */
const BATCH_MS = 15;
const ACK_TIMEOUT_MS = 10_000;
const REOPEN_FIRST_MS = 250;
const REOPEN_MAX_MS = 30_000;
/** A stream that lived this long was healthy: the next re-open starts the back-off afresh. */
const HEALTHY_MS = 10_000;
/** Listen attempts that fail in a row (without an RPC answer) before push is given up for this run. */
const MAX_FAILED_OPENS = 5;

class Channel implements PushChannel {
  current = 0;
  /** Until the first listen naming it is answered (or fails). */
  waiting = true;
  private readonly queue: PushEvent[] = [];
  private wake: (() => void) | undefined;

  constructor(private readonly release: () => void) {}

  epoch(): number {
    return this.current;
  }
  pending(): boolean {
    return this.waiting && this.current === 0;
  }
  /** The first answer about this task came (acknowledged or not): the follower stops waiting for it. */
  settle(): void {
    if (!this.waiting) return;
    this.waiting = false;
    if (this.current === 0) this.put({ kind: 'epoch' });
  }
  setEpoch(epoch: number): void {
    if (epoch === this.current) return;
    this.current = epoch;
    this.put({ kind: 'epoch' });
  }
  put(event: PushEvent): void {
    this.queue.push(event);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
  ready(signal: AbortSignal): Promise<void> {
    if (this.queue.length || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      this.wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }
  take(): PushEvent | undefined {
    return this.queue.shift();
  }
  close(): void {
    this.queue.length = 0;
    this.release();
  }
}

interface OpenStream {
  listen: TaskListen;
  ids: Set<string>;
  epoch: number;
  openedAt: number;
}

export class TaskPushFeed {
  private readonly channels = new Map<string, Channel>();
  /** Asked once and not acknowledged: polled from then on. */
  private readonly refused = new Set<string>();
  private unsupported = false;
  private stream: OpenStream | undefined;
  /** Ids in the listen request awaiting its acknowledgement, with states that came before it was read. */
  private pending: { ids: Set<string>; early: Map<string, PushEvent[]> } | undefined;
  private epochs = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private backoffMs = 0;
  private failedOpens = 0;
  private closed = false;

  constructor(
    private readonly conn: Connection,
    private readonly debug?: (line: string) => void,
  ) {}

  channel(taskId: string): PushChannel {
    if (this.closed || this.unsupported || this.refused.has(taskId) || this.channels.has(taskId)) return NO_PUSH;
    const ch = new Channel(() => this.release(taskId, ch));
    this.channels.set(taskId, ch);
    this.schedule(BATCH_MS);
    return ch;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    const s = this.stream;
    this.stream = undefined;
    void s?.listen.close().catch(() => {});
  }

  private release(taskId: string, ch: Channel): void {
    if (this.channels.get(taskId) !== ch) return;
    this.channels.delete(taskId);
    if (this.channels.size > 0) return;
    // Nothing left to follow: the stream is closed, not left open for nobody.
    clearTimeout(this.timer);
    const s = this.stream;
    this.stream = undefined;
    void s?.listen.close().catch(() => {});
  }

  private schedule(ms: number): void {
    if (this.closed || this.unsupported || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.open();
    }, ms);
    this.timer.unref?.();
  }

  /** Ids followed and not refused; `uncovered`: only those the open stream does not carry. */
  private wanted(uncovered: boolean): string[] {
    return [...this.channels.keys()].filter((id) => !this.refused.has(id) && !(uncovered && this.stream?.ids.has(id)));
  }

  private async open(): Promise<void> {
    if (this.busy || this.closed || this.unsupported) return;
    if (this.wanted(true).length === 0) return;
    this.busy = true;
    const ids = this.wanted(false);
    this.pending = { ids: new Set(ids), early: new Map() };
    let listen: TaskListen;
    try {
      listen = await this.conn.listenTasks(ids, (params) => this.onTask(params), { timeoutMs: ACK_TIMEOUT_MS });
    } catch (err) {
      this.pending = undefined;
      this.busy = false;
      const why = err instanceof Error ? err.message : String(err);
      // An answer to the listen request (method not found, missing capability, ...): this server does not push.
      for (const ch of this.channels.values()) ch.settle();
      if (err instanceof RpcResponseError || ++this.failedOpens >= MAX_FAILED_OPENS) {
        this.unsupported = true;
        this.debug?.(`the server does not push task states (subscriptions/listen: ${why}); polling`);
        return;
      }
      this.debug?.(`subscriptions/listen failed (${why}); polling, trying again`);
      return this.reopenLater();
    }
    this.failedOpens = 0;
    const early = this.pending?.early ?? new Map<string, PushEvent[]>();
    this.pending = undefined;
    this.busy = false;
    if (this.closed || this.channels.size === 0) return void listen.close().catch(() => {});
    const acked = new Set(listen.acknowledged);
    const old = this.stream;
    const epoch = ++this.epochs;
    this.stream = { listen, ids: acked, epoch, openedAt: Date.now() };
    const notAcked = ids.filter((id) => !acked.has(id));
    this.debug?.(`listen stream open: the server pushes ${acked.size} of ${ids.length} task${ids.length === 1 ? '' : 's'}${notAcked.length ? `; polling the other ${notAcked.length}` : ''}`);
    for (const id of ids) {
      const ch = this.channels.get(id);
      if (!ch) continue;
      if (!acked.has(id)) {
        this.refused.add(id);
        ch.setEpoch(0);
        ch.settle();
        continue;
      }
      // Carried over from the stream being replaced: no gap, so no news for the follower.
      if (old && old.ids.has(id) && ch.current === old.epoch) ch.current = epoch;
      else ch.setEpoch(epoch);
      ch.settle();
      for (const e of early.get(id) ?? []) ch.put(e);
    }
    void listen.closed.then((why) => this.onClosed(listen, why));
    if (old) void old.listen.close().catch(() => {});
    if (this.wanted(true).length > 0) this.schedule(BATCH_MS);
  }

  private onClosed(listen: TaskListen, why: 'local' | 'graceful' | 'remote'): void {
    const s = this.stream;
    if (this.closed || !s || s.listen !== listen) return;
    this.stream = undefined;
    for (const ch of this.channels.values()) if (ch.current === s.epoch) ch.setEpoch(0);
    if (Date.now() - s.openedAt >= HEALTHY_MS) this.backoffMs = 0;
    this.debug?.(`listen stream ${why === 'graceful' ? 'ended by the server' : 'dropped'}; polling until it is open again`);
    this.reopenLater();
  }

  private reopenLater(): void {
    if (this.wanted(false).length === 0) return;
    this.backoffMs = this.backoffMs ? Math.min(this.backoffMs * 2, REOPEN_MAX_MS) : REOPEN_FIRST_MS;
    this.schedule(this.backoffMs);
  }

  /** One notifications/tasks: validated like a tasks/get answer, for an acknowledged task only. */
  private onTask(params: unknown): void {
    const read = readTaskNotification(params);
    if (read.taskId === undefined) {
      this.debug?.(`ignored a notifications/tasks that names no task (${read.error?.message ?? 'no taskId'})`);
      return;
    }
    const event: PushEvent = read.error ? { kind: 'refused', error: read.error } : { kind: 'state', snapshot: read.task! };
    const ch = this.channels.get(read.taskId);
    if (!ch) return;
    if (ch.current !== 0 && this.stream?.ids.has(read.taskId)) return ch.put(event);
    // Before the acknowledgement was read (it came in the same chunk): kept until it is.
    if (this.pending?.ids.has(read.taskId)) {
      const list = this.pending.early.get(read.taskId) ?? [];
      list.push(event);
      this.pending.early.set(read.taskId, list);
    }
  }
}
