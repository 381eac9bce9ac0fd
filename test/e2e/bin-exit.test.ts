// How the bin ends a process (src/bin.ts exitNow): as soon as the command is done, with its 'exit'
// handlers run and its output whole, not when Node's event loop empties (Node would first finish
// V8's pending garbage collection work and tear the heap down). Each case is a real process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { BIN, childEnv, newHome, parseJsonDoc, startDemo, type DemoServer } from '../helpers/cli.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** A preload that reports, on stderr, each of the process's ending events as it happens. */
const MARKERS = "process.on('beforeExit', () => process._rawDebug('EVENT beforeExit')); process.on('exit', (c) => process._rawDebug('EVENT exit ' + c));";
const preload = { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(MARKERS)}` };

/** A run whose stdout nobody reads for `readAfterMs`, so a large output fills the pipe first. */
async function runWithLateReader(home: string, args: string[], readAfterMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(home, preload), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  child.stdout.pause();
  setTimeout(() => child.stdout.on('data', (d: Buffer) => (stdout += d)).resume(), readAfterMs);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

const events = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('EVENT '));

describe('the bin ends the process as soon as the command is done', () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo.stop();
  });

  test('every kind of command: its exit code, its exit handlers run, and no wait for the event loop to empty', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'web', '--url', demo.url]);
    const called = await h.run(['--json', 'call', 'web', 'slow_compute', 'seconds=60', '--detach'], { env: preload });
    assert.equal(called.code, 0, called.stderr);
    const { taskId } = parseJsonDoc(called.stdout) as { taskId: string };
    const cases: Array<{ args: string[]; code: number; out: RegExp }> = [
      { args: ['--help'], code: 0, out: /Usage: mcp-tasks/ }, // printed from the build's snapshot
      { args: ['--version'], code: 0, out: /\d+\.\d+\.\d+/ },
      { args: ['--json', 'get', taskId], code: 0, out: /"status":"working"/ },
      { args: ['list'], code: 0, out: /slow_compute/ },
      { args: ['get', 'no-such-task-anywhere'], code: 1, out: /^$/ }, // invalid input: no such task in the vault
      { args: ['--no-such-flag'], code: 1, out: /^$/ },
    ];
    for (const c of cases) {
      const r = await h.run(c.args, { env: preload }); // NODE_OPTIONS: a process of its own
      assert.equal(r.code, c.code, `${c.args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, c.out, c.args.join(' '));
      assert.deepEqual(events(r.stderr), [`EVENT exit ${c.code}`], `${c.args.join(' ')}: only 'exit', never 'beforeExit' (emitted once the loop has emptied)`);
    }
    assert.deepEqual(events(called.stderr), ['EVENT exit 0']);
  });

  test('an output larger than the pipe holds reaches a reader that starts late, whole', async () => {
    const h = newHome();
    // 3,000 records: `list --all --json` writes about 1.5 MB, far more than a pipe's 64 KiB.
    const seeded = spawnSync(process.execPath, [join(root, 'scripts', 'bench.mjs'), 'seed', h.dir, '3000'], { encoding: 'utf8', env: { ...process.env, MCP_TASKS_NO_KEYCHAIN: '1', CI: '1' } });
    assert.equal(seeded.status, 0, seeded.stderr);
    const r = await runWithLateReader(h.dir, ['--json', 'list', '--all'], 300);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.length > 256 * 1024, `a large output (${r.stdout.length} bytes)`);
    assert.equal((parseJsonDoc(r.stdout) as unknown[]).length, 3000);
    assert.deepEqual(events(r.stderr), ['EVENT exit 0']);
  });
});
