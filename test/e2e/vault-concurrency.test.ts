// Many writers at once, and what lands on disk: 16 concurrent `call --detach` processes leave
// exactly 16 records; no file ever written under the home (vault.json, vault.key, servers.json,
// lock and temp files, sampled while the writers run) nor the demo server's store holds a taskId,
// the bearer token or an argument value.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { addHttpServer, newHome, parseJsonDoc, startDemo, type CliResult, type DemoServer } from '../helpers/cli.js';
import { countTool, leaks, recordFiles } from '../helpers/vault-helpers.js';

describe('concurrent writers and secrets on disk', { concurrency: 2, timeout: 180_000 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('16 concurrent `call --detach` processes leave exactly 16 records', async () => {
    // A server of its own, so that its store counts this test's tasks only.
    const own = await startDemo();
    const h = newHome();
    const N = 16;
    let runs: CliResult[];
    try {
      await addHttpServer(h, 'web', own.url);
      runs = await Promise.all(
        Array.from({ length: N }, (_, i) => h.run(['call', 'web', 'slow_compute', 'seconds=60', '--detach', '--json', '--label', `n=${i}`], { timeoutMs: 120_000, spawn: true })),
      );
      assert.equal(countTool(own.store, 'slow_compute'), N, 'the server created exactly one task per call');
    } finally {
      await own.stop();
    }
    runs.forEach((r, i) => assert.equal(r.code, 0, `writer ${i}: ${r.stderr}`));
    const printed = runs.map((r) => parseJsonDoc(r.stdout).taskId as string);
    assert.equal(new Set(printed).size, N, 'every process got its own task');

    const list = await h.run(['list', '--json', '--all']);
    assert.equal(list.code, 0, list.stderr);
    const recs = parseJsonDoc(list.stdout) as Array<{ taskId: string; opId: string; phase: string; labels: Record<string, string> }>;
    assert.equal(recs.length, N, 'no record lost to a concurrent read-modify-write');
    assert.deepEqual(recs.map((r) => r.taskId).sort(), [...printed].sort(), 'each printed handle is in the vault');
    assert.deepEqual(
      recs.map((r) => Number(r.labels.n)).sort((a, b) => a - b),
      Array.from({ length: N }, (_, i) => i),
    );
    assert.equal(new Set(recs.map((r) => r.opId)).size, N);
    for (const r of recs) assert.equal(r.phase, 'active');
    assert.equal(existsSync(join(h.dir, 'vault.json.lock')), false, 'the lock is released');
    assert.deepEqual(readdirSync(h.dir).filter((f) => f.endsWith('.tmp')), [], 'no temp file left behind');
  });

  test('no taskId, bearer token or argument value in any file written under the home or in the demo store', async (t) => {
    const h = newHome();
    const token = `tok-SECRET-${randomBytes(12).toString('hex')}`;
    const arg = `SECRET-ARG-xyz-${randomBytes(6).toString('hex')}`;
    const env = { MCP_TEST_BEARER: token };
    const rec = recordFiles(h.dir);
    const all: CliResult[] = [];
    const run = async (args: string[], expect: number | number[] = 0) => {
      const r = await h.run(args, { env, timeoutMs: 60_000 });
      all.push(r);
      const ok = Array.isArray(expect) ? expect : [expect];
      assert.ok(ok.includes(r.code ?? -1), `${args.join(' ')} exited ${r.code}\n${r.stderr}`);
      return r;
    };
    let seen: Map<string, Buffer[]>;
    const taskIds: string[] = [];
    try {
      await run(['server', 'add', 'web', '--url', demo.url, '--bearer-env', 'MCP_TEST_BEARER', '--header', 'X-Team: vault-tests']);
      const calls = await Promise.all(
        [0, 1, 2, 3].map((i) => run(['call', 'web', 'slow_compute', 'seconds=600', `label=${arg}`, '--detach', '--json', '--label', `job=j${i}`])),
      );
      for (const c of calls) taskIds.push(parseJsonDoc(c.stdout).taskId as string);
      // A completed one too: its result (which echoes the argument) is persisted in the vault.
      const done = await run(['call', 'web', 'slow_compute', 'seconds=0', `label=${arg}`, '--json']);
      taskIds.push(parseJsonDoc(done.stdout).taskId as string);
      assert.match(done.stdout, new RegExp(arg), 'the argument really travels (positive control)');
      await run(['get', 'j0']);
      await run(['-v', 'get', 'j1']);
      await run(['watch', 'j2', '--timeout', '1s'], 124);
      await run(['cancel', 'j3']);
      await run(['show', 'j0']);
      await run(['list', '--all']);
      await run(['server', 'show', 'web']);
    } finally {
      seen = rec.stop();
    }
    const needles = [token, arg, ...taskIds, ...taskIds.map((t) => t.slice(0, 12))];
    const names = new Set([...seen.keys()].map((p) => basename(p)));
    for (const expected of ['vault.json', 'vault.key', 'servers.json']) assert.ok(names.has(expected), `${expected} was sampled`);
    let versions = 0;
    for (const [path, contents] of seen) {
      for (const bytes of contents) {
        versions++;
        assert.deepEqual(leaks(bytes, needles), [], `${path} holds a secret`);
      }
    }
    const store = readFileSync(demo.store);
    assert.deepEqual(leaks(store, [token, arg, ...taskIds]), [], 'the demo store holds a secret');
    // The bearer token never reaches output either, and -v diagnostics redact task ids.
    for (const r of all) assert.deepEqual(leaks(Buffer.from(r.stdout + r.stderr), [token]), [], 'the token was printed');
    // Lock and temp files live for milliseconds; those the sampler caught were checked above.
    t.diagnostic(`files sampled under the home: ${[...names].sort().join(', ')}`);
    assert.ok(versions >= 5, `file versions checked: ${versions}`);
  });

  test('-v diagnostics carry no taskId and no token', async () => {
    const h = newHome();
    const token = `tok-SECRET-${randomBytes(12).toString('hex')}`;
    const env = { MCP_TEST_BEARER: token };
    await addHttpServer(h, 'web', demo.url, ['--bearer-env', 'MCP_TEST_BEARER']);
    const call = await h.run(['-v', 'call', 'web', 'slow_compute', 'seconds=600', '--detach', '--json'], { env });
    assert.equal(call.code, 0, call.stderr);
    const taskId = parseJsonDoc(call.stdout).taskId as string;
    const get = await h.run(['-v', 'get', '--', taskId], { env });
    assert.equal(get.code, 0, get.stderr);
    for (const [name, text] of [['call', call.stderr], ['get', get.stderr]] as const) {
      assert.deepEqual(leaks(Buffer.from(text), [token, taskId, taskId.slice(0, 12)]), [], `${name} -v stderr`);
    }
  });

  test(
    'concurrent `server add` of 8 names keeps all 8 (servers.json read-modify-write)',
    {
    },
    async () => {
      const h = newHome();
      const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => h.run(['server', 'add', `s${i}`, '--url', `http://127.0.0.1:9/mcp${i}`])));
      runs.forEach((r, i) => assert.equal(r.code, 0, `server add s${i}: ${r.stderr}`));
      const list = await h.run(['server', 'list', '--json']);
      const names = (parseJsonDoc(list.stdout) as Array<{ name: string }>).map((e) => e.name).filter((n) => n !== 'demo').sort();
      assert.deepEqual(names, Array.from({ length: 8 }, (_, i) => `s${i}`));
    },
  );
});
