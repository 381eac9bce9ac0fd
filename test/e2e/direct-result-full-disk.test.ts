// A direct (non-task) result that arrives at a full disk: the tool ran and this answer is the only
// copy of what it returned, so it is printed whatever the vault says. The disk fills while the
// tools/call request passes the proxy (after the intent record was written, before the answer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { homeWithServer, startDemo, tempDir } from '../helpers/cli.js';
import { methodOf, startProxy } from '../helpers/proxy.js';

const PRELOAD = pathToFileURL(fileURLToPath(new URL('../helpers/full-disk-preload.js', import.meta.url))).href;

test('a direct result at a full disk is printed with a warning, not lost', { timeout: 180_000 }, async () => {
  const demo = await startDemo();
  const flag = join(tempDir('mcp-tasks-full-'), 'disk-is-full');
  const proxy = await startProxy(demo.url, {
    answer: (req) => {
      if (methodOf(req.body) === 'tools/call') writeFileSync(flag, '');
      return undefined;
    },
  });
  try {
    const h = await homeWithServer('web', proxy.url);
    const r = await h.run(['call', 'web', 'greet', 'name=Ada'], { env: { NODE_OPTIONS: `--import=${PRELOAD}`, MCP_TEST_FULL_DISK_FLAG: flag, MCP_TASKS_RETRY: '0' } });
    assert.ok(existsSync(flag), 'the disk filled up during the call');
    rmSync(flag);
    assert.match(r.stdout, /Hello, Ada!/, `the result is shown: ${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /the vault could not store this result/);
    assert.match(r.stderr, /recover [0-9a-f]{8}/);
    assert.doesNotMatch(r.stderr, /unexpected error/);
  } finally {
    await proxy.close();
    await demo.stop();
  }
});
