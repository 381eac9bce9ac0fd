// pollUntil: follow one task with tasks/get until it ends, needs input, times out or is
// interrupted. Pure lifecycle logic: the clock, sleep and tasks/get are injected.
import { isTerminalStatus } from '../protocol/constants.js';
import { RateLimitedError, RpcResponseError, TransportError } from '../protocol/remote-errors.js';
import type { WatchEnd } from './outcome.js';
import { expiresAtMs, snapshotChanged, type TaskSnapshot } from './task-snapshot.js';
import { stuckVerdict } from './input-stuck.js';
import { waitForPush, type PushChannel } from './push.js';

/**
 * While the server pushes a task's states, tasks/get still runs this seldom (or at the server's
 * interval if longer): a lost notification can delay an update, never hide it.
 */
export const SAFETY_POLL_MS = 30_000;
/**
 * How long the first poll may wait for the answer to a listen naming the task, and then for the
 * first pushed state (both normally come within milliseconds): a thousand tasks then cost no
 * first tasks/get each. A server that pushes only changes gets that one poll after this wait.
 */
export const PUSH_ACK_GRACE_MS = 5_000;
/** Turns of the event loop given, after the grace, to a listen answer that may sit unread. */
const LAST_LOOKS = 5;

/** Where an observed state came from. */
export type StateSource = 'push' | 'poll';

export const DEFAULT_POLL_INTERVAL_MS = 1000;
/** A server asking for sub-100 ms polls gets 100 ms: we never hammer, whatever it says. */
export const MIN_POLL_INTERVAL_MS = 100;

export interface RetryPolicy {
  /** Consecutive transport failures tolerated before giving up (exit 7, handle kept). */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}
export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 1000, maxDelayMs: 15_000 };

export interface RetryNotice {
  attempt: number;
  of: number;
  delayMs: number;
  reason: string;
}

export interface PollOptions {
  taskId: string;
  /** `signal` fires on interrupt or when the timeout runs out: the request in flight must stop then. */
  get: (taskId: string, signal?: AbortSignal) => Promise<TaskSnapshot>;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The last state seen (from the create result or the vault): its pollIntervalMs sets the first wait. */
  initial?: TaskSnapshot | undefined;
  timeoutMs?: number | undefined;
  signal?: AbortSignal;
  defaultIntervalMs?: number;
  retry?: RetryPolicy | undefined;
  onSnapshot?: (snapshot: TaskSnapshot, changed: boolean, via: StateSource) => void | Promise<void>;
  /**
   * The task's channel on the server's listen stream. While it is acknowledged (and one state
   * has been seen since), pushed states replace tasks/get, which falls back to SAFETY_POLL_MS.
   */
  push?: PushChannel | undefined;
  /** The push channel started or stopped covering this task (for -v). */
  onPushEpoch?: (epoch: number) => void;
  onRetry?: (notice: RetryNotice) => void;
  /** The wait differs from the server's pollIntervalMs (for -v). */
  onClamp?: (clamp: PollClamp) => void;
  /**
   * Called on input_required. Return 'answered' to keep polling (input was sent),
   * or 'stop' to end with needs-input. Without it, input_required ends the watch.
   */
  onInputRequired?: (snapshot: TaskSnapshot) => Promise<'answered' | 'stop'>;
  /**
   * input_required is not an end either (`cancel --wait`: cancellation is cooperative, and a task
   * asked to stop may still list its questions until the server acts on the cancel): keep polling
   * until a terminal state or the timeout. Ignored when onInputRequired is given.
   */
  throughInput?: boolean;
  /**
   * Called once when the server keeps listing a set of keys already handled for longer than
   * `inputStuckAfterMs`: the answer may not have been taken, and nobody should wait in silence.
   */
  onInputStuck?: (snapshot: TaskSnapshot, forMs: number) => void;
  /** Default 15 s. */
  inputStuckAfterMs?: number | undefined;
  /**
   * Called when the same handled keys are still listed another `inputStuckAfterMs` after the
   * notice. 'answered': a new answer went out on purpose; 'wait': keep waiting another period;
   * 'stop' (also without a handler): end with needs-input, marked `relisted`.
   */
  onInputRelisted?: (snapshot: TaskSnapshot) => Promise<'answered' | 'wait' | 'stop'>;
}

export const DEFAULT_INPUT_STUCK_AFTER_MS = 15_000;

/** Why a wait differs from what the server asked: below our floor, or beyond the task's TTL. */
export interface PollClamp {
  askedMs: number;
  usedMs: number;
  why: 'floor' | 'ttl';
}

/**
 * The interval the server asked for: honoured however long, except that we never poll faster
 * than MIN_POLL_INTERVAL_MS, and never wait past the moment the server may forget the task
 * (its remaining ttlMs), so the last state before expiry is still observed.
 */
export function pollDelay(snapshot: TaskSnapshot | undefined, defaultMs = DEFAULT_POLL_INTERVAL_MS, nowMs?: number, onClamp?: (c: PollClamp) => void): number {
  const asked = snapshot?.pollIntervalMs;
  const ms = typeof asked === 'number' && Number.isFinite(asked) && asked > 0 ? asked : defaultMs;
  if (ms < MIN_POLL_INTERVAL_MS) {
    if (asked !== undefined) onClamp?.({ askedMs: ms, usedMs: MIN_POLL_INTERVAL_MS, why: 'floor' });
    return MIN_POLL_INTERVAL_MS;
  }
  const expires = snapshot && nowMs !== undefined ? expiresAtMs(snapshot) : undefined;
  if (expires !== undefined) {
    const left = Math.max(MIN_POLL_INTERVAL_MS, expires - nowMs!);
    if (ms > left) {
      onClamp?.({ askedMs: ms, usedMs: left, why: 'ttl' });
      return left;
    }
  }
  return ms;
}

export function backoffDelay(attempt: number, policy: RetryPolicy): number {
  return Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
}

export async function pollUntil(opts: PollOptions): Promise<WatchEnd> {
  return new TaskPoll(opts).run();
}

/** What a wait ended in: a pushed state (or none: time to poll), or the end of the watch. */
type Waited = { pushed?: TaskSnapshot } | { end: WatchEnd };
/** What one tasks/get gave: the state, the end of the watch, or a wait (waitMs set) before the next. */
type Polled = { snapshot: TaskSnapshot } | { end: WatchEnd } | { again: true };
const AGAIN = { again: true } as const;

/** One pollUntil: its state between the parts (wait, poll, what a state means, input rounds). */
class TaskPoll {
  private readonly retry: RetryPolicy;
  private readonly deadline: number | undefined;
  private readonly push: PushChannel | undefined;
  private last: TaskSnapshot | undefined;
  private failures = 0;
  private rateLimited = 0;
  /** How long to wait before the next tasks/get (0: at once). */
  private waitMs: number;
  /** The clamp said last: said once per asked interval, not on every poll. */
  private reportedClamp = '';
  private readonly answeredRounds = new Set<string>();
  /** When the current, already handled, key set was handled. */
  private handledAt: number | undefined;
  /** When the stuck notice was said for the current round (undefined: not yet). */
  private stuckNoticedAt: number | undefined;
  /** The push epoch the last observation belongs to: push replaces polls only once it has shown a state. */
  private synced = 0;
  private readonly ackGraceUntil: number;
  /** The grace is over and the listen unanswered: how many times it was looked at again, after pending I/O. */
  private lastLooks = 0;

  constructor(private readonly opts: PollOptions) {
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.deadline = opts.timeoutMs !== undefined ? opts.now() + opts.timeoutMs : undefined;
    this.last = opts.initial;
    this.push = opts.push;
    // First wait: a fresh handle (or a cached record) says how soon the server wants to be asked.
    this.waitMs = this.last ? this.delayAfter(this.last) : 0;
    this.ackGraceUntil = opts.now() + PUSH_ACK_GRACE_MS;
  }

  async run(): Promise<WatchEnd> {
    const { opts } = this;
    for (;;) {
      if (opts.signal?.aborted) return this.interrupted();
      let pushed: TaskSnapshot | undefined;
      if (this.waitMs > 0) {
        const waited = await this.waitTurn();
        if ('end' in waited) return waited.end;
        pushed = waited.pushed;
        if (opts.signal?.aborted) return this.interrupted();
      }
      if (!pushed && this.deadline !== undefined && opts.now() >= this.deadline) return this.timedOut();
      const polled: Polled = pushed ? { snapshot: pushed } : await this.poll();
      if ('end' in polled) return polled.end;
      if ('again' in polled) continue;
      const end = await this.observe(polled.snapshot, pushed ? 'push' : 'poll');
      if (end) return end;
    }
  }

  private interrupted = (): WatchEnd => ({ kind: 'interrupted', snapshot: this.last });
  private timedOut = (): WatchEnd => ({ kind: 'timeout', snapshot: this.last });

  private onClamp = (c: PollClamp): void => {
    const key = `${c.why}:${c.askedMs}`;
    if (key !== this.reportedClamp) this.opts.onClamp?.(c);
    this.reportedClamp = key;
  };

  private delayAfter(s: TaskSnapshot | undefined): number {
    return pollDelay(s, this.opts.defaultIntervalMs, this.opts.now(), this.onClamp);
  }

  /** With push: the poll interval after `s`, SAFETY_POLL_MS (or longer) once pushes are known to flow. */
  private nextWait(s: TaskSnapshot | undefined): number {
    const ms = this.delayAfter(s);
    const epoch = this.push?.epoch() ?? 0;
    if (epoch === 0 || this.synced !== epoch) return ms;
    const expires = s ? expiresAtMs(s) : undefined;
    const left = expires !== undefined ? Math.max(MIN_POLL_INTERVAL_MS, expires - this.opts.now()) : Infinity;
    // Spread over the last fifth of the period: a thousand tasks synced at once do not poll at once.
    return Math.min(Math.round(Math.max(SAFETY_POLL_MS, ms) * (0.8 + Math.random() / 5)), left);
  }

  /** Wait waitMs (bounded by the deadline) for the next poll, or for a pushed state that replaces it. */
  private async waitTurn(): Promise<Waited> {
    const { opts, push } = this;
    let until = opts.now() + this.waitMs;
    for (;;) {
      let ms = until - opts.now();
      if (this.deadline !== undefined) {
        const left = this.deadline - opts.now();
        if (left <= 0) return { end: this.timedOut() };
        ms = Math.min(ms, left);
      }
      if (ms <= 0) {
        // The listen is still unanswered: a little longer, for the state it brings.
        if (push?.pending() && opts.now() < this.ackGraceUntil) {
          until = this.ackGraceUntil;
          continue;
        }
        // Past the grace, a process busy with many tasks may hold the answer unread: a few turns
        // of the event loop (waits of 0, a millisecond each when idle) let it in before this task
        // is polled instead.
        if (!push?.pending() || this.lastLooks >= LAST_LOOKS) return {};
        this.lastLooks++;
        ms = 0;
      }
      if (!push) {
        await opts.sleep(ms, opts.signal);
        return {};
      }
      const event = await waitForPush(push, ms, opts.sleep, opts.signal);
      if (opts.signal?.aborted) return { end: this.interrupted() };
      if (!event) {
        if (opts.now() >= until || (this.deadline !== undefined && opts.now() >= this.deadline)) return {};
        continue;
      }
      if (event.kind === 'refused') throw event.error;
      if (event.kind === 'epoch') {
        until = this.afterEpoch(push, until);
        continue;
      }
      // A pushed state older than one already seen (a poll overtook it) is not news.
      if (this.last && Date.parse(event.snapshot.lastUpdatedAt) < Date.parse(this.last.lastUpdatedAt)) continue;
      this.synced = push.epoch();
      return { pushed: event.snapshot };
    }
  }

  /** The push channel started or stopped covering the task: when the wait now ends. */
  private afterEpoch(push: PushChannel, until: number): number {
    const epoch = push.epoch();
    this.opts.onPushEpoch?.(epoch);
    // Dropped or refused: tasks/get at the task's interval again, spread so a thousand tasks
    // do not poll at once. Acknowledged: the state should follow; a poll only if it does not soon.
    if (epoch === 0) return Math.min(until, this.opts.now() + Math.round(this.delayAfter(this.last) * (0.5 + Math.random() / 2)));
    if (this.synced !== epoch) return Math.max(until, this.opts.now() + PUSH_ACK_GRACE_MS);
    return until;
  }

  /** One tasks/get. --timeout holds for the request in flight too: a server that holds its answer (a silent stream) must not keep the watch past its deadline. */
  private async poll(): Promise<Polled> {
    const { opts, push } = this;
    const epochAtGet = push?.epoch() ?? 0;
    const stop = new AbortController();
    const onInterrupt = () => stop.abort();
    opts.signal?.addEventListener('abort', onInterrupt, { once: true });
    const deadlineTimer = this.deadline !== undefined ? setTimeout(() => stop.abort(), Math.max(this.deadline - opts.now(), 0)) : undefined;
    let snapshot: TaskSnapshot;
    try {
      snapshot = await opts.get(opts.taskId, stop.signal);
    } catch (err) {
      if (opts.signal?.aborted) return { end: this.interrupted() };
      if (stop.signal.aborted) return { end: this.timedOut() };
      return this.failed(err);
    } finally {
      clearTimeout(deadlineTimer);
      opts.signal?.removeEventListener('abort', onInterrupt);
    }
    // A poll sent while the stream was acknowledged shows the state from then on: pushes carry the rest.
    if (epochAtGet !== 0 && push?.epoch() === epochAtGet) this.synced = epochAtGet;
    return { snapshot };
  }

  /** A tasks/get that failed: the task is lost, the server unreachable, or the next poll waits. */
  private failed(err: unknown): Polled {
    const { opts, retry, last } = this;
    if (err instanceof RpcResponseError && err.isUnknownTask) {
      return { end: { kind: 'lost', snapshot: last, reason: 'the server no longer knows this task (unknown or expired taskId)' } };
    }
    if (err instanceof RpcResponseError && err.isRateLimited) {
      // The server is rate-limiting us: wait what it asks, then at least our normal interval.
      this.waitMs = Math.max(err.retryAfterMs ?? 0, pollDelay(last, opts.defaultIntervalMs));
      return AGAIN;
    }
    if (err instanceof RateLimitedError) {
      // HTTP 429: nothing was admitted; wait what Retry-After says (or back off), then at least our normal interval.
      this.rateLimited += 1;
      this.waitMs = Math.max(err.retryAfterMs ?? backoffDelay(this.rateLimited, retry), pollDelay(last, opts.defaultIntervalMs));
      opts.onRetry?.({ attempt: this.rateLimited, of: 0, delayMs: this.waitMs, reason: err.message });
      return AGAIN;
    }
    if (err instanceof TransportError) {
      this.failures += 1;
      // The local clock never decides that a task is gone (clocks drift; only the server
      // knows): past its ttlMs, an unreachable server is still just unreachable, handle kept.
      const expires = last ? expiresAtMs(last) : undefined;
      const ttlNote = expires !== undefined && opts.now() > expires ? ' (its ttlMs has passed by this clock; the server may have expired it)' : '';
      if (this.failures > retry.attempts) return { end: { kind: 'unreachable', snapshot: last, reason: `${err.message}${ttlNote}` } };
      this.waitMs = backoffDelay(this.failures, retry);
      opts.onRetry?.({ attempt: this.failures, of: retry.attempts, delayMs: this.waitMs, reason: err.message });
      return AGAIN;
    }
    throw err;
  }

  /** A state seen (pushed or polled): the end it is, or the wait before the next poll. */
  private async observe(snapshot: TaskSnapshot, via: StateSource): Promise<WatchEnd | undefined> {
    this.failures = 0;
    this.rateLimited = 0;
    const changed = snapshotChanged(this.last, snapshot);
    this.last = snapshot;
    await this.opts.onSnapshot?.(snapshot, changed, via);
    if (isTerminalStatus(snapshot.status)) return { kind: 'terminal', snapshot };
    if (snapshot.status === 'input_required') {
      const end = await this.inputRequired(snapshot);
      if (end) return end;
    } else {
      // Once the task moves on, a later request for the same keys is a new round: the handler
      // gets to say so (it never answers a key twice) instead of the watch going quiet.
      this.answeredRounds.clear();
    }
    this.waitMs = this.nextWait(snapshot);
    return undefined;
  }

  /** input_required: answered once per round of keys; a round still listed long after is noticed, then given up. */
  private async inputRequired(snapshot: TaskSnapshot): Promise<WatchEnd | undefined> {
    const { opts } = this;
    // One answering round per distinct set of pending keys: a server that is slow to drop
    // answered keys must not make us answer (or prompt) twice.
    const round = Object.keys(snapshot.inputRequests ?? {}).sort().join('\0');
    if (!opts.onInputRequired) return opts.throughInput ? undefined : { kind: 'needs-input', snapshot };
    if (!this.answeredRounds.has(round)) {
      this.answeredRounds.add(round);
      const verdict = await opts.onInputRequired(snapshot);
      if (verdict === 'stop') return { kind: 'needs-input', snapshot };
      this.handledAt = opts.now();
      this.stuckNoticedAt = undefined;
      return undefined;
    }
    if (this.handledAt === undefined) return undefined;
    const stuckAfterMs = opts.inputStuckAfterMs ?? DEFAULT_INPUT_STUCK_AFTER_MS;
    const verdict = stuckVerdict(this.handledAt, opts.now(), stuckAfterMs, this.stuckNoticedAt);
    if (verdict === 'notice') {
      this.stuckNoticedAt = opts.now();
      opts.onInputStuck?.(snapshot, opts.now() - this.handledAt);
    } else if (verdict === 'give-up') {
      const next = opts.onInputRelisted ? await opts.onInputRelisted(snapshot) : 'stop';
      if (next === 'stop') return { kind: 'needs-input', snapshot, relisted: Object.keys(snapshot.inputRequests ?? {}) };
      // A new answer, or another period of patience: the clock starts again, the notice stays said.
      this.handledAt = opts.now();
      // 'wait': as patient as the first time (notice period and the period after it), without a second notice.
      this.stuckNoticedAt = next === 'wait' ? this.handledAt + stuckAfterMs : undefined;
    }
    return undefined;
  }
}
