// The 2025-11-25 TaskSession against the official SDK 1.x example `simpleTaskInteractive`
// (npm @modelcontextprotocol/sdk): an elicitation and a sampling request inside tasks, delivered
// on the tasks/result stream; no tasks/list, no cancel capability.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLegacySession } from '../../src/session/legacy/legacy-session.js';
import type { ServerEntry } from '../../src/servers/server-entry.js';
import { pollUntil, terminal, resultText as text } from '../helpers/legacy-polling.js';
import { startSdkTaskInteractiveServer } from '../helpers/third-party-http.js';




test('SDK 1.x simpleTaskInteractive: an elicitation and a sampling request inside tasks, answered', async (t) => {
  const server = await startSdkTaskInteractiveServer(t);
  const entry = { name: 'sdk1', transport: 'http', url: server.url } as ServerEntry;
  const session = await openLegacySession(entry, { env: process.env }, { serverName: 'sdk1', serveInput: true });
  t.after(() => session.close());
  assert.equal(session.tasksAdvertised, true);
  assert.match(session.taskListUnavailable ?? '', /capabilities.tasks.list is not advertised/, 'no tasks/list where capabilities.tasks.list is not advertised');
  const tools = await session.listTools();
  assert.deepEqual(tools.map((x) => [x.name, x.execution?.taskSupport]), [['confirm_delete', 'required'], ['write_haiku', 'required']]);

  const del = await session.callTool({ name: 'confirm_delete', arguments: { filename: 'notes.txt' } });
  const delId = del.kind === 'task' ? del.task.taskId : assert.fail('expected a task');
  const asked = await pollUntil(session, delId, (s) => Object.keys(s.inputRequests ?? {}).length > 0 || terminal(s));
  const [key, request] = Object.entries(asked.inputRequests ?? {})[0] ?? assert.fail(`no input request; status ${asked.status}`);
  assert.equal(request.method, 'elicitation/create');
  assert.match(String(request.params?.message), /notes\.txt/);
  await session.updateTask(delId, { [key]: { action: 'accept', content: { confirm: true } } });
  const deleted = await pollUntil(session, delId, terminal);
  assert.equal(deleted.status, 'completed');
  assert.equal(text(deleted.result), "Deleted 'notes.txt'");

  const haiku = await session.callTool({ name: 'write_haiku', arguments: { topic: 'rain' } });
  const haikuId = haiku.kind === 'task' ? haiku.task.taskId : assert.fail('expected a task');
  const sampling = await pollUntil(session, haikuId, (s) => Object.keys(s.inputRequests ?? {}).length > 0 || terminal(s));
  const [skey, sreq] = Object.entries(sampling.inputRequests ?? {})[0] ?? assert.fail(`no sampling request; status ${sampling.status}`);
  assert.equal(sreq.method, 'sampling/createMessage');
  assert.match(skey, /^sample-[0-9a-f]{12}$/);
  await session.updateTask(haikuId, { [skey]: { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'soft rain on the roof' } } });
  const written = await pollUntil(session, haikuId, terminal);
  assert.equal(written.status, 'completed');
  assert.match(text(written.result), /soft rain on the roof/);
});
