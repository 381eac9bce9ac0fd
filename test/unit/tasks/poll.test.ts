// pollUntil with an injected clock and sleep: no real time passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil, pollDelay, MIN_POLL_INTERVAL_MS, DEFAULT_POLL_INTERVAL_MS } from '../../../src/tasks/poll.js';
import { RpcResponseError, TransportError, AuthRefusedError, RateLimitedError, parseRetryAfter } from '../../../src/protocol/remote-errors.js';
import { relistedKeys, stuckSinceAnswer, stuckVerdict } from '../../../src/tasks/input-stuck.js';
import { exitCodeForEnd } from '../../../src/tasks/outcome.js';
import type { TaskSnapshot } from '../../../src/tasks/task-snapshot.js';

function fakeClock() {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
    advance: (ms: number) => (now += ms),
  };
}

const snap = (status: TaskSnapshot['status'], extra: Partial<TaskSnapshot> = {}): TaskSnapshot => ({
  taskId: 't1',
  status,
  createdAt: new Date(1_000_000).toISOString(),
  lastUpdatedAt: new Date(1_000_000).toISOString(),
  ttlMs: 60_000,
  ...extra,
});

/** A server script: one response (or error) per tasks/get. */
function script(steps: Array<TaskSnapshot | Error>) {
  let i = 0;
  const calls: number[] = [];
  return {
    calls,
    get: async (_id: string, clock: { now(): number }) => {
      calls.push(clock.now());
      const step = steps[Math.min(i++, steps.length - 1)]!;
      if (step instanceof Error) throw step;
      return step;
    },
  };
}

test('follows pollIntervalMs as it changes and never polls faster', async () => {
  const clock = fakeClock();
  const s = script([snap('working', { pollIntervalMs: 250 }), snap('working', { pollIntervalMs: 1000 }), snap('working', { pollIntervalMs: 500 }), snap('completed', { result: { content: [] } })]);
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep, initial: snap('working', { pollIntervalMs: 400 }) });
  assert.equal(end.kind, 'terminal');
  // First wait honours the create result, then each answer's own interval.
  assert.deepEqual(clock.sleeps, [400, 250, 1000, 500]);
  const gaps = s.calls.slice(1).map((t, i) => t - s.calls[i]!);
  assert.deepEqual(gaps, [250, 1000, 500]);
});

test('a missing pollIntervalMs uses the documented default; absurdly small ones are clamped', () => {
  assert.equal(pollDelay(snap('working')), DEFAULT_POLL_INTERVAL_MS);
  assert.equal(pollDelay(snap('working', { pollIntervalMs: 1 })), MIN_POLL_INTERVAL_MS);
  assert.equal(pollDelay(undefined, 750), 750);
});

test('unknown taskId (-32602 on tasks/get) ends as lost, never as success', async () => {
  const clock = fakeClock();
  const s = script([snap('working'), new RpcResponseError(-32602, 'Task not found', undefined, 'tasks/get')]);
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep });
  assert.equal(end.kind, 'lost');
  assert.equal(exitCodeForEnd(end), 6);
});

test('transport errors are retried with growing backoff, then end unreachable (exit 7)', async () => {
  const clock = fakeClock();
  const retries: number[] = [];
  const s = script([new TransportError('connection refused')]);
  const end = await pollUntil({
    taskId: 't1',
    get: (id) => s.get(id, clock),
    now: clock.now,
    sleep: clock.sleep,
    retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 250 },
    onRetry: (n) => retries.push(n.delayMs),
  });
  assert.equal(end.kind, 'unreachable');
  assert.equal(exitCodeForEnd(end), 7);
  assert.deepEqual(retries, [100, 200, 250]);
  assert.equal(s.calls.length, 4);
});

test('a transient failure then success resets the failure count', async () => {
  const clock = fakeClock();
  const s = script([new TransportError('reset'), snap('working', { pollIntervalMs: 300 }), new TransportError('reset'), snap('cancelled')]);
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep, retry: { attempts: 1, baseDelayMs: 50, maxDelayMs: 50 } });
  assert.equal(end.kind, 'terminal');
  assert.equal(exitCodeForEnd(end), 3);
});

test('TTL elapsed by the local clock while unreachable: unreachable, never lost (the clock may be skewed; only the server can say the task is gone)', async () => {
  const clock = fakeClock();
  const s = script([new TransportError('down')]);
  const initial = snap('working', { ttlMs: 500, pollIntervalMs: 1000 });
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep, initial, retry: { attempts: 10, baseDelayMs: 100, maxDelayMs: 100 } });
  assert.equal(end.kind, 'unreachable');
});

test('rate-limit errors with retryAfterMs wait as asked and are not fatal', async () => {
  const clock = fakeClock();
  const s = script([new RpcResponseError(-32029, 'slow down', { retryAfterMs: 700 }, 'tasks/get'), snap('completed', { result: { content: [], isError: true } })]);
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep });
  assert.equal(end.kind, 'terminal');
  assert.equal(exitCodeForEnd(end), 4);
  assert.ok(clock.sleeps.includes(1000), 'waits at least the normal interval after a rate-limit error');
});

test('the rate-limit codes back off even without retryAfterMs: -31429 (demo) and the old -32029', async () => {
  for (const code of [-31429, -32029]) {
    const clock = fakeClock();
    const s = script([new RpcResponseError(code, 'slow down', undefined, 'tasks/get'), snap('completed', { result: { content: [] } })]);
    const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep });
    assert.equal(end.kind, 'terminal', `code ${code}`);
    assert.equal(s.calls.length, 2, `code ${code}: one retry`);
  }
  // Any other error without retryAfterMs is not a back-off.
  const clock = fakeClock();
  const s = script([new RpcResponseError(-32603, 'boom', undefined, 'tasks/get')]);
  await assert.rejects(pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep }), RpcResponseError);
});

test('other errors (auth) propagate instead of being retried', async () => {
  const clock = fakeClock();
  const s = script([new AuthRefusedError(401, 'no')]);
  await assert.rejects(pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep }), AuthRefusedError);
});

test('--timeout ends with timeout (124) and keeps the last snapshot', async () => {
  const clock = fakeClock();
  const s = script([snap('working', { pollIntervalMs: 400 })]);
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep, timeoutMs: 1000 });
  assert.equal(end.kind, 'timeout');
  assert.equal(exitCodeForEnd(end), 124);
  assert.equal(end.snapshot?.status, 'working');
  assert.ok(clock.now() - 1_000_000 <= 1000);
});

test('an aborted signal ends as interrupted (130)', async () => {
  const clock = fakeClock();
  const ac = new AbortController();
  const s = script([snap('working', { pollIntervalMs: 100 })]);
  let n = 0;
  const end = await pollUntil({
    taskId: 't1',
    get: async (id) => {
      if (++n === 3) ac.abort();
      return s.get(id, clock);
    },
    now: clock.now,
    sleep: clock.sleep,
    signal: ac.signal,
  });
  assert.equal(end.kind, 'interrupted');
  assert.equal(exitCodeForEnd(end), 130);
});

test('input_required: without a handler ends needs-input (5); with one, each key set is answered once', async () => {
  const clock = fakeClock();
  const ir = (keys: string[]) => snap('input_required', { inputRequests: Object.fromEntries(keys.map((k) => [k, { method: 'elicitation/create', params: {} }])) });
  const plain = script([ir(['a'])]);
  const end1 = await pollUntil({ taskId: 't1', get: (id) => plain.get(id, clock), now: clock.now, sleep: clock.sleep });
  assert.equal(end1.kind, 'needs-input');
  assert.equal(exitCodeForEnd(end1), 5);

  // The server is slow to drop answered keys: {a,b} is listed twice, then {b}, then done.
  const s = script([ir(['a', 'b']), ir(['a', 'b']), ir(['b']), snap('completed', { result: { content: [] } })]);
  const rounds: string[][] = [];
  const end2 = await pollUntil({
    taskId: 't1',
    get: (id) => s.get(id, clock),
    now: clock.now,
    sleep: clock.sleep,
    onInputRequired: async (x) => {
      rounds.push(Object.keys(x.inputRequests ?? {}));
      return 'answered';
    },
  });
  assert.equal(end2.kind, 'terminal');
  assert.deepEqual(rounds, [['a', 'b'], ['b']]);

  // A server that moves on and then lists the same key again: the handler hears of it once per
  // return (so it can say the key was answered before), not once per poll.
  const again = script([ir(['a']), ir(['a']), snap('working'), ir(['a']), ir(['a']), snap('completed', { result: { content: [] } })]);
  const seen: number[] = [];
  const end3 = await pollUntil({
    taskId: 't1',
    get: (id) => again.get(id, clock),
    now: clock.now,
    sleep: clock.sleep,
    onInputRequired: async () => {
      seen.push(again.calls.length);
      return 'answered';
    },
  });
  assert.equal(end3.kind, 'terminal');
  assert.deepEqual(seen, [1, 4]);
});

test('a server that keeps listing a handled key: the notice after one period, the end after another (exit 5, relisted)', async () => {
  const clock = fakeClock();
  const ir = snap('input_required', { pollIntervalMs: 1000, ttlMs: null, inputRequests: { a: { method: 'elicitation/create', params: {} } } });
  const s = script([ir]);
  const stuck: number[] = [];
  let handled = 0;
  const start = clock.now();
  const end = await pollUntil({
    taskId: 't1',
    get: (id) => s.get(id, clock),
    now: clock.now,
    sleep: clock.sleep,
    timeoutMs: 600_000,
    inputStuckAfterMs: 10_000,
    onInputRequired: async () => {
      handled++;
      return 'answered';
    },
    onInputStuck: (_s, forMs) => stuck.push(forMs),
  });
  assert.equal(end.kind, 'needs-input');
  assert.deepEqual(end.kind === 'needs-input' ? end.relisted : undefined, ['a']);
  assert.equal(exitCodeForEnd(end), 5);
  assert.equal(handled, 1, 'the key is handled once, never answered again');
  assert.deepEqual(stuck, [10_000]);
  assert.ok(clock.now() - start >= 20_000, 'not before the notice and another equal period');
});

test('re-listed keys: a person may keep waiting (another period) or answer again', async () => {
  const clock = fakeClock();
  const ir = snap('input_required', { pollIntervalMs: 1000, ttlMs: null, inputRequests: { a: { method: 'elicitation/create', params: {} } } });
  const s = script([ir]);
  const asked: number[] = [];
  const end = await pollUntil({
    taskId: 't1',
    get: (id) => s.get(id, clock),
    now: clock.now,
    sleep: clock.sleep,
    timeoutMs: 45_000,
    inputStuckAfterMs: 10_000,
    onInputRequired: async () => 'answered',
    onInputRelisted: async () => {
      asked.push(clock.now());
      return 'wait';
    },
  });
  assert.equal(end.kind, 'timeout', 'waiting was chosen, so only --timeout ends it');
  assert.equal(asked.length, 2, 'asked again after each further period');
  assert.ok(asked[1]! - asked[0]! >= 20_000);
});

test('stuckVerdict and relistedKeys', () => {
  assert.equal(stuckVerdict(0, 9_999, 10_000, undefined), 'wait');
  assert.equal(stuckVerdict(0, 10_000, 10_000, undefined), 'notice');
  assert.equal(stuckVerdict(0, 15_000, 10_000, 10_000), 'wait');
  assert.equal(stuckVerdict(0, 20_000, 10_000, 10_000), 'give-up');
  // One slow poll spanning both periods (a loaded machine): the notice still comes first.
  assert.equal(stuckVerdict(0, 25_000, 10_000, undefined), 'notice');
  assert.equal(stuckVerdict(0, 26_000, 10_000, 25_000), 'wait');
  assert.deepEqual(relistedKeys(['a', 'b'], ['a', 'b', 'c']), ['a', 'b']);
  assert.deepEqual(relistedKeys(['a', 'new'], ['a']), [], 'something new to answer');
  assert.deepEqual(relistedKeys([], ['a']), []);
});

test('a long pollIntervalMs is honoured (no 60 s cap), up to the remaining ttlMs; -v hears of the cap once', async () => {
  const created = 1_000_000;
  assert.equal(pollDelay(snap('working', { pollIntervalMs: 120_000, ttlMs: null }), DEFAULT_POLL_INTERVAL_MS, created), 120_000);
  assert.equal(pollDelay(snap('working', { pollIntervalMs: 120_000, ttlMs: 600_000 }), DEFAULT_POLL_INTERVAL_MS, created + 10_000), 120_000);
  const clamps: unknown[] = [];
  assert.equal(pollDelay(snap('working', { pollIntervalMs: 120_000, ttlMs: 100_000 }), DEFAULT_POLL_INTERVAL_MS, created + 10_000, (c) => clamps.push(c)), 90_000);
  assert.deepEqual(clamps, [{ askedMs: 120_000, usedMs: 90_000, why: 'ttl' }]);

  const clock = fakeClock();
  const s = script([snap('working', { pollIntervalMs: 90_000, ttlMs: null }), snap('working', { pollIntervalMs: 90_000, ttlMs: null }), snap('completed', { ttlMs: null })]);
  const reported: unknown[] = [];
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep, onClamp: (c) => reported.push(c) });
  assert.equal(end.kind, 'terminal');
  assert.deepEqual(clock.sleeps, [90_000, 90_000]);
  assert.deepEqual(reported, [], 'nothing clamped');
});

test('HTTP 429: the wait is what Retry-After says, and it is not counted as a transport failure', async () => {
  const clock = fakeClock();
  const limited = () => new RateLimitedError(7_000, 'rate-limited');
  const s = script([snap('working', { pollIntervalMs: 500 }), limited(), limited(), limited(), limited(), limited(), limited(), snap('completed')]);
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep, retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 10 } });
  assert.equal(end.kind, 'terminal', 'six 429s in a row do not exhaust the two transport retries');
  assert.deepEqual(clock.sleeps, [500, 7_000, 7_000, 7_000, 7_000, 7_000, 7_000]);
});

test('parseRetryAfter: delay-seconds, an HTTP-date, and nothing else', () => {
  const now = Date.parse('Tue, 01 Dec 2026 10:00:00 GMT');
  assert.equal(parseRetryAfter('120', now), 120_000);
  assert.equal(parseRetryAfter('Tue, 01 Dec 2026 10:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Tue, 01 Dec 2026 09:00:00 GMT', now), 0, 'a past date: ask now');
  for (const bad of ['soon', '-5', '1.5', '', '2026-12-01T10:00:30Z']) assert.equal(parseRetryAfter(bad, now), undefined, bad);
});

test('throughInput (cancel --wait): input_required is not an end; the poll goes on to the terminal state or the timeout', async () => {
  const clock = fakeClock();
  const asking = snap('input_required', { pollIntervalMs: 200, inputRequests: { confirm: { method: 'elicitation/create' } } });
  const s = script([asking, asking, snap('cancelled')]);
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep, throughInput: true });
  assert.equal(end.kind, 'terminal');
  assert.equal(end.snapshot?.status, 'cancelled');
  assert.equal(s.calls.length, 3);

  const stuck = script([asking]);
  const clock2 = fakeClock();
  const timedOut = await pollUntil({ taskId: 't1', get: (id) => stuck.get(id, clock2), now: clock2.now, sleep: clock2.sleep, throughInput: true, timeoutMs: 1000 });
  assert.equal(timedOut.kind, 'timeout');
  assert.equal(timedOut.snapshot?.status, 'input_required');
  // Without it, the first input_required ends the poll (needs-input), as before.
  const plain = await pollUntil({ taskId: 't1', get: (id) => script([asking]).get(id, clock), now: clock.now, sleep: clock.sleep });
  assert.equal(plain.kind, 'needs-input');
});

test('a one-off look calls relisted keys stuck only long after the answer, never without its time', () => {
  assert.equal(stuckSinceAnswer(0, 1000, 15_000), false, 'one second after the answer: no evidence');
  assert.equal(stuckSinceAnswer(0, 29_999, 15_000), false);
  assert.equal(stuckSinceAnswer(0, 30_000, 15_000), true, 'the notice period and the one after it');
  assert.equal(stuckSinceAnswer(undefined, 10 ** 12, 15_000), false, 'no answer time recorded');
  assert.equal(stuckSinceAnswer(Number.NaN, 10 ** 12, 15_000), false);
});

