// TaskEngine timelines, driven by an injected clock on a real temp store: every status change
// happens at exactly the documented moment, and cancel / update / TTL / idempotency behave as
// the 2026-07-28 tasks extension asks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CancelTaskResultV2Schema,
  ContentBlockV2Schema,
  ErrorV2Schema,
  InputRequestsV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { DEFAULT_TTL_MS, TaskEngine, NO_FAULTS } from '../../../src/demo/task-engine.js';
import { FileTaskStore } from '../../../src/demo/task-store.js';
import { assertSchema, readStore } from '../../helpers/demo-server.js';
import { engineFixture, iso, rejectsRpc, T0, tool } from '../../helpers/demo-engine.js';

const ACCEPT = (content: Record<string, unknown>) => ({ action: 'accept', content });

test('slow_compute: working until exactly `seconds`, then completed with its result', async (t) => {
  const fx = engineFixture(t);
  const created = fx.create('slow_compute', { seconds: 3 });
  assert.equal(created.resultType, 'task');
  assert.equal(created.status, 'working');
  assert.equal(created.createdAt, iso(0));
  assert.equal(created.lastUpdatedAt, iso(0));
  assert.equal(created.ttlMs, DEFAULT_TTL_MS);
  assert.equal(created.pollIntervalMs, 500);
  assert.equal(created.statusMessage, 'Computing slow_compute (3s)');
  for (const k of ['result', 'error', 'inputRequests', 'task', 'requestState']) assert.ok(!(k in created), `${k} in CreateTaskResult`);

  const before = await fx.getAt(created.taskId, 2999);
  assert.equal(before.resultType, 'complete');
  assert.equal(before.status, 'working');
  assert.equal(before.lastUpdatedAt, iso(0));
  assert.ok(!('result' in before) && !('error' in before));

  const done = await fx.getAt(created.taskId, 3000);
  assert.equal(done.status, 'completed');
  assert.equal(done.taskId, created.taskId);
  assert.equal(done.createdAt, iso(0));
  assert.equal(done.lastUpdatedAt, iso(3000));
  // The inlined result says what it is (the official ext-tasks decoder requires it).
  assert.deepEqual(done.result, {
    resultType: 'complete',
    content: [{ type: 'text', text: 'Computed slow_compute after 3 second(s)' }],
    structuredContent: { seconds: 3, label: 'slow_compute' },
  });
  assert.ok(!('error' in done));

  // Terminal is terminal: much later, the same answer and the same lastUpdatedAt.
  const later = await fx.getAt(created.taskId, 50_000);
  assert.deepEqual(later, done);
});

test('slow_compute: the label shows in the status message and the result', async (t) => {
  const fx = engineFixture(t);
  const created = fx.create('slow_compute', { seconds: 0.5, label: 'alpha' });
  assert.equal(created.statusMessage, 'Computing alpha (0.5s)');
  const done = await fx.getAt(created.taskId, 500);
  assert.equal(done.status, 'completed');
  assert.equal(done.result.content[0].text, 'Computed alpha after 0.5 second(s)');
});

test('failing_job: completes (not failed) with isError: true after 1 s', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('failing_job');
  assert.equal((await fx.getAt(taskId, 999)).status, 'working');
  const done = await fx.getAt(taskId, 1000);
  assert.equal(done.status, 'completed');
  assert.equal(done.result.isError, true);
  assert.deepEqual(done.result.content, [{ type: 'text', text: 'The job failed: simulated tool error' }]);
  assert.ok(!('error' in done), 'a tool error is a result, not a JSON-RPC error');
});

test('protocol_error_job: ends failed with a JSON-RPC error and no result', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('protocol_error_job');
  const working = await fx.getAt(taskId, 499);
  assert.equal(working.status, 'working');
  assert.equal(working.statusMessage, 'Running a job that will hit a protocol error');
  const failed = await fx.getAt(taskId, 500);
  assert.equal(failed.status, 'failed');
  assertSchema(ErrorV2Schema, failed.error, 'error');
  assert.equal(failed.error.code, -32603);
  assert.match(failed.error.message, /simulated protocol failure/);
  assert.ok(!('result' in failed), 'a failed task carries no result');
  assert.equal(failed.lastUpdatedAt, iso(500));
});

test('confirm_delete: input_required until answered (however long), then completed 200 ms after the answer', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('confirm_delete', { filename: 'a.txt' });
  const asking = await fx.getAt(taskId, 0);
  assert.equal(asking.status, 'input_required');
  assert.equal(asking.statusMessage, 'Waiting for confirmation');
  assertSchema(InputRequestsV2Schema, asking.inputRequests, 'inputRequests');
  assert.deepEqual(Object.keys(asking.inputRequests), ['confirm']);
  const req = asking.inputRequests.confirm;
  assert.equal(req.method, 'elicitation/create');
  assert.equal(req.params.mode, 'form');
  assert.equal(req.params.message, 'Delete a.txt?');
  assert.deepEqual(req.params.requestedSchema.required, ['confirm']);
  assert.equal(req.params.requestedSchema.properties.confirm.type, 'boolean');

  // Nobody answers for an hour minus a minute: still waiting, nothing invented.
  const stillAsking = await fx.getAt(taskId, 59 * 60_000);
  assert.equal(stillAsking.status, 'input_required');
  assert.equal(stillAsking.lastUpdatedAt, iso(0));

  fx.at(59 * 60_000);
  const ack = fx.engine.update({ taskId, inputResponses: { confirm: ACCEPT({ confirm: true }) } });
  assertSchema(UpdateTaskResultV2Schema, ack, 'tasks/update result');
  assert.deepEqual(ack, { resultType: 'complete' });

  const finishing = await fx.getAt(taskId, 59 * 60_000 + 199);
  assert.equal(finishing.status, 'working');
  assert.equal(finishing.statusMessage, 'Input received, finishing');
  assert.ok(!('inputRequests' in finishing));
  const done = await fx.getAt(taskId, 59 * 60_000 + 200);
  assert.equal(done.status, 'completed');
  assert.equal(done.lastUpdatedAt, iso(59 * 60_000 + 200));
  assert.deepEqual(done.result.content, [{ type: 'text', text: 'Deleted a.txt' }]);
});

test('confirm_delete: a declined confirmation completes without deleting', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('confirm_delete', { filename: 'keep.txt' });
  fx.engine.update({ taskId, inputResponses: { confirm: { action: 'decline' } } });
  const done = await fx.getAt(taskId, 200);
  assert.equal(done.status, 'completed');
  assert.equal(done.result.content[0].text, 'Deletion of keep.txt not confirmed (decline); nothing was deleted');
  assert.notEqual(done.result.isError, true);
});

test('multi_input: a partial answer keeps the other key pending; re-answers and unknown keys are ignored', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('multi_input');
  const first = await fx.getAt(taskId, 10);
  assert.equal(first.status, 'input_required');
  assert.deepEqual(Object.keys(first.inputRequests).sort(), ['color', 'name']);
  assertSchema(InputRequestsV2Schema, first.inputRequests, 'inputRequests');

  fx.at(100);
  fx.engine.update({ taskId, inputResponses: { name: ACCEPT({ name: 'Ada' }), shoe: ACCEPT({ size: 42 }) } });
  const partial = await fx.getAt(taskId, 150);
  assert.equal(partial.status, 'input_required');
  assert.deepEqual(Object.keys(partial.inputRequests), ['color'], 'only the unanswered key is still asked');
  assert.deepEqual(partial.inputRequests.color, first.inputRequests.color, 'the pending request is unchanged');
  assert.equal(partial.lastUpdatedAt, iso(100), 'the partial answer is a change');

  // A second answer to `name` and an answer to a key never asked are both ignored.
  fx.at(200);
  fx.engine.update({ taskId, inputResponses: { name: ACCEPT({ name: 'Eve' }), bogus: ACCEPT({}) } });
  const stored = fx.store.get(taskId)!;
  assert.deepEqual(Object.keys(stored.answers).sort(), ['name']);
  assert.deepEqual(stored.answers.name, ACCEPT({ name: 'Ada' }));
  assert.equal(stored.answeredAtMs.name, T0 + 100);
  assert.equal((await fx.getAt(taskId, 250)).status, 'input_required');

  fx.at(300);
  fx.engine.update({ taskId, inputResponses: { color: ACCEPT({ color: 'green' }) } });
  assert.equal((await fx.getAt(taskId, 499)).status, 'working');
  const done = await fx.getAt(taskId, 500);
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.result.structuredContent, { name: 'Ada', color: 'green' }, 'the first answer to name won');
  assert.equal(done.result.content[0].text, 'Got name=Ada color=green');
});

test('generate_report: statusMessage and pollIntervalMs change by stage (250 → 500 → 1000 ms)', async (t) => {
  const fx = engineFixture(t);
  const created = fx.create('generate_report', { title: 'Q3', seconds: 4 });
  assert.equal(created.statusMessage, 'Collecting data (Q3)');
  assert.equal(created.pollIntervalMs, 250);
  const expect: Array<[number, string, number, number]> = [
    // offset, statusMessage, pollIntervalMs, lastUpdatedAt offset
    [999, 'Collecting data (Q3)', 250, 0],
    [1000, 'Rendering charts (Q3)', 500, 1000],
    [2399, 'Rendering charts (Q3)', 500, 1000],
    [2400, 'Writing PDF (Q3)', 1000, 2400],
    [3999, 'Writing PDF (Q3)', 1000, 2400],
  ];
  for (const [offset, msg, poll, changed] of expect) {
    const r = await fx.getAt(created.taskId, offset);
    assert.equal(r.status, 'working', `at +${offset}`);
    assert.equal(r.statusMessage, msg, `at +${offset}`);
    assert.equal(r.pollIntervalMs, poll, `at +${offset}`);
    assert.equal(r.lastUpdatedAt, iso(changed), `at +${offset}`);
  }
  const done = await fx.getAt(created.taskId, 4000);
  assert.equal(done.status, 'completed');
  assert.equal(done.pollIntervalMs, 1000);
  assert.equal(done.lastUpdatedAt, iso(4000));
  assert.deepEqual(done.result.structuredContent, { title: 'Q3', pages: 12 });
  for (const block of done.result.content) assertSchema(ContentBlockV2Schema, block, 'content block');
  assert.equal(done.result.content[0].text, 'Report "Q3" is ready: 12 pages');
  const link = done.result.content[1];
  assert.equal(link.type, 'resource_link');
  assert.equal(link.name, 'report.pdf');
  assert.equal(link.mimeType, 'application/pdf');
  assert.match(link.uri, /^demo:\/\/reports\/[0-9a-f]{12}\.pdf$/);
  // The link is a public reference: no part of the bearer taskId leaks into it.
  assert.ok(!link.uri.includes(created.taskId.slice(0, 6)), 'the uri reveals the taskId');
  assert.deepEqual((await fx.getAt(created.taskId, 9000)).result, done.result, 'stable across polls');
});

test('generate_report: defaults to a 4 s "Quarterly report"', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('generate_report');
  assert.equal((await fx.getAt(taskId, 3999)).status, 'working');
  const done = await fx.getAt(taskId, 4000);
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.result.structuredContent, { title: 'Quarterly report', pages: 12 });
});

test('send_payment: a cancel during the first second ends it cancelled, with no payment', async (t) => {
  const fx = engineFixture(t);
  const created = fx.create('send_payment', { to: 'bob', amount: 10 });
  assert.equal(created.statusMessage, 'Authorizing payment');
  fx.at(999);
  const ack = fx.engine.cancel({ taskId: created.taskId });
  assertSchema(CancelTaskResultV2Schema, ack, 'tasks/cancel result');
  assert.deepEqual(ack, { resultType: 'complete' });
  assert.equal(fx.store.get(created.taskId)!.cancelRequestedAtMs, T0 + 999);

  const cancelled = await fx.getAt(created.taskId, 999);
  assert.equal(cancelled.status, 'cancelled');
  assert.equal(cancelled.lastUpdatedAt, iso(999));
  assert.equal(cancelled.statusMessage, "Cancelled at the client's request");
  // Past the moment it would have settled: still cancelled, never paid.
  const later = await fx.getAt(created.taskId, 10_000);
  assert.equal(later.status, 'cancelled');
  assert.ok(!('result' in later) && !('error' in later));
});

test('send_payment: a cancel after the commit point is acknowledged, yet the task completes (paid)', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('send_payment', { to: 'bob', amount: 10, currency: 'USD' });
  const settling = await fx.getAt(taskId, 1000);
  assert.equal(settling.statusMessage, 'Settling payment');
  assert.deepEqual(fx.engine.cancel({ taskId }), { resultType: 'complete' });
  const after = await fx.getAt(taskId, 1500);
  assert.equal(after.status, 'working', 'a cancel at the commit point is too late');
  const done = await fx.getAt(taskId, 2000);
  assert.equal(done.status, 'completed');
  const { paymentId, ...payment } = done.result.structuredContent;
  assert.deepEqual(payment, { amount: 10, currency: 'USD', to: 'bob' });
  assert.match(paymentId, /^pay_[0-9a-f]{12}$/);
  assert.ok(!paymentId.includes(taskId.slice(0, 6)), 'the receipt reveals the taskId');
  assert.equal(done.result.content[0].text, 'Paid 10 USD to bob');
});

test('tasks/cancel: cancels slow_compute; repeated and terminal cancels are idempotent acks', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('slow_compute', { seconds: 2 });
  fx.at(300);
  fx.engine.cancel({ taskId });
  fx.at(700);
  assert.deepEqual(fx.engine.cancel({ taskId }), { resultType: 'complete' });
  const r = await fx.getAt(taskId, 5000);
  assert.equal(r.status, 'cancelled');
  assert.equal(r.lastUpdatedAt, iso(300), 'the first cancel request is the one that counts');

  // Cancelling a task that already completed changes nothing.
  const other = fx.create('slow_compute', { seconds: 1 });
  fx.at(6000);
  assert.deepEqual(fx.engine.cancel({ taskId: other.taskId }), { resultType: 'complete' });
  assert.equal(fx.store.get(other.taskId)!.cancelRequestedAtMs, undefined);
  assert.equal((await fx.getAt(other.taskId, 6000)).status, 'completed');
});

test('tasks/cancel on an input_required task: cancelled, and a later answer is ignored', async (t) => {
  const fx = engineFixture(t);
  const { taskId } = fx.create('confirm_delete', { filename: 'x' });
  fx.at(100);
  fx.engine.cancel({ taskId });
  fx.at(200);
  fx.engine.update({ taskId, inputResponses: { confirm: ACCEPT({ confirm: true }) } });
  assert.deepEqual(fx.store.get(taskId)!.answers, {});
  const r = await fx.getAt(taskId, 10_000);
  assert.equal(r.status, 'cancelled');
  assert.ok(!('inputRequests' in r));
});

test('TTL: a task answers up to createdAt + ttlMs, then get/update/cancel say -32602', async (t) => {
  const fx = engineFixture(t, { ttlMs: 5000 });
  const created = fx.create('confirm_delete', { filename: 'x' });
  assert.equal(created.ttlMs, 5000);
  assert.equal((await fx.getAt(created.taskId, 5000)).status, 'input_required');
  fx.at(5001);
  const err = await rejectsRpc(() => fx.engine.get({ taskId: created.taskId }), -32602);
  assert.match(err.message, /not found or expired/);
  await rejectsRpc(() => fx.engine.update({ taskId: created.taskId, inputResponses: { confirm: ACCEPT({ confirm: true }) } }), -32602);
  await rejectsRpc(() => fx.engine.cancel({ taskId: created.taskId }), -32602);
});

test('TTL: expired tasks stay on disk for a grace period, then are pruned on the next write', async (t) => {
  const fx = engineFixture(t, { ttlMs: 1000 });
  const old = fx.create('slow_compute', { seconds: 0 });
  fx.at(2000);
  fx.create('slow_compute', { seconds: 0 });
  assert.ok(fx.store.get(old.taskId), 'kept on disk within the grace period');
  await rejectsRpc(() => fx.engine.get({ taskId: old.taskId }), -32602);
  assert.equal(Object.keys(readStore(fx.path).tasks).length, 2);
  fx.at(1000 + 24 * 60 * 60 * 1000 + 1);
  const fresh = fx.create('slow_compute', { seconds: 0 });
  assert.equal(fx.store.get(old.taskId), undefined, 'pruned after the grace period');
  assert.ok(fx.store.get(fresh.taskId));
  assert.equal(Object.keys(readStore(fx.path).tasks).length, 2, 'the old one went, the fresh one came');
});

test('unknown, empty or non-string taskIds are -32602; malformed inputResponses are -32602', async (t) => {
  const fx = engineFixture(t);
  await rejectsRpc(() => fx.engine.get({ taskId: 'no-such-task' }), -32602);
  await rejectsRpc(() => fx.engine.get({ taskId: '' }), -32602);
  await rejectsRpc(() => fx.engine.get({ taskId: 42 }), -32602);
  await rejectsRpc(() => fx.engine.get({}), -32602);
  // Prototype keys are not tasks.
  await rejectsRpc(() => fx.engine.get({ taskId: '__proto__' }), -32602);
  await rejectsRpc(() => fx.engine.get({ taskId: 'constructor' }), -32602);
  await rejectsRpc(() => fx.engine.cancel({ taskId: 'no-such-task' }), -32602);
  const { taskId } = fx.create('multi_input');
  await rejectsRpc(() => fx.engine.update({ taskId }), -32602);
  await rejectsRpc(() => fx.engine.update({ taskId, inputResponses: [ACCEPT({ name: 'x' })] }), -32602);
  await rejectsRpc(() => fx.engine.update({ taskId, inputResponses: 'yes' }), -32602);
  await rejectsRpc(() => fx.engine.update({ taskId: 'no-such-task', inputResponses: {} }), -32602);
  assert.deepEqual(fx.store.get(taskId)!.answers, {}, 'rejected updates changed nothing');
});

test('task ids: ≥128 bits, URL-safe, never beginning with "-", random and distinct', async (t) => {
  const fx = engineFixture(t);
  const ids = Array.from({ length: 2000 }, () => fx.engine.newTaskId());
  assert.equal(new Set(ids).size, ids.length, 'no duplicates');
  const bitOnes = new Array<number>(128).fill(0);
  for (const id of ids) {
    assert.match(id, /^[A-Za-z0-9_][A-Za-z0-9_-]+$/, 'URL-safe, and never read as an option on a command line');
    const bytes = Buffer.from(id, 'base64url');
    assert.ok(bytes.length * 8 >= 128, `${id} carries only ${bytes.length * 8} bits`);
    for (let b = 0; b < 128; b++) if ((bytes[b >> 3]! >> (b & 7)) & 1) bitOnes[b]!++;
  }
  // Every one of the first 128 bits varies like a coin flip (a counter or timestamp would not).
  for (let b = 0; b < 128; b++) assert.ok(bitOnes[b]! > 800 && bitOnes[b]! < 1200, `bit ${b} set in ${bitOnes[b]} of 2000 ids`);
  // Created tasks use the same generator.
  const a = fx.create('slow_compute', { seconds: 1 }).taskId;
  const b = fx.create('slow_compute', { seconds: 1 }).taskId;
  assert.notEqual(a, b);
  assert.ok(Buffer.from(a, 'base64url').length >= 16);
});

test('idempotency key: a repeat returns the same task and stores nothing new', async (t) => {
  const fx = engineFixture(t);
  const first = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 }, { idempotencyKey: 'op-1' });
  assert.equal(first.created, true);
  fx.at(1500);
  const again = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 }, { idempotencyKey: 'op-1' });
  assert.equal(again.created, false);
  assert.equal(again.result.taskId, first.result.taskId);
  assert.equal(again.result.createdAt, iso(0), 'the original task, not a new one');
  assert.equal(again.result.statusMessage, 'Settling payment', 'rendered at the time of the repeat');
  assert.equal(Object.keys(readStore(fx.path).tasks).length, 1);

  // Another key, or the same key on another tool, is another operation.
  const other = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 }, { idempotencyKey: 'op-2' });
  assert.equal(other.created, true);
  assert.notEqual(other.result.taskId, first.result.taskId);
  const otherTool = fx.engine.create(tool('slow_compute'), { seconds: 1 }, { idempotencyKey: 'op-1' });
  assert.equal(otherTool.created, true);
  // Without a key, every call is a new task.
  const k1 = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 });
  const k2 = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 });
  assert.notEqual(k1.result.taskId, k2.result.taskId);
  assert.equal(Object.keys(readStore(fx.path).tasks).length, 5);
});

test('idempotency key: still deduplicated after the task was cancelled or answered (no double payment)', async (t) => {
  const fx = engineFixture(t);
  const pay = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 }, { idempotencyKey: 'pay-once' });
  fx.at(1500);
  fx.engine.cancel({ taskId: pay.result.taskId }); // too late to stop it, but it writes the task
  const repeat = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 }, { idempotencyKey: 'pay-once' });
  assert.equal(repeat.result.taskId, pay.result.taskId, 'a second payment was created for the same key');
  assert.equal(repeat.created, false);

  const del = fx.engine.create(tool('confirm_delete'), { filename: 'f' }, { idempotencyKey: 'del-once' });
  fx.engine.update({ taskId: del.result.taskId, inputResponses: { confirm: ACCEPT({ confirm: true }) } });
  assert.equal(fx.engine.create(tool('confirm_delete'), { filename: 'f' }, { idempotencyKey: 'del-once' }).result.taskId, del.result.taskId);
});

test('idempotency key: a repeat after the original expired never hands back a dead handle', async (t) => {
  const fx = engineFixture(t, { ttlMs: 1000 });
  const first = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 }, { idempotencyKey: 'op-x' });
  fx.at(1000);
  const within = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 }, { idempotencyKey: 'op-x' });
  assert.equal(within.result.taskId, first.result.taskId, 'still alive at createdAt + ttlMs');
  fx.at(5000);
  const repeat = fx.engine.create(tool('send_payment'), { to: 'bob', amount: 10 }, { idempotencyKey: 'op-x' });
  // A CreateTaskResult must not be returned before tasks/get on that id works.
  assert.equal(repeat.created, true);
  assert.notEqual(repeat.result.taskId, first.result.taskId);
  const r = await fx.engine.get({ taskId: repeat.result.taskId as string });
  assert.equal(r.status, 'working');
  await rejectsRpc(() => fx.engine.get({ taskId: first.result.taskId }), -32602);
});

test('rate-limit fault: a get sooner than 80 % of pollIntervalMs is -31429 (outside the reserved ranges) with retryAfterMs', async (t) => {
  const fx = engineFixture(t, { rateLimit: true });
  const { taskId } = fx.create('slow_compute', { seconds: 10 });
  await fx.getAt(taskId, 0);
  fx.at(100);
  const err = await rejectsRpc(() => fx.engine.get({ taskId }), -31429);
  assert.deepEqual(err.data, { retryAfterMs: 400 });
  fx.at(399);
  assert.deepEqual((await rejectsRpc(() => fx.engine.get({ taskId }), -31429)).data, { retryAfterMs: 101 });
  // 80 % of 500 ms after the last successful poll (rejected polls do not move the window).
  assert.equal((await fx.getAt(taskId, 400)).status, 'working');
  await rejectsRpc(() => fx.engine.get({ taskId }), -31429);
  assert.equal((await fx.getAt(taskId, 900)).status, 'working');
  // Per task: another task is polled independently.
  const other = fx.create('slow_compute', { seconds: 10 });
  assert.equal((await fx.getAt(other.taskId, 900)).status, 'working');
});

test('rate-limit fault follows the changing pollIntervalMs (generate_report)', async (t) => {
  const fx = engineFixture(t, { rateLimit: true });
  const { taskId } = fx.create('generate_report', { seconds: 4 });
  await fx.getAt(taskId, 0); // Collecting data: 250 ms
  await fx.getAt(taskId, 200); // 80 % of 250
  await fx.getAt(taskId, 2400); // Writing PDF: 1000 ms
  fx.at(3000);
  assert.deepEqual((await rejectsRpc(() => fx.engine.get({ taskId }), -31429)).data, { retryAfterMs: 400 });
  assert.equal((await fx.getAt(taskId, 3200)).status, 'working');
});

test('slow-get fault: tasks/get answers no sooner than the delay', async (t) => {
  const fx = engineFixture(t, { slowGetMs: 150 });
  const { taskId } = fx.create('slow_compute', { seconds: 1 });
  const started = performance.now();
  const r = await fx.engine.get({ taskId });
  assert.ok(performance.now() - started >= 145, `answered after ${performance.now() - started} ms`);
  assert.equal(r.status, 'working');
});

test('hostile-text fault: escape sequences and a 5,000-character line, fixed at creation for every process', async (t) => {
  const fx = engineFixture(t, { hostileText: true });
  const created = fx.create('slow_compute', { seconds: 1 });
  assert.ok(created.statusMessage.includes('\x1b['), 'an ANSI escape in statusMessage');
  assert.ok(created.statusMessage.includes('\x07'), 'a BEL (OSC terminator) in statusMessage');
  assert.ok(created.statusMessage.includes('A'.repeat(5000)), 'a 5,000-character run');
  assert.equal(fx.store.get(created.taskId)!.hostileText, true);

  // Another engine on the same store, without the fault, renders the task the same way.
  const plain = new TaskEngine(new FileTaskStore(fx.path, fx.now).open(), NO_FAULTS, fx.now);
  fx.at(1000);
  const done = await plain.get({ taskId: created.taskId });
  assert.equal(done.status, 'completed');
  const text = (done.result as { content: Array<{ text: string }> }).content[0]!.text;
  assert.ok(text.includes('\x1b[2J') && text.includes('Computed slow_compute'), 'the result is hostile too');
  // And a task created without the fault stays plain.
  const calm = plain.create(tool('slow_compute'), { seconds: 1 }).result;
  assert.equal(calm.statusMessage, 'Computing slow_compute (1s)');
});

test('durability: a second engine on the same store file answers for every task, at the same times', async (t) => {
  const fx = engineFixture(t);
  const a = fx.create('slow_compute', { seconds: 2 });
  const b = fx.create('multi_input');
  fx.at(50);
  fx.engine.update({ taskId: b.taskId, inputResponses: { color: ACCEPT({ color: 'red' }) } });

  let later = T0 + 2000;
  const engine2 = new TaskEngine(new FileTaskStore(fx.path, () => later).open(), NO_FAULTS, () => later);
  const ra = await engine2.get({ taskId: a.taskId });
  assert.equal(ra.status, 'completed');
  assert.equal(ra.lastUpdatedAt, iso(2000));
  const rb = await engine2.get({ taskId: b.taskId });
  assert.equal(rb.status, 'input_required');
  assert.deepEqual(Object.keys(rb.inputRequests as object), ['name']);
  // An answer through the second engine is seen by the first.
  engine2.update({ taskId: b.taskId, inputResponses: { name: ACCEPT({ name: 'Lin' }) } });
  later += 1000;
  const rb1 = await fx.getAt(b.taskId, 3000);
  assert.equal(rb1.status, 'completed');
  assert.deepEqual(rb1.result.structuredContent, { name: 'Lin', color: 'red' });
});
