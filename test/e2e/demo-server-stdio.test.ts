// Every demo tool end to end over stdio: the built CLI's `demo-server --stdio`, spoken to with
// newline-delimited JSON-RPC on stdin/stdout. Responses may come out of order; the client
// matches them by id, so the scenarios run concurrently on one process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { callTool, ok, startDemoStdio, tempStorePath, type DemoStdio } from '../helpers/demo-server.js';
import { SCENARIOS } from '../helpers/demo-scenarios.js';

describe('demo-server over stdio', { concurrency: true }, () => {
  let demo: DemoStdio;
  before(async () => {
    demo = await startDemoStdio();
  });
  after(async () => {
    const exit = await demo?.close();
    // Closing stdin ends the server cleanly.
    assert.deepEqual(exit, { code: 0, signal: null });
    // stdout carried JSON-RPC only.
    assert.deepEqual(demo.garbage, [], 'non-JSON lines on stdout');
  });

  for (const s of SCENARIOS) test(s.name, s.todo ? { todo: s.todo } : {}, () => s.run(demo));
});

test('stdio: a line that is not JSON does not stop the server', async (t) => {
  const demo = await startDemoStdio({ t });
  demo.sendLine('this is not json');
  demo.sendLine('{"jsonrpc":"2.0","id":"half');
  const r = ok(await callTool(demo, 'greet', { name: 'still here' }), 'greet after garbage');
  assert.deepEqual(r.content, [{ type: 'text', text: 'Hello, still here!' }]);
  assert.equal(demo.child.exitCode, null, 'still running');
});

test('stdio: the store path is created on demand, and the process exits 0 when stdin closes', async (t) => {
  const store = tempStorePath(t).replace(/tasks\.json$/, 'deep/er/tasks.json');
  const demo = await startDemoStdio({ t, store });
  ok(await callTool(demo, 'slow_compute', { seconds: 5 }), 'create');
  demo.endInput();
  const exit = await demo.close();
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.equal(demo.stderr().includes('    at '), false, 'no stack trace on stderr');
});
