// `node scripts/bench.mjs seed <home> <n>` (what the benchmarks and anyone rerunning them seed a
// vault with) writes records the CLI lists: it opens the vault as the CLI does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseJsonDoc, runCli, tempHome } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('bench seed adds records that list --all --json shows', async () => {
  const home = tempHome();
  const seeded = spawnSync(process.execPath, [join(root, 'scripts', 'bench.mjs'), 'seed', home, '7'], { encoding: 'utf8', env: { ...process.env, MCP_TASKS_NO_KEYCHAIN: '1', CI: '1' } });
  assert.equal(seeded.status, 0, seeded.stderr);
  const listed = await runCli(['list', '--all', '--json'], { home });
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal((parseJsonDoc(listed.stdout) as unknown[]).length, 7);
});
