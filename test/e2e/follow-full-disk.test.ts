// A full disk while following a task (`call` without --detach, `watch`): the terminal result was
// fetched but cannot be written to the vault. It is printed all the same, the command says the
// handle is kept, and exits with the task's own code (a warning on stderr, `warnings` in --json);
// the record stays active, so a later `get` fetches the result again and stores it. The disk fills
// (for the CLI process only, see full-disk-preload.ts) as the terminal tasks/get answer passes the proxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { homeWithServer, parseJsonDoc, startDemo, tempDir } from '../helpers/cli.js';
import { methodOf, startProxy } from '../helpers/proxy.js';

const PRELOAD = pathToFileURL(fileURLToPath(new URL('../helpers/full-disk-preload.js', import.meta.url))).href;

async function fullDiskAtCompletion() {
  const demo = await startDemo();
  const flag = join(tempDir('mcp-tasks-full-'), 'disk-is-full');
  const proxy = await startProxy(demo.url, {
    replace: (req, upstream) => {
      const status = (upstream.message?.result as { status?: string } | undefined)?.status;
      if (methodOf(req.body) === 'tasks/get' && status === 'completed') writeFileSync(flag, '');
      return undefined;
    },
  });
  const env = { NODE_OPTIONS: `--import=${PRELOAD}`, MCP_TEST_FULL_DISK_FLAG: flag, MCP_TASKS_RETRY: '0' };
  return { demo, proxy, flag, env, close: async () => (await proxy.close(), await demo.stop()) };
}

test('call: the result fetched at a full disk is printed, the handle kept, exit 0; a later get stores it', { timeout: 180_000 }, async () => {
  const f = await fullDiskAtCompletion();
  try {
    const h = await homeWithServer('web', f.proxy.url);
    const r = await h.run(['call', 'web', 'slow_compute', 'seconds=1', '--label', 'job=full'], { env: f.env });
    assert.ok(existsSync(f.flag), 'the disk filled up as the task completed');
    rmSync(f.flag);
    assert.equal(r.code, 0, `the task's own exit code: ${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /slow_compute on web: completed/);
    assert.match(r.stdout, /Computed slow_compute/);
    assert.match(r.stderr, /warning: the vault could not store this result/);
    assert.match(r.stderr, /the handle is kept/);
    assert.match(r.stderr, /`mcp-tasks get [\w-]+`/);
    assert.doesNotMatch(r.stderr, /unexpected error/);

    const before = parseJsonDoc((await h.ok(['--json', 'show', 'full'])).stdout);
    assert.equal(before.phase, 'active', 'the record still holds the handle as active');
    assert.equal(before.result, undefined);
    const g = await h.run(['get', 'full']);
    assert.equal(g.code, 0, g.stderr);
    assert.match(g.stdout, /Computed slow_compute/);
    const after = parseJsonDoc((await h.ok(['--json', 'show', 'full'])).stdout);
    assert.equal(after.phase, 'terminal');
    assert.ok(after.result);
  } finally {
    await f.close();
  }
});

test('watch --json: the result is in the document, with the warning; the record stays active', { timeout: 180_000 }, async () => {
  const f = await fullDiskAtCompletion();
  try {
    const h = await homeWithServer('web', f.proxy.url);
    await h.ok(['call', 'web', 'slow_compute', 'seconds=1', '--detach', '--label', 'job=watched']);
    // --poll: the disk fills as the proxy passes the completed tasks/get answer.
    const r = await h.run(['--json', 'watch', '--poll', 'watched'], { env: f.env });
    assert.ok(existsSync(f.flag), 'the disk filled up as the task completed');
    rmSync(f.flag);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const lines = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { status: string; result?: unknown; warnings?: string[] });
    const last = lines[lines.length - 1]!;
    assert.equal(last.status, 'completed');
    assert.ok(last.result, 'the fetched result is printed');
    assert.match(r.stderr, /could not store this result/);
    assert.equal(parseJsonDoc((await h.ok(['--json', 'show', 'watched'])).stdout).phase, 'active');
  } finally {
    await f.close();
  }
});
