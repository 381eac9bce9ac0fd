// Every demo tool end to end over Streamable HTTP: the built CLI's `demo-server --http 0`,
// spoken to with raw JSON-RPC POSTs (envelope, MCP-Protocol-Version / Mcp-Method / Mcp-Name).
// The scenarios are independent tasks on one server, so they run concurrently.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readStore, startDemoHttp, type DemoHttp } from '../helpers/demo-server.js';
import { SCENARIOS } from '../helpers/demo-scenarios.js';

describe('demo-server over HTTP', { concurrency: true }, () => {
  let demo: DemoHttp;
  before(async () => {
    demo = await startDemoHttp();
  });
  after(async () => {
    const exit = await demo?.close();
    // SIGTERM is a clean shutdown.
    assert.deepEqual(exit, { code: 0, signal: null });
  });

  for (const s of SCENARIOS) test(s.name, s.todo ? { todo: s.todo } : {}, () => s.run(demo));

  test('the listening line names 127.0.0.1 and a real port; the store is a valid file', async () => {
    assert.match(demo.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.ok(demo.port > 0 && demo.port < 65536);
    readStore(demo.store);
  });

  test('responses are plain JSON with the request id, also for task-surface errors', async () => {
    const r = await demo.rpc('tasks/get', { taskId: 'nope-nope-nope' });
    assert.equal(r.status, 200);
    assert.equal(typeof r.id, 'number');
    assert.equal(r.error?.code, -32602);
    const other = await demo.rawPost('x', { 'content-type': 'application/json' });
    assert.equal(other.status, 400);
    const wrongPath = await fetch(demo.url.replace(/\/mcp$/, '/other'), { signal: AbortSignal.timeout(5000) });
    assert.equal(wrongPath.status, 404);
  });
});
