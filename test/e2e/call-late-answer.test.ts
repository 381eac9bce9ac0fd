// The answer to a tools/call that comes after the call's wait (MCP_TASKS_CALL_WAIT_MS) ran out:
// the record is in doubt on disk first, then the late answer settles it. A task handle
// (2026-07-28) turns the record into the task's; a plain result (2026-07-28 and 2025-11-25) is
// stored as the record's result, and the output says it came late. Real parts: the demo server
// (2026-07-28) or @modelcontextprotocol/server-everything (2025-11-25, npm), behind a real proxy
// that holds the call's answer until the CLI has marked the record in doubt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, startDemo, type CliProcess, type TestHome } from '../helpers/cli.js';
import { startProxy } from '../helpers/proxy.js';
import { startEverythingServer } from '../helpers/third-party-http.js';
import { storedRecords, toolCallOf } from '../helpers/legacy-everything.js';

const LISTENING = /listening up to \d+ s more for a late answer to tools\/call/;
const WAIT = { MCP_TASKS_CALL_WAIT_MS: '300' };

/** A proxy in front of `url` that holds the answer to tools/call `tool` (the server has done its part) until released. */
async function holdingProxy(t: { after(fn: () => unknown): void }, url: string, tool: string) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const seen = { held: 0 };
  const proxy = await startProxy(url, {
    replace: async (req) => {
      if (toolCallOf(req)?.name !== tool) return undefined;
      seen.held++;
      await released;
      return undefined;
    },
  });
  t.after(async () => {
    release();
    await proxy.close();
  });
  return { url: proxy.url, release, seen };
}

/** Until the call's record is in doubt on disk (or the CLI ended): what the vault held then. */
async function inDoubtOnDisk(h: TestHome, call: CliProcess) {
  let ended = false;
  void call.done.then(() => (ended = true), () => (ended = true));
  while (!ended && !storedRecords(h).some((r) => r.phase === 'in-doubt')) await new Promise((r) => setTimeout(r, 20));
  return storedRecords(h);
}

/** The vault's one record after a late answer: the record that was in doubt, its reason gone. */
function settledRecord(h: Parameters<typeof storedRecords>[0], inDoubt: Array<{ opId: string }>) {
  const [rec, ...others] = storedRecords(h);
  assert.equal(others.length, 0, 'no second record');
  assert.equal(rec!.opId, inDoubt[0]!.opId, 'the record that was in doubt');
  assert.equal(rec!.reason, undefined, 'no in-doubt reason left');
  return rec!;
}

test('2026-07-28: a task handle that arrives after the call wait ran out turns the in-doubt record into the task', async (t) => {
  const demo = await startDemo();
  t.after(() => demo.stop());
  const proxy = await holdingProxy(t, demo.url, 'slow_compute');
  const h = await homeWithServer('web', proxy.url);

  const call = h.spawn(['-v', '--json', 'call', 'web', 'slow_compute', 'seconds=30', '--detach', '--label', 'job=late'], { env: WAIT });
  const inDoubt = await inDoubtOnDisk(h, call);
  assert.deepEqual(inDoubt.map((r) => [r.phase, r.taskId]), [['in-doubt', undefined]]);
  proxy.release();
  const r = await call.done;
  assert.equal(proxy.seen.held, 1, 'one tools/call was sent');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, LISTENING);
  assert.match(r.stderr, /handle came after the call's wait ran out/);
  const doc = parseJsonDoc(r.stdout);
  assert.equal(typeof doc.taskId, 'string', r.stdout);

  // The same record, now the task's: its handle, active, no reason left.
  const rec = settledRecord(h, inDoubt);
  assert.equal(rec.taskId, doc.taskId);
  assert.equal(rec.phase, 'active');

  // The handle works: the server knows the task.
  const got = await h.run(['--json', 'get', 'late']);
  assert.equal(got.code, 0, got.stderr);
  assert.equal(parseJsonDoc(got.stdout).taskId, doc.taskId);
  assert.equal(parseJsonDoc(got.stdout).status, 'working');
  await h.run(['cancel', 'late']);
});

test('2026-07-28: a plain result that arrives after the call wait ran out is stored as the record\'s result, and said to be late', async (t) => {
  const demo = await startDemo();
  t.after(() => demo.stop());
  const proxy = await holdingProxy(t, demo.url, 'greet');
  const h = await homeWithServer('web', proxy.url);

  const call = h.spawn(['-v', 'call', 'web', 'greet', 'name=Ada'], { env: WAIT });
  const inDoubt = await inDoubtOnDisk(h, call);
  assert.deepEqual(inDoubt.map((r) => r.phase), ['in-doubt']);
  proxy.release();
  const r = await call.done;
  assert.equal(proxy.seen.held, 1, 'one tools/call was sent');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, LISTENING);
  assert.match(r.stdout, /Hello, Ada!/);
  assert.match(r.stderr, /the answer came after the call's wait ran out/);

  const rec = settledRecord(h, inDoubt);
  assert.equal(rec.phase, 'terminal');
  assert.match(JSON.stringify(rec.result), /Hello, Ada!/);
});

test('2025-11-25: a plain result that arrives after the call wait ran out is stored as the record\'s result', async (t) => {
  const server = await startEverythingServer(t);
  const proxy = await holdingProxy(t, server.url, 'echo');
  const h = await homeWithServer('ev', proxy.url);

  const call = h.spawn(['-v', '--json', 'call', 'ev', 'echo', 'message=late hello'], { env: WAIT });
  const inDoubt = await inDoubtOnDisk(h, call);
  assert.deepEqual(inDoubt.map((r) => r.phase), ['in-doubt']);
  proxy.release();
  const r = await call.done;
  assert.equal(proxy.seen.held, 1, 'one tools/call was sent');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, LISTENING);
  assert.match(r.stderr, /the answer came after the call's wait ran out/);
  const doc = parseJsonDoc(r.stdout);
  assert.equal(doc.status, 'completed', r.stdout);
  assert.match(JSON.stringify(doc.result), /late hello/);

  const rec = settledRecord(h, inDoubt);
  assert.equal(rec.phase, 'terminal');
  assert.match(JSON.stringify(rec.result), /late hello/);
});
