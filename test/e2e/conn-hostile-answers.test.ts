// Hostile answers through a real proxy in front of the demo server (issue 9 points 5 and 8):
// every answer is read within size bounds, --timeout holds for a request in flight, and an
// interrupted submission is in doubt (exit 10) even on the first call after `server add`. The
// proxy forwards each request before it misbehaves, so the server really creates the task:
// the vault must then hold a record of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, startDemo, type TestHome } from '../helpers/cli.js';
import { startProxy, type HostileAnswer, type ProxiedRequest } from '../helpers/proxy.js';
import { countTool } from '../helpers/vault-helpers.js';

const methodOf = (req: ProxiedRequest): string | undefined => {
  try {
    return (JSON.parse(req.body.toString('utf8')) as { method?: string }).method;
  } catch {
    return undefined;
  }
};

type Rec = { taskId: string | null; phase: string; opId: string };
async function records(h: TestHome): Promise<Rec[]> {
  const list = await h.run(['list', '--all', '--json'], { timeoutMs: 120_000 });
  assert.equal(list.code, 0, list.stderr);
  return parseJsonDoc(list.stdout) as Rec[];
}

/** A proxy that turns the answer to one method hostile; everything else passes. */
async function hostileOn(method: string, answer: HostileAnswer) {
  const demo = await startDemo();
  let seen = 0;
  const proxy = await startProxy(demo.url, {
    hostile: (req) => {
      if (methodOf(req) !== method) return undefined;
      seen += 1;
      return answer;
    },
  });
  return { demo, proxy, seen: () => seen, stop: async () => { await proxy.close(); await demo.stop(); } };
}

for (const [name, answer, bound] of [
  ['an oversized JSON body (20 MiB)', { kind: 'oversized', bytes: 20 * 1024 * 1024 }, /16 MiB/],
  ['an SSE data: line that never ends', { kind: 'endless-sse' }, /16 MiB.*one SSE event/],
] as const) {
  test(`tools/call answered with ${name}: a transport error naming the bound, the task in doubt (exit 10), no crash`, { timeout: 180_000 }, async () => {
    const s = await hostileOn('tools/call', answer);
    try {
      const h = await homeWithServer('web', s.proxy.url);
      const r = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach'], { timeoutMs: 150_000 });
      assert.equal(r.code, 10, `exit 10 (in doubt), got ${r.code} / ${r.signal}: ${r.stderr.slice(0, 600)}`);
      assert.match(r.stderr, bound, 'the error names the bound');
      assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
      assert.equal(s.seen(), 1);
      assert.equal(countTool(s.demo.store, 'slow_compute'), 1, 'the server created the task');
      const recs = await records(h);
      assert.equal(recs.length, 1);
      assert.equal(recs[0]!.phase, 'in-doubt', 'the vault keeps the submission as in doubt');
    } finally {
      await s.stop();
    }
  });
}

test('watch --timeout on a silent stream: returns at the timeout (exit 124), the handle kept', { timeout: 180_000 }, async () => {
  const demo = await startDemo();
  let silent = false;
  const proxy = await startProxy(demo.url, { hostile: (req) => (silent && methodOf(req) === 'tasks/get' ? { kind: 'silent' } : undefined) });
  try {
    const h = await homeWithServer('web', proxy.url);
    const call = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--json'], { timeoutMs: 120_000 });
    assert.equal(call.code, 0, call.stderr);
    const { taskId } = parseJsonDoc(call.stdout) as { taskId: string };
    silent = true;
    // The request timeout is 30 s: a watch that waited for it would be killed by this run's limit.
    const w = await h.run(['watch', '--timeout', '2s', '--', taskId], { timeoutMs: 28_000 });
    assert.equal(w.code, 124, `exit 124, got ${w.code}: ${w.stderr.slice(0, 400)}`);
    const recs = await records(h);
    assert.equal(recs.length, 1);
    assert.equal(recs[0]!.taskId, taskId, 'the handle is kept');
    assert.notEqual(recs[0]!.phase, 'lost');
  } finally {
    await proxy.close();
    await demo.stop();
  }
});

test('SIGTERM during an in-flight tools/call on the first call after `server add`: in doubt, exit 10', { timeout: 180_000 }, async () => {
  const s = await hostileOn('tools/call', { kind: 'silent' });
  try {
    const h = await homeWithServer('web', s.proxy.url);
    const p = h.spawn(['call', 'web', 'slow_compute', 'seconds=600', '--detach'], { timeoutMs: 150_000 });
    // In flight: the server has created the task and its answer is being held.
    while (countTool(s.demo.store, 'slow_compute') < 1 && p.child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    p.kill('SIGTERM');
    const r = await p.done;
    assert.equal(r.code, 10, `exit 10 (in doubt), got ${r.code} / ${r.signal}: ${r.stderr.slice(0, 600)}`);
    assert.equal(countTool(s.demo.store, 'slow_compute'), 1);
    const recs = await records(h);
    assert.equal(recs.length, 1);
    assert.equal(recs[0]!.phase, 'in-doubt');
  } finally {
    await s.stop();
  }
});
