// The 2025-11-25 TaskSession against a real mcp-framework (npm) server with one task-enabled tool
// (taskSupport "optional"). mcp-framework keeps tasks for every session, so a fresh session (not
// a resumed one) still reaches a task; a tool error comes back as a CallToolResult with isError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLegacySession } from '../../src/session/legacy/legacy-session.js';
import type { ServerEntry } from '../../src/servers/server-entry.js';
import { pollUntil, terminal, resultText as text } from '../helpers/legacy-polling.js';
import { exitCodeForSnapshot } from '../../src/tasks/outcome.js';
import { startMcpFrameworkServer } from '../helpers/third-party-http.js';




test('mcp-framework: an optional-task tool runs as a task; another session reaches it; list, cancel, and a tool error is exit 4', async (t) => {
  const server = await startMcpFrameworkServer(t);
  const entry = { name: 'fw', transport: 'http', url: server.url } as ServerEntry;
  const first = await openLegacySession(entry, { env: process.env }, { serverName: 'fw' });
  t.after(() => first.close());
  assert.deepEqual((await first.listTools()).map((x) => [x.name, x.execution?.taskSupport]), [['slow_echo', 'optional']]);
  assert.ok(first.taskCapabilities?.cancel && first.taskListUnavailable === undefined);

  const created = await first.callTool({ name: 'slow_echo', arguments: { message: 'shared' } });
  const taskId = created.kind === 'task' ? created.task.taskId : assert.fail('an optional-task tool is called as a task where tasks are advertised');
  await first.close();

  const second = await openLegacySession(entry, { env: process.env }, { serverName: 'fw' });
  t.after(() => second.close());
  assert.notEqual(second.resumeState().sessionId, first.resumeState().sessionId, 'a new session');
  const page = await second.listTasks();
  assert.ok(page.tasks.some((x) => x.taskId === taskId), 'tasks/list from another session lists it');
  const done = await pollUntil(second, taskId, terminal);
  assert.equal(done.status, 'completed');
  assert.match(text(done.result), /echo: shared/);
  assert.equal(exitCodeForSnapshot(done), 0);

  const failing = await second.callTool({ name: 'slow_echo', arguments: { message: 'nope', fail: true } });
  const failId = failing.kind === 'task' ? failing.task.taskId : assert.fail('expected a task');
  const failed = await pollUntil(second, failId, terminal);
  assert.equal(failed.result?.isError, true);
  assert.match(text(failed.result), /cannot echo nope/);
  assert.equal(exitCodeForSnapshot(failed), 4, 'a tool error maps to exit 4 on this generation too');

  const doomed = await second.callTool({ name: 'slow_echo', arguments: { message: 'cancel me' } });
  const doomedId = doomed.kind === 'task' ? doomed.task.taskId : assert.fail('expected a task');
  await second.cancelTask(doomedId);
  const cancelled = await second.getTask(doomedId);
  assert.equal(cancelled.status, 'cancelled');
  await second.cancelTask(doomedId);
});
