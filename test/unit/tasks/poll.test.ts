// pollUntil with an injected clock and sleep: no real time passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil, pollDelay, MIN_POLL_INTERVAL_MS, DEFAULT_POLL_INTERVAL_MS } from '../../../src/tasks/poll.js';
import { RpcResponseError, TransportError, AuthRefusedError } from '../../../src/protocol/remote-errors.js';
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

test('TTL elapsed while unreachable → lost', async () => {
  const clock = fakeClock();
  const s = script([new TransportError('down')]);
  const initial = snap('working', { ttlMs: 500, pollIntervalMs: 1000 });
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep, initial, retry: { attempts: 10, baseDelayMs: 100, maxDelayMs: 100 } });
  assert.equal(end.kind, 'lost');
});

test('rate-limit errors with retryAfterMs wait as asked and are not fatal', async () => {
  const clock = fakeClock();
  const s = script([new RpcResponseError(-32029, 'slow down', { retryAfterMs: 700 }, 'tasks/get'), snap('completed', { result: { content: [], isError: true } })]);
  const end = await pollUntil({ taskId: 't1', get: (id) => s.get(id, clock), now: clock.now, sleep: clock.sleep });
  assert.equal(end.kind, 'terminal');
  assert.equal(exitCodeForEnd(end), 4);
  assert.ok(clock.sleeps.includes(1000), 'waits at least the normal interval after a rate-limit error');
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

test('a server that keeps listing a handled key: onInputStuck is called once, after inputStuckAfterMs', async () => {
  const clock = fakeClock();
  const ir = snap('input_required', { pollIntervalMs: 1000, inputRequests: { a: { method: 'elicitation/create', params: {} } } });
  const s = script([ir]);
  const stuck: number[] = [];
  let handled = 0;
  const end = await pollUntil({
    taskId: 't1',
    get: (id) => s.get(id, clock),
    now: clock.now,
    sleep: clock.sleep,
    timeoutMs: 60_000,
    inputStuckAfterMs: 10_000,
    onInputRequired: async () => {
      handled++;
      return 'answered';
    },
    onInputStuck: (_s, forMs) => stuck.push(forMs),
  });
  assert.equal(end.kind, 'timeout', 'it keeps waiting: the server may still take the answer in');
  assert.equal(handled, 1, 'the key is handled once, never answered again');
  assert.deepEqual(stuck, [10_000]);
});
