// Concurrent requests under one signal share one abort listener (list --refresh polled every
// active task at once, each request adding its own: past 10, MaxListenersExceededWarning).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { abortFanout } from '../../../src/connection/abort-fanout.js';

test('fifty waiters on one signal: one listener; each is told on abort; none is left behind', () => {
  const watch = abortFanout();
  const ac = new AbortController();
  const told: number[] = [];
  const unwatch = Array.from({ length: 50 }, (_, i) => watch(ac.signal, () => told.push(i)));
  assert.equal(getEventListeners(ac.signal, 'abort').length, 1);
  unwatch[0]!();
  unwatch[0]!();
  ac.abort();
  assert.equal(told.length, 49, 'an unwatched waiter is not told');
  for (const u of unwatch) u();
  assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
});

test('when every waiter is done the listener goes; a later waiter gets a new one', () => {
  const watch = abortFanout();
  const ac = new AbortController();
  const a = watch(ac.signal, () => {});
  const b = watch(ac.signal, () => {});
  a();
  assert.equal(getEventListeners(ac.signal, 'abort').length, 1);
  b();
  assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
  let told = false;
  const c = watch(ac.signal, () => (told = true));
  a(); // a stale unwatch does not remove the new listener
  assert.equal(getEventListeners(ac.signal, 'abort').length, 1);
  ac.abort();
  assert.ok(told);
  c();
  assert.doesNotThrow(() => watch(undefined, () => {})());
});
