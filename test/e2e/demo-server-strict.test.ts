// The Streamable HTTP transport MUSTs, end to end against the built CLI's `demo-server --http 0`:
// Host / Origin validation (403), -32021 with HTTP 400 and data.requiredCapabilities, unimplemented
// methods as 404 + -32601, resultType on inlined results, and input requests only to clients that
// declared the capability (also over stdio).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import {
  baseHeaders,
  callTool,
  getTask,
  ok,
  request,
  rpcError,
  startDemoHttp,
  startDemoStdio,
  type DemoHttp,
} from '../helpers/demo-server.js';
import { createTask, poll, pollTerminal } from '../helpers/demo-scenarios.js';

/** A POST with a Host header of our choosing (fetch always sends the URL's own). */
function postWithHost(url: string, host: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...headers, host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('demo-server over HTTP: the transport MUSTs', { concurrency: true }, () => {
  let demo: DemoHttp;
  before(async () => {
    demo = await startDemoHttp();
  });
  after(async () => {
    await demo?.close();
  });

  test('DNS rebinding: another site in Origin or Host is refused with 403 before anything runs', async () => {
    const port = new URL(demo.url).port;
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'null', 'https://127.0.0.1.evil.example']) {
      const r = await callTool(demo, 'greet', { name: 'x' }, { headers: { origin } });
      assert.equal(r.status, 403, `Origin ${origin}`);
      assert.equal(r.result, undefined);
    }
    for (const host of ['evil.example.com', `evil.example.com:${port}`]) {
      const body = request('tools/call', { name: 'greet', arguments: { name: 'x' } });
      const r = await postWithHost(demo.url, host, body, { ...baseHeaders('tools/call'), 'mcp-name': 'greet' });
      assert.equal(r.status, 403, `Host ${host}`);
    }
    const created = await createTask(demo, 'slow_compute', { seconds: 1 });
    const refused = await getTask(demo, created.taskId, { headers: { origin: 'http://evil.example' } });
    assert.equal(refused.status, 403, 'a task handle does not open the door either');
    // Local pages and non-browser clients pass.
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, 'http://[::1]']) {
      assert.equal(ok(await callTool(demo, 'greet', { name: 'x' }, { headers: { origin } }), origin).content[0].text, 'Hello, x!');
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const body = request('tools/call', { name: 'greet', arguments: { name: 'y' } });
      const r = await postWithHost(demo.url, host, body, { ...baseHeaders('tools/call'), 'mcp-name': 'greet' });
      assert.equal(r.status, 200, `Host ${host}`);
    }
  });

  test('-32021 is answered with HTTP 400 and names what is missing in data.requiredCapabilities', async () => {
    const noTasks = await callTool(demo, 'failing_job', {}, { tasks: false });
    assert.equal(noTasks.status, 400);
    assert.deepEqual(rpcError(noTasks, -32021).data, { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
    const noForm = await callTool(demo, 'confirm_delete', { filename: 'a' }, { capabilities: {} });
    assert.equal(noForm.status, 400);
    assert.deepEqual(rpcError(noForm, -32021).data, { requiredCapabilities: { elicitation: { form: {} } } });
    const noSampling = await callTool(demo, 'test_missing_capability', {}, { tasks: false, capabilities: {} });
    assert.equal(noSampling.status, 400);
    assert.deepEqual(rpcError(noSampling, -32021).data, { requiredCapabilities: { sampling: {} } });
    assert.equal(typeof noSampling.id, 'number', 'the error carries the request id');
    const taskGet = await getTask(demo, 'whatever', { tasks: false });
    assert.equal(taskGet.status, 400);
    rpcError(taskGet, -32021);
  });

  test('unimplemented methods: HTTP 404 with -32601 and the request id (tasks/list, tasks/result, others)', async () => {
    for (const method of ['tasks/list', 'tasks/result', 'tasks/frobnicate', 'unknown/method']) {
      const r = await demo.rpc(method, method === 'tasks/result' ? { taskId: 'x' } : {});
      assert.equal(r.status, 404, method);
      rpcError(r, -32601, method);
      assert.equal(typeof r.id, 'number', `${method}: id echoed`);
    }
  });

  test('an inlined result says resultType: complete', async () => {
    const created = await createTask(demo, 'slow_compute', { seconds: 0.2 });
    const done = await pollTerminal(demo, created.taskId);
    assert.equal(done.resultType, 'complete');
    assert.equal(done.result.resultType, 'complete');
    assert.match(done.result.content[0].text, /Computed/);
  });

  test('input requests only to clients that declared them: tasks/get of a task waiting for a URL is 400 without elicitation.url', async () => {
    const created = await createTask(demo, 'approve_deploy', {});
    const refused = await getTask(demo, created.taskId, { capabilities: { elicitation: { form: {} } } });
    assert.equal(refused.status, 400);
    assert.deepEqual(rpcError(refused, -32021).data, { requiredCapabilities: { elicitation: { url: {} } } });
    const { task } = await poll(demo, created.taskId, (x) => x.status === 'input_required');
    assert.equal(task.inputRequests.approval.params.mode, 'url');
    // The diagnostic the official suite streams: an InputRequiredResult, never a request of its own.
    const asked = ok(await callTool(demo, 'test_streaming_elicitation', {}, { tasks: false, capabilities: { elicitation: {} } }));
    assert.equal(asked.resultType, 'input_required');
  });

  test('a GET (the standalone stream) is Origin-checked too', async () => {
    const res = await fetch(demo.url, { headers: { origin: 'http://evil.example', accept: 'text/event-stream' }, signal: AbortSignal.timeout(5000) });
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });
});

test('over stdio: the same capability gate (no HTTP statuses there)', async (t) => {
  const demo = await startDemoStdio({ t });
  const e = rpcError(await callTool(demo, 'summarize_with_model', { text: 'x' }, { capabilities: { elicitation: {} } }), -32021);
  assert.deepEqual(e.data, { requiredCapabilities: { sampling: {} } });
  const created = ok(await callTool(demo, 'summarize_with_model', { text: 'x' }));
  assert.equal(created.resultType, 'task');
  rpcError(await demo.rpc('tasks/list', {}), -32601);
});
