// A server that keeps listing input keys it was already given (keys are unique for a task's
// lifetime, so this is a spec violation, or an answer it never took): how long to wait before
// saying so, and when to stop waiting. Pure: times are passed in.

/** What to do about a handled key set the server still lists. */
export type StuckVerdict = 'wait' | 'notice' | 'give-up';

/**
 * After `stuckAfterMs` the person is told once (the notice); after another equal period from the
 * notice with the same keys still listed, waiting any longer would be waiting forever. The notice
 * always comes first, even when one slow poll spans both periods.
 */
export function stuckVerdict(handledAtMs: number, nowMs: number, stuckAfterMs: number, noticedAtMs: number | undefined): StuckVerdict {
  if (noticedAtMs === undefined) return nowMs - handledAtMs >= stuckAfterMs ? 'notice' : 'wait';
  return nowMs - noticedAtMs >= stuckAfterMs ? 'give-up' : 'wait';
}

/**
 * Whether a one-off look (`get`, `answer`) may call relisted keys stuck: only once the answer is
 * older than the whole patience a watch gives (the notice period and the one after it). Right
 * after an answer the server may simply not have taken it yet (tasks/update is eventually
 * consistent); with no answer time on record there is no evidence at all.
 */
export function stuckSinceAnswer(answeredAtMs: number | undefined, nowMs: number, stuckAfterMs: number): boolean {
  return answeredAtMs !== undefined && Number.isFinite(answeredAtMs) && nowMs - answeredAtMs >= 2 * stuckAfterMs;
}

/**
 * The pending keys that were answered before, when every pending key was: the server asks again
 * for what it was given. Empty when anything new is pending (then there is something to answer).
 */
export function relistedKeys(pending: readonly string[], answered: readonly string[]): string[] {
  if (pending.length === 0) return [];
  const given = new Set(answered);
  return pending.every((k) => given.has(k)) ? [...pending] : [];
}
