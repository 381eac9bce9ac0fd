// Push as the follow loop sees it: one task's channel on a server's listen stream, whichever
// generation and transport carry it. Pure types and the wait that races it against the poll
// timer; the stream itself lives behind the session seam.
import type { TaskSnapshot } from './task-snapshot.js';

export type PushEvent =
  /** A state the server pushed, already validated like a tasks/get answer. */
  | { kind: 'state'; snapshot: TaskSnapshot }
  /** A pushed state for this task that failed validation: refused like a malformed tasks/get. */
  | { kind: 'refused'; error: Error }
  /** The server started (acknowledged), refused or stopped (stream dropped) pushing this task: see epoch(). */
  | { kind: 'epoch' };

export interface PushChannel {
  /**
   * Non-zero while the server pushes this task's states: the number of the acknowledgement that
   * covers it (a new number after a stream was re-opened). 0: not acknowledged, or dropped.
   */
  epoch(): number;
  /** A listen naming this task is on its way and unanswered: the first poll may wait a little for it. */
  pending(): boolean;
  /** Resolves when an event is queued (or at once if one is); resolves, never rejects, on `signal`. */
  ready(signal: AbortSignal): Promise<void>;
  /** The oldest queued event, if any. */
  take(): PushEvent | undefined;
  /** This task needs no more pushes (it ended, or the follow stopped). */
  close(): void;
}

/** A channel that never pushes: servers without the feature, 2025-11-25, `--poll`. */
export const NO_PUSH: PushChannel = {
  epoch: () => 0,
  pending: () => false,
  ready: (signal) => new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }))),
  take: () => undefined,
  close: () => {},
};

/**
 * Wait up to `ms` for the poll timer, or less for a pushed event. An event queued while the
 * timer won is kept for the next take(), so none is lost to the race.
 */
export async function waitForPush(
  push: PushChannel,
  ms: number,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  signal?: AbortSignal,
): Promise<PushEvent | undefined> {
  const queued = push.take();
  if (queued) return queued;
  const done = new AbortController();
  // AbortSignal.any, not a listener per wait: a thousand followers share the one Ctrl-C signal.
  const stop = signal ? AbortSignal.any([signal, done.signal]) : done.signal;
  try {
    await Promise.race([push.ready(stop), sleep(ms, stop).catch(() => {})]);
  } finally {
    done.abort();
  }
  return push.take();
}
