// A call on a server whose tool list is cached (by `server check` or an earlier call, within
// TOOLS_CACHE_TTL_MS) sends one request before it has the handle: tools/call. Counted by the
// demo server's own request log.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, startDemo, type DemoServer } from '../helpers/cli.js';

let demo: DemoServer;
before(async () => {
  demo = await startDemo({ verbose: true });
});
after(async () => {
  await demo.stop();
});

/** The methods the server saw while `step` ran (barrier requests excluded). */
async function methodsDuring(step: () => Promise<unknown>): Promise<string[]> {
  const from = (await demo.count('tools/call'), demo.requests().length);
  await step();
  await demo.count('tools/call');
  return demo.requests().slice(from).map((r) => r.method).filter((m) => !m.startsWith('x-barrier/'));
}

test('after `server check`, call --detach sends exactly one request: tools/call', async () => {
  const h = await homeWithServer('cached', demo.url);
  await h.ok(['server', 'check', 'cached']);
  const seen = await methodsDuring(async () => {
    const r = await h.ok(['--json', 'call', 'cached', 'slow_compute', 'seconds=3600', '--detach']);
    assert.match(parseJsonDoc(r.stdout).taskId, /\S/);
  });
  assert.deepEqual(seen, ['tools/call']);
});

test('the first call on a server lists its tools once; the next call reuses them; server check lists afresh', async () => {
  const h = await homeWithServer('learns', demo.url);
  const first = await methodsDuring(() => h.ok(['--json', 'call', 'learns', 'slow_compute', 'seconds=3600', '--detach']));
  assert.equal(first.filter((m) => m === 'tools/list').length, 1, first.join(', '));
  assert.equal(first.at(-1), 'tools/call');
  const second = await methodsDuring(() => h.ok(['--json', 'call', 'learns', 'greet', 'name=x']));
  assert.deepEqual(second, ['tools/call']);
  const check = await methodsDuring(() => h.ok(['server', 'check', 'learns']));
  assert.ok(check.includes('tools/list'), check.join(', '));
});

test('a tool the cached list does not name is looked up live before the call is refused', async () => {
  const h = await homeWithServer('unknown-tool', demo.url);
  await h.ok(['server', 'check', 'unknown-tool']);
  const seen = await methodsDuring(async () => {
    const r = await h.run(['call', 'unknown-tool', 'no_such_tool']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /has no tool "no_such_tool"/);
  });
  assert.deepEqual(seen, ['tools/list']);
});
