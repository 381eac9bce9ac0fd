// Each --fault of the demo server, end to end against the built CLI. Every fault gets its own
// server process; the faults are independent, so they run concurrently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import {
  assertSchema,
  baseHeaders,
  callTool,
  getTask,
  IDEMPOTENCY_KEY,
  ok,
  readStore,
  request,
  rpcError,
  sleep,
  startDemoHttp,
  startDemoStdio,
  tempStorePath,
} from '../helpers/demo-server.js';
import { createTask, poll, pollTerminal } from '../helpers/demo-scenarios.js';

const storedCount = (store: string) => Object.keys(readStore(store).tasks).length;

test('demo-server faults', { concurrency: true }, async (t) => {
  await Promise.all([
    t.test('drop-create-response (HTTP): the connection closes with no response, yet the task is stored; a repeated key gets it normally', async (t) => {
      const demo = await startDemoHttp({ t, faults: ['drop-create-response'] });
      const key = 'op-drop-http';
      await assert.rejects(callTool(demo, 'slow_compute', { seconds: 1 }, { meta: { [IDEMPOTENCY_KEY]: key } }), (err: Error) => {
        // undici reports a closed socket as "fetch failed" with the cause attached.
        assert.match(`${err.message} ${String((err as { cause?: unknown }).cause)}`, /fetch failed|socket|closed|terminated/i);
        return true;
      });
      assert.equal(storedCount(demo.store), 1, 'the task was stored before the connection was closed');

      const retry = ok(await callTool(demo, 'slow_compute', { seconds: 1 }, { meta: { [IDEMPOTENCY_KEY]: key } }), 'retry with the same key');
      assertSchema(CreateTaskResultV2Schema, retry, 'CreateTaskResult');
      assert.equal(storedCount(demo.store), 1, 'the retry created no second task');
      const done = await pollTerminal(demo, retry.taskId);
      assert.equal(done.status, 'completed');
      // The server is still up for everything else, and only creation is dropped.
      assert.equal(ok(await callTool(demo, 'greet', { name: 'x' })).content[0].text, 'Hello, x!');
      assert.equal(demo.child.exitCode, null);
    }),

    t.test('drop-create-response (stdio): the process ends before answering; a new process returns the stored task for the key', async (t) => {
      const store = tempStorePath(t);
      const key = 'op-drop-stdio';
      const first = await startDemoStdio({ t, store, faults: ['drop-create-response'] });
      await assert.rejects(callTool(first, 'send_payment', { to: 'z', amount: 2 }, { meta: { [IDEMPOTENCY_KEY]: key } }), /exited .* before answering/);
      assert.equal(storedCount(store), 1);
      const second = await startDemoStdio({ t, store });
      const again = ok(await callTool(second, 'send_payment', { to: 'z', amount: 2 }, { meta: { [IDEMPOTENCY_KEY]: key } }), 'retry');
      assertSchema(CreateTaskResultV2Schema, again, 'CreateTaskResult');
      assert.equal(storedCount(store), 1, 'paid once');
      assert.equal(ok(await getTask(second, again.taskId)).taskId, again.taskId);
    }),

    t.test('ttl=<ms>: ttlMs is advertised; after createdAt + ttlMs, tasks/get is -32602', async (t) => {
      const demo = await startDemoHttp({ t, faults: ['ttl=2000'] });
      const created = await createTask(demo, 'slow_compute', { seconds: 60 });
      assert.equal(created.ttlMs, 2000);
      const expiresAt = Date.parse(created.createdAt) + 2000;
      const early = await getTask(demo, created.taskId);
      // Alive until createdAt + ttlMs (on a badly overloaded machine the answer may come later than that).
      if (early.error) assert.ok(Date.now() > expiresAt, `expired early: ${JSON.stringify(early.error)}`);
      else assert.equal(early.result.status, 'working');
      await sleep(Math.max(0, expiresAt - Date.now()) + 100);
      const e = rpcError(await getTask(demo, created.taskId), -32602, 'tasks/get after expiry');
      assert.match(e.message, /not found or expired/i);
      rpcError(await demo.rpc('tasks/cancel', { taskId: created.taskId }), -32602, 'tasks/cancel after expiry');
    }),

    t.test('rate-limit: an immediate second get is -31429 with retryAfterMs; polls spaced by pollIntervalMs succeed', async (t) => {
      const demo = await startDemoHttp({ t, faults: ['rate-limit'] });
      const created = await createTask(demo, 'slow_compute', { seconds: 30 });
      // Three gets at once: the first is served, the others come too soon.
      const replies = await Promise.all([getTask(demo, created.taskId), getTask(demo, created.taskId), getTask(demo, created.taskId)]);
      const served = replies.filter((r) => r.result);
      const refused = replies.filter((r) => r.error);
      assert.equal(served.length, 1, JSON.stringify(replies.map((r) => r.body)));
      assert.equal(refused.length, 2);
      const first = served[0]!.result;
      const second = refused[0]!;
      const e = rpcError(second, -31429, 'an immediate second get');
      assert.equal(second.status, 200);
      assert.ok(Number.isInteger(e.data?.retryAfterMs), `retryAfterMs: ${JSON.stringify(e.data)}`);
      assert.ok(e.data.retryAfterMs > 0 && e.data.retryAfterMs <= first.pollIntervalMs, `retryAfterMs ${e.data.retryAfterMs}`);
      // Honouring retryAfterMs is enough.
      await sleep(e.data.retryAfterMs + 20);
      ok(await getTask(demo, created.taskId), 'get after retryAfterMs');
      // A client polling at pollIntervalMs is never refused.
      for (let i = 0; i < 3; i++) {
        await sleep(first.pollIntervalMs);
        assert.equal(ok(await getTask(demo, created.taskId), `paced get ${i}`).status, 'working');
      }
    }),

    t.test('slow-get=<ms>: every tasks/get takes at least that long, concurrently', async (t) => {
      const demo = await startDemoHttp({ t, faults: ['slow-get=2500'] });
      const created = await createTask(demo, 'slow_compute', { seconds: 1 });
      for (let i = 0; i < 2; i++) {
        const t0 = Date.now();
        ok(await getTask(demo, created.taskId));
        assert.ok(Date.now() - t0 >= 2495, `tasks/get answered after ${Date.now() - t0} ms`);
      }
      // Concurrent gets are delayed in parallel, not queued one after another.
      const t1 = Date.now();
      await Promise.all([getTask(demo, created.taskId), getTask(demo, created.taskId), getTask(demo, created.taskId)]);
      // Queued one after another they would take at least 3 × 2500 ms by construction.
      assert.ok(Date.now() - t1 < 7500, `three concurrent slow gets took ${Date.now() - t1} ms (one after another would be ≥ 7500)`);
    }),

    t.test('hostile-text: escape sequences and 5,000-character lines in status messages, prompts and results — as valid JSON on the wire', async (t) => {
      const demo = await startDemoHttp({ t, faults: ['hostile-text'] });
      const body = request('tools/call', { name: 'slow_compute', arguments: { seconds: 0.3 } });
      const raw = await demo.rawPost(body, { ...baseHeaders('tools/call'), 'mcp-name': 'slow_compute' });
      assert.equal(raw.status, 200);
      assert.ok(!raw.text.includes('\x1b'), 'raw ESC bytes on the wire (must be JSON-escaped)');
      const created = raw.json.result;
      assertSchema(CreateTaskResultV2Schema, created, 'CreateTaskResult');
      assert.ok(created.statusMessage.includes('\x1b'), 'an escape sequence in statusMessage');
      assert.ok(created.statusMessage.split('\n').some((line: string) => line.length >= 5000), 'a 5,000-character line');
      const done = await pollTerminal(demo, created.taskId);
      assert.ok(done.result.content[0].text.includes('\x1b['), 'an escape sequence in the result');
      assert.ok(created.statusMessage.includes('\rspoofed'), 'a bare CR that would overwrite the line');

      const ask = await createTask(demo, 'confirm_delete', { filename: 'f' }, {}, { hostileIds: true });
      const { task } = await poll(demo, ask.taskId, (x) => x.status === 'input_required');
      assert.ok((Object.values(task.inputRequests)[0] as { params: { message: string } }).params.message.includes('\x1b'), 'an escape sequence in the prompt');
      assert.ok(task.statusMessage.includes('\x1b'));
    }),

    t.test('hostile-ids: task ids, inputRequests keys and free-text defaults carry ESC, C1 and a bare CR; answers to those keys are taken', async (t) => {
      const demo = await startDemoHttp({ t, faults: ['hostile-ids'] });
      // The task id travels back in Mcp-Name, which therefore takes the spec's Base64 form.
      const created = ok(await callTool(demo, 'slow_compute', { seconds: 0.2 }), 'slow_compute');
      assertSchema(CreateTaskResultV2Schema, created, 'CreateTaskResult');
      assert.match(created.taskId, /^\x1b\[31m[A-Za-z0-9_-]{32}\r\u009b0m$/, 'ESC, a bare CR and an 8-bit CSI around 192 random bits');
      assert.equal((await pollTerminal(demo, created.taskId)).status, 'completed');
      const ask = ok(await callTool(demo, 'multi_input', {}), 'multi_input');
      const { task } = await poll(demo, ask.taskId, (x) => x.status === 'input_required');
      const keys = Object.keys(task.inputRequests);
      assert.equal(keys.length, 2);
      for (const k of keys) assert.ok(k.includes('\x1b') && k.includes('\r') && k.includes('\u009b'), `a hostile key: ${JSON.stringify(k)}`);
      const nameKey = keys.find((k) => k.includes('name'))!;
      const nameField = task.inputRequests[nameKey].params.requestedSchema.properties.name;
      assert.ok(nameField.default.includes('\x1b') && nameField.default.includes('\r') && nameField.default.includes('\u009b'), 'a hostile default on a free-text field');
      assert.equal(task.inputRequests[keys.find((k) => k.includes('color'))!].params.requestedSchema.properties.color.default, undefined, 'no default on an enum field');
      // Answers to the hostile keys, exactly as sent, are taken.
      ok(await demo.rpc('tasks/update', { taskId: ask.taskId, inputResponses: {
        [nameKey]: { action: 'accept', content: { name: 'Ada' } },
        [keys.find((k) => k.includes('color'))!]: { action: 'accept', content: { color: 'red' } },
      } }), 'tasks/update with the hostile keys');
      const finished = await pollTerminal(demo, ask.taskId);
      assert.deepEqual(finished.result.structuredContent, { name: 'Ada', color: 'red' });
      // A raw control character cannot travel in a header: the id must come Base64-encoded.
      const rawGet = await demo.rawPost(request('tasks/get', { taskId: ask.taskId }), { ...baseHeaders('tasks/get'), 'mcp-name': ask.taskId.replace(/[\x00-\x1f\x7f-\x9f]/g, '') });
      assert.equal(rawGet.status, 400, 'a stripped id in Mcp-Name does not match');
      assert.equal(rawGet.json.error.code, -32020);
    }),

    t.test('hostile-text over stdio: still one JSON message per line', async (t) => {
      const demo = await startDemoStdio({ t, faults: ['hostile-text'] });
      const created = ok(await callTool(demo, 'slow_compute', { seconds: 0.2 }));
      assertSchema(CreateTaskResultV2Schema, created, 'CreateTaskResult');
      assert.ok(created.statusMessage.includes('\x1b'));
      await pollTerminal(demo, created.taskId);
      assert.deepEqual(demo.garbage, [], 'every stdout line parsed as JSON');
    }),

    t.test('faults combine: rate-limit + ttl + slow-get on one server', async (t) => {
      const demo = await startDemoHttp({ t, faults: ['rate-limit', 'ttl=5000', 'slow-get=50'] });
      const created = await createTask(demo, 'slow_compute', { seconds: 1 });
      assert.equal(created.ttlMs, 5000);
      const replies = await Promise.all([getTask(demo, created.taskId), getTask(demo, created.taskId)]);
      assert.deepEqual(replies.map((r) => r.error?.code ?? 'ok').sort(), [-31429, 'ok']);
      assert.equal(ok(replies.find((r) => r.result)!).taskId, created.taskId);
    }),
  ]);
});
