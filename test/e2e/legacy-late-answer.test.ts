// 2025-11-25: the answer to a task-augmented tools/call that comes after the call's wait ran
// out. The request is still open on the connection; its CreateTaskResult names the task the
// server created, so its handle is stored in the record (in doubt until then), which becomes the
// task's. Real parts: @modelcontextprotocol/server-everything (npm, SDK 1.x) and a real proxy that
// holds the call's answer until the CLI has given up waiting for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc } from '../helpers/cli.js';
import { startProxy } from '../helpers/proxy.js';
import { startEverythingServer } from '../helpers/third-party-http.js';
import { storedRecords, toolCallOf } from '../helpers/legacy-everything.js';

const TOOL = 'simulate-research-query';
const LISTENING = /listening up to \d+ s more for a late answer to tools\/call/;

test('2025-11-25: a CreateTaskResult that arrives after the call wait ran out is read: the in-doubt record becomes the task, with its handle', async (t) => {
  const server = await startEverythingServer(t);
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held = 0;
  const proxy = await startProxy(server.url, {
    // The server creates the task at once; its answer is held until the CLI's wait has run out.
    replace: async (req) => {
      if (toolCallOf(req)?.name !== TOOL) return undefined;
      held++;
      await released;
      return undefined;
    },
  });
  t.after(async () => {
    release();
    await proxy.close();
  });
  const h = await homeWithServer('ev', proxy.url);

  const call = h.spawn(['-v', '--json', 'call', 'ev', TOOL, 'topic=tides', '--detach', '--label', 'job=late'], { env: { MCP_TASKS_CALL_WAIT_MS: '300' } });
  // The call's wait runs out: the record is in doubt on disk, without a handle (or the CLI ended).
  let ended = false;
  void call.done.then(() => (ended = true), () => (ended = true));
  while (!ended && !storedRecords(h).some((r) => r.phase === 'in-doubt')) await new Promise((r) => setTimeout(r, 20));
  const inDoubt = storedRecords(h);
  assert.deepEqual(inDoubt.map((r) => [r.phase, r.taskId]), [['in-doubt', undefined]]);
  release();
  const r = await call.done;
  assert.equal(held, 1, 'one tools/call was sent');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, LISTENING);
  const doc = parseJsonDoc(r.stdout);
  assert.equal(typeof doc.taskId, 'string', r.stdout);

  // The same record (one record-update path), now the task's: its handle, active, no reason left.
  const [rec, ...others] = storedRecords(h);
  assert.equal(others.length, 0);
  assert.equal(rec!.opId, inDoubt[0]!.opId);
  assert.equal(rec!.taskId, doc.taskId);
  assert.equal(rec!.phase, 'active');
  assert.equal(rec!.reason, undefined);

  // The handle works: the server knows the task.
  const got = await h.run(['--json', 'get', 'late']);
  assert.ok(got.code === 0 || got.code === 5, got.stderr);
  assert.equal(parseJsonDoc(got.stdout).taskId, doc.taskId);
  await h.run(['cancel', 'late']);
});

test('2025-11-25: the wait for a late answer ends at Ctrl-C: the record stays in doubt (exit 10)', async (t) => {
  const server = await startEverythingServer(t);
  const proxy = await startProxy(server.url, {
    // The server creates the task; its answer never comes back.
    replace: (req) => (toolCallOf(req)?.name === TOOL ? 'hold' : undefined),
  });
  t.after(() => proxy.close());
  const h = await homeWithServer('ev', proxy.url);
  const call = h.spawn(['-v', 'call', 'ev', TOOL, 'topic=tides', '--detach'], { env: { MCP_TASKS_CALL_WAIT_MS: '300' } });
  await call.waitFor(LISTENING);
  call.kill('SIGINT');
  const r = await call.done;
  assert.equal(r.code, 10, r.stderr);
  assert.deepEqual(storedRecords(h).map((x) => [x.phase, x.taskId]), [['in-doubt', undefined]]);
  assert.match(r.stderr, /recover/);
});
