// The 2025-11-25 TaskSession against the real @modelcontextprotocol/server-everything from npm,
// over Streamable HTTP on 127.0.0.1 (its own sessions, task store and tasks/result input queue).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLegacySession } from '../../src/session/legacy/legacy-session.js';
import { inputRequestKey } from '../../src/session/legacy/input-keys.js';
import { SessionEndedError } from '../../src/session/legacy/legacy-errors.js';
import { RpcResponseError } from '../../src/protocol/remote-errors.js';
import type { ServerEntry } from '../../src/servers/server-entry.js';
import { pollUntil, terminal } from '../helpers/legacy-polling.js';
import { startEverythingServer } from '../helpers/third-party-http.js';


async function open(t: { after(fn: () => unknown): void }, entry: ServerEntry, opts: Parameters<typeof openLegacySession>[2] = { serverName: entry.name }) {
  const session = await openLegacySession(entry, { env: process.env }, opts);
  t.after(() => session.close());
  return session;
}


function text(result: Record<string, unknown> | undefined): string {
  return ((result?.content as Array<{ text?: string }> | undefined) ?? []).map((c) => c.text ?? '').join('\n');
}

test('server-everything over HTTP: the handshake, tasks capabilities, taskSupport; a plain echo is synchronous', async (t) => {
  const server = await startEverythingServer(t);
  const entry: ServerEntry = { name: 'ev', transport: 'http', url: server.url } as ServerEntry;
  const session = await open(t, entry);
  assert.equal(session.generation, '2025-11-25');
  assert.equal(session.protocolVersion, '2025-11-25');
  assert.equal(session.tasksAdvertised, true);
  assert.ok(session.taskCapabilities?.list, 'it advertises tasks/list');
  assert.equal(session.taskListUnavailable, undefined, 'so listTasks is offered');
  const resume = session.resumeState();
  assert.equal(resume.protocolVersion, '2025-11-25');
  assert.match(resume.sessionId ?? '', /^[0-9a-f-]{36}$/, 'the Mcp-Session-Id is kept');
  const tools = await session.listTools();
  assert.equal(tools.find((x) => x.name === 'simulate-research-query')?.execution?.taskSupport, 'required');
  assert.equal(tools.find((x) => x.name === 'echo')?.execution?.taskSupport, 'forbidden');

  const echo = await session.callTool({ name: 'echo', arguments: { message: 'hi there' } });
  assert.equal(echo.kind, 'complete');
  assert.match(text(echo.kind === 'complete' ? echo.result : undefined), /hi there/);
});

test('server-everything: simulate-research-query runs as a task to completion; tasks/list lists it', async (t) => {
  const server = await startEverythingServer(t);
  const entry = { name: 'ev', transport: 'http', url: server.url } as ServerEntry;
  const session = await open(t, entry);
  const created = await session.callTool({ name: 'simulate-research-query', arguments: { topic: 'tides' } });
  assert.equal(created.kind, 'task');
  const task = created.kind === 'task' ? created.task : assert.fail();
  assert.equal(task.status, 'working');
  assert.equal(typeof task.ttlMs, 'number', 'ttl normalised to ttlMs');
  assert.equal(task.pollIntervalMs, 1000, 'pollInterval normalised to pollIntervalMs');

  const page = await session.listTasks();
  assert.ok(page.tasks.some((x) => x.taskId === task.taskId && typeof x.ttlMs === 'number'), 'tasks/list holds the task');

  const seen = new Set<string>();
  const end = await pollUntil(session, task.taskId, (s) => {
    seen.add(s.status);
    return terminal(s);
  });
  assert.equal(end.status, 'completed');
  assert.match(text(end.result), /Research Report: tides/, 'the result came from tasks/result');
  assert.equal(end.inputRequests, undefined);
  assert.ok(!seen.has('input_required'));
});

test('server-everything: an ambiguous query is not touched by a session that cannot answer, then answered by one that can', async (t) => {
  const server = await startEverythingServer(t);
  const entry = { name: 'ev', transport: 'http', url: server.url } as ServerEntry;
  const watcher = await open(t, entry, { serverName: 'ev', serveInput: false });
  const created = await watcher.callTool({ name: 'simulate-research-query', arguments: { topic: 'python', ambiguous: true } });
  const taskId = created.kind === 'task' ? created.task.taskId : assert.fail('expected a task');
  const waiting = await pollUntil(watcher, taskId, (s) => s.status === 'input_required');
  assert.equal(waiting.inputRequests, undefined, 'without answers to give, tasks/result is never opened');
  const resume = watcher.resumeState();
  await watcher.close();

  // A new session object (as in a new process) rejoins the same server session and serves input.
  const answerer = await open(t, entry, { serverName: 'ev', serveInput: true, resume });
  const asked = await pollUntil(answerer, taskId, (s) => Object.keys(s.inputRequests ?? {}).length > 0);
  assert.equal(asked.status, 'input_required');
  const [key, request] = Object.entries(asked.inputRequests!)[0]!;
  assert.equal(request.method, 'elicitation/create');
  assert.match(key, /^elicit-[0-9a-f]{12}$/);
  assert.equal(key, inputRequestKey(request.method, request.params), 'the key is derived from the request, so it is the same in every run');
  const schema = request.params?.requestedSchema as { properties: Record<string, { oneOf: Array<{ const: string }> }> };
  assert.ok(schema.properties.interpretation!.oneOf.some((o) => o.const === 'snake'));

  await answerer.updateTask(taskId, { [key]: { action: 'accept', content: { interpretation: 'snake' } } });
  // Answering a key again is ignored (it is no longer pending), as tasks/update ignores answered keys.
  await answerer.updateTask(taskId, { [key]: { action: 'accept', content: { interpretation: 'comedy' } } });
  const end = await pollUntil(answerer, taskId, terminal);
  assert.equal(end.status, 'completed');
  assert.match(text(end.result), /Research Report: python \(snake\)/, 'the answer reached the task');
  assert.equal(end.inputRequests, undefined);
});

test('server-everything: tasks are scoped to the session; a resumed session sees them, a new one does not, an ended one says so', async (t) => {
  const server = await startEverythingServer(t);
  const entry = { name: 'ev', transport: 'http', url: server.url } as ServerEntry;
  const first = await open(t, entry);
  const created = await first.callTool({ name: 'simulate-research-query', arguments: { topic: 'moss' } });
  const taskId = created.kind === 'task' ? created.task.taskId : assert.fail('expected a task');
  const resume = first.resumeState();
  await first.close();

  const resumed = await open(t, entry, { serverName: 'ev', resume });
  assert.equal(resumed.resumeState().sessionId, resume.sessionId);
  assert.equal(resumed.protocolVersion, '2025-11-25');
  const end = await pollUntil(resumed, taskId, terminal);
  assert.equal(end.status, 'completed');
  assert.match(text(end.result), /moss/);

  const stranger = await open(t, entry);
  await assert.rejects(stranger.getTask(taskId), (e: unknown) => e instanceof RpcResponseError && e.code === -32602, 'another session does not know the task');

  // End the session the way a client does (DELETE with its id), then try to rejoin it.
  const del = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': resume.sessionId!, 'mcp-protocol-version': '2025-11-25' } });
  assert.equal(del.status, 200);
  const late = await open(t, entry, { serverName: 'ev', resume });
  await assert.rejects(late.getTask(taskId), (e: unknown) => {
    assert.ok(e instanceof SessionEndedError, String(e));
    assert.equal(e.exitCode, 6);
    assert.match(e.message, /the server scoped this task to a session that has ended/);
    return true;
  });
});

test('server-everything: cancel stops a task; cancelling it again (-32602 on a terminal task) is not a loss', async (t) => {
  const server = await startEverythingServer(t);
  const entry = { name: 'ev', transport: 'http', url: server.url } as ServerEntry;
  const session = await open(t, entry);
  const created = await session.callTool({ name: 'simulate-research-query', arguments: { topic: 'fog' } });
  const taskId = created.kind === 'task' ? created.task.taskId : assert.fail('expected a task');
  await session.cancelTask(taskId);
  const after = await session.getTask(taskId);
  assert.equal(after.status, 'cancelled');
  assert.equal(after.result, undefined);
  await session.cancelTask(taskId);
  await assert.rejects(session.cancelTask('no-such-task'), (e: unknown) => e instanceof RpcResponseError && e.code === -32602, 'an unknown task is still an error');
});
