// Pure parts of the 2025-11-25 session: the input-request key and the mapping of a Task and its
// tasks/result outcome onto the generation-neutral snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, inputRequestKey } from '../../../src/session/legacy/input-keys.js';
import { snapshotFromTaskV1, withOutcome } from '../../../src/session/legacy/legacy-session.js';
import { isToolError } from '../../../src/tasks/task-snapshot.js';
import { exitCodeForSnapshot } from '../../../src/tasks/outcome.js';

const elicit = { message: 'Pick one', requestedSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } };

test('input key: kind prefix plus 12 hex digits; independent of key order and of _meta', () => {
  const key = inputRequestKey('elicitation/create', elicit);
  assert.match(key, /^elicit-[0-9a-f]{12}$/);
  const reordered = { requestedSchema: { required: ['a'], properties: { a: { type: 'string' } }, type: 'object' }, message: 'Pick one' };
  assert.equal(inputRequestKey('elicitation/create', reordered), key);
  assert.equal(inputRequestKey('elicitation/create', { ...elicit, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't1' } } }), key);
  assert.notEqual(inputRequestKey('elicitation/create', { ...elicit, message: 'Pick two' }), key, 'another question, another key');
  assert.match(inputRequestKey('sampling/createMessage', { messages: [], maxTokens: 5 }), /^sample-[0-9a-f]{12}$/);
  assert.match(inputRequestKey('roots/list', undefined), /^roots-[0-9a-f]{12}$/);
  assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}');
});

test('a 2025-11-25 Task becomes a snapshot with ttlMs and pollIntervalMs', () => {
  const s = snapshotFromTaskV1({ taskId: 't', status: 'working', createdAt: 'c', lastUpdatedAt: 'u', ttl: 300000, pollInterval: 1000, statusMessage: 'm' });
  assert.deepEqual(s, { taskId: 't', status: 'working', createdAt: 'c', lastUpdatedAt: 'u', ttlMs: 300000, pollIntervalMs: 1000, statusMessage: 'm' });
  assert.equal(snapshotFromTaskV1({ taskId: 't', status: 'working', createdAt: 'c', lastUpdatedAt: 'u', ttl: null }).ttlMs, null);
});

test('a tool error (marked failed on this generation) is a completed task with isError: exit 4, as on 2026-07-28', () => {
  const failed = snapshotFromTaskV1({ taskId: 't', status: 'failed', createdAt: 'c', lastUpdatedAt: 'u', ttl: null });
  const s = withOutcome(failed, { kind: 'result', result: { content: [{ type: 'text', text: 'boom' }], isError: true } });
  assert.equal(s.status, 'completed');
  assert.ok(isToolError(s));
  assert.equal(exitCodeForSnapshot(s), 4);
  const rpc = withOutcome(failed, { kind: 'error', error: { code: -32603, message: 'crashed' } });
  assert.equal(rpc.status, 'failed');
  assert.deepEqual(rpc.error, { code: -32603, message: 'crashed' });
  assert.equal(exitCodeForSnapshot(rpc), 2);
  const ok = withOutcome({ ...failed, status: 'completed' }, { kind: 'result', result: { content: [] } });
  assert.equal(exitCodeForSnapshot(ok), 0);
});
