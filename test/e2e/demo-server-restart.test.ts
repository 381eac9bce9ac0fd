// The store is durable: a killed server's tasks are answered by the next process on the same
// --store (HTTP or stdio), with the same timeline, and two live processes can share one store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  callTool,
  getTask,
  IDEMPOTENCY_KEY,
  ok,
  readStore,
  startDemoHttp,
  startDemoStdio,
  tempStorePath,
  type DemoClient,
} from '../helpers/demo-server.js';
import { createTask, poll, pollTerminal } from '../helpers/demo-scenarios.js';

const opts = { concurrency: true } as const;

test('restart on the same store', opts, async (t) => {
  await Promise.all([
    t.test('HTTP killed (SIGKILL) → new HTTP process: tasks/get answers, reaches completed, input still answerable', async (t) => {
      const store = tempStorePath(t);
      const a = await startDemoHttp({ t, store });
      const slow = await createTask(a, 'slow_compute', { seconds: 1 });
      const ask = await createTask(a, 'confirm_delete', { filename: 'kept.txt' });
      assert.deepEqual(await a.kill(), { code: null, signal: 'SIGKILL' });

      const b = await startDemoHttp({ t, store });
      assert.notEqual(b.port, a.port);
      const first = ok(await getTask(b, slow.taskId));
      assert.equal(first.createdAt, slow.createdAt, 'the same task, not a new one');
      const done = await pollTerminal(b, slow.taskId);
      assert.equal(done.status, 'completed');
      assert.equal(Date.parse(done.lastUpdatedAt) - Date.parse(done.createdAt), 1000, 'the timeline survived the restart');
      assert.deepEqual(done.result.structuredContent, { seconds: 1, label: 'slow_compute' });

      const { task: asking } = await poll(b, ask.taskId, (x) => x.status === 'input_required');
      assert.equal(asking.inputRequests.confirm.params.message, 'Delete kept.txt?');
      ok(await b.rpc('tasks/update', { taskId: ask.taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } }));
      assert.equal((await pollTerminal(b, ask.taskId)).result.content[0].text, 'Deleted kept.txt');
    }),

    t.test('stdio → HTTP: a task created over stdio is answered over HTTP after the stdio process ends', async (t) => {
      const store = tempStorePath(t);
      const s = await startDemoStdio({ t, store });
      const created = await createTask(s, 'slow_compute', { seconds: 1, label: 'cross' });
      assert.deepEqual(await s.close(), { code: 0, signal: null });
      const h = await startDemoHttp({ t, store });
      const done = await pollTerminal(h, created.taskId);
      assert.equal(done.status, 'completed');
      assert.equal(done.createdAt, created.createdAt);
      assert.deepEqual(done.result.content, [{ type: 'text', text: 'Computed cross after 1 second(s)' }]);
    }),

    t.test('HTTP → stdio: a task created over HTTP (then SIGKILLed) is answered over stdio; a cancel from stdio sticks', async (t) => {
      const store = tempStorePath(t);
      const h = await startDemoHttp({ t, store });
      const long = await createTask(h, 'slow_compute', { seconds: 60 });
      const report = await createTask(h, 'generate_report', { seconds: 1 });
      await h.kill();
      const s = await startDemoStdio({ t, store });
      assert.equal(ok(await getTask(s, long.taskId)).status, 'working');
      ok(await s.rpc('tasks/cancel', { taskId: long.taskId }));
      assert.equal((await pollTerminal(s, long.taskId)).status, 'cancelled');
      assert.equal((await pollTerminal(s, report.taskId)).status, 'completed');
      await s.close();
      // And a third process sees the cancel made by the second.
      const h2 = await startDemoHttp({ t, store });
      assert.equal(ok(await getTask(h2, long.taskId)).status, 'cancelled');
    }),

    t.test('two live processes (HTTP + stdio) on one store: each answers for the other’s tasks, keys dedupe across them, nothing is lost', async (t) => {
      const store = tempStorePath(t);
      const [h, s] = await Promise.all([startDemoHttp({ t, store }), startDemoStdio({ t, store })]);
      const make = (c: DemoClient, i: number) => callTool(c, 'slow_compute', { seconds: 0.2, label: `n${i}` });
      const replies = await Promise.all([...Array.from({ length: 12 }, (_, i) => make(h, i)), ...Array.from({ length: 12 }, (_, i) => make(s, 100 + i))]);
      const ids = replies.map((r) => ok(r).taskId as string);
      assert.equal(new Set(ids).size, 24);
      assert.equal(Object.keys(readStore(store).tasks).length, 24, 'every concurrent insert is on disk');
      // Cross-reads: HTTP answers for stdio's tasks and vice versa.
      const [fromHttp, fromStdio] = [ids.slice(12)[0]!, ids[0]!];
      assert.equal((await pollTerminal(h, fromHttp)).status, 'completed');
      assert.equal((await pollTerminal(s, fromStdio)).status, 'completed');

      // The same idempotency key sent to both at once: one task.
      const key = `both-${Date.now()}`;
      const [r1, r2] = await Promise.all([
        callTool(h, 'send_payment', { to: 'x', amount: 1 }, { meta: { [IDEMPOTENCY_KEY]: key } }),
        callTool(s, 'send_payment', { to: 'x', amount: 1 }, { meta: { [IDEMPOTENCY_KEY]: key } }),
      ]);
      assert.equal(ok(r1).taskId, ok(r2).taskId);
      assert.equal(Object.keys(readStore(store).tasks).length, 25);
      assert.deepEqual(readdirSync(dirname(store)).sort(), ['tasks.json'], 'no temp or lock files left behind');
    }),
  ]);
});
