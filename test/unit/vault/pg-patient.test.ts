// The team store's timeouts count the time this process could run (src/vault/postgres/pg-patient.ts):
// a stall of the event loop longer than the whole timeout does not end the wait, a silent wait does.
// No bound on how soon: only what has or has not expired at a moment the test makes itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { patientTimer } from '../../../src/vault/postgres/pg-patient.js';

const stall = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* the process gets no CPU */ }
};

test('a stall longer than the timeout does not end the wait; waiting while the process runs does', async () => {
  let expired = false;
  const stop = patientTimer(1000, () => (expired = true));
  try {
    stall(2500);
    // The turn after the stall, where a plain timer would already have fired before the I/O it guards.
    await nextTurn();
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(expired, false, 'the stall counted as two ticks at most');
    while (!expired) await new Promise((r) => setTimeout(r, 50));
  } finally {
    stop();
  }
});

test('stopped before it expires, it never calls back', async () => {
  let expired = false;
  const stop = patientTimer(150, () => (expired = true));
  stop();
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(expired, false);
});
