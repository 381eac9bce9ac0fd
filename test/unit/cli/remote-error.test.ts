// Remote failures → the contract's exit codes: an error about a request on a task is never
// reported as the task failing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toCliError } from '../../../src/app/remote-error.js';
import { RpcResponseError } from '../../../src/protocol/remote-errors.js';
import { renderHint } from '../../../src/hint.js';

const mapped = (code: number, method: string) => {
  const e = toCliError(new RpcResponseError(code, 'nope', undefined, method), 'web')!;
  return { exit: e.exitCode, kind: e.kind, message: e.message, next: renderHint(e.next, 'mcp-tasks') };
};

test('an unclassified error on tasks/* leaves the task unobserved (7), never failed (2)', () => {
  for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
    const m = mapped(-32001, method);
    assert.equal(m.exit, 7, method);
    assert.match(m.message, new RegExp(`answered ${method} with error -32001 \\(server "web"\\): nope; the task's state was not observed, and its handle is kept`));
  }
});

test('-32602: an unknown task is lost (6); a refused answer is invalid input (1) with nothing recorded', () => {
  assert.deepEqual([mapped(-32602, 'tasks/get').exit, mapped(-32602, 'tasks/get').kind], [6, 'lost']);
  const update = mapped(-32602, 'tasks/update');
  assert.equal(update.exit, 1);
  assert.match(update.message, /refused the answer/);
  assert.match(update.next, /Nothing was recorded as answered/);
});

test('on tools/call: -32602 is invalid input (1); any other error means the call failed (2)', () => {
  assert.equal(mapped(-32602, 'tools/call').exit, 1);
  assert.equal(mapped(-32603, 'tools/call').exit, 2);
  assert.equal(mapped(-32601, 'tasks/get').exit, 7);
});
