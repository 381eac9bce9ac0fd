// The bundle takes Node's built-ins through process.getBuiltinModule (scripts/builtins-direct.mjs;
// test/unit/cli/bundle-startup.test.ts checks the chunks' text): no built-in's ES module facade is
// built on `list`'s start, and on a Node without getBuiltinModule (20.12 to 20.15) the fallback,
// createRequire, still finds every one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, childEnv, newHome, tempDir, parseJsonDoc, startDemo, type DemoServer } from '../helpers/cli.js';

/** NODE_OPTIONS preloading `code` (a data: URL module) into the CLI's process. */
const preload = (code: string) => ({ NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(code)}` });

/**
 * Modules a `list` needs none of: loaded, they mean a namespace read every export of fs or util
 * (their getters), the stdin stream was made, or commander required child_process at load.
 */
const FACADE_ONLY = ['NativeModule internal/fs/promises', 'NativeModule internal/readline/interface', 'NativeModule internal/util/parse_args/parse_args', 'NativeModule child_process'];

describe('the bundle takes built-ins without their ES module facade', () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo.stop();
  });

  test('`list` (stdin /dev/null, as under cron or CI) loads none of what a facade or commander would', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'web', '--url', demo.url]);
    await h.ok(['call', 'web', 'slow_compute', 'seconds=60', '--detach', '--label', 'k=v']);
    const env = childEnv(h.dir, preload("process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(process.moduleLoadList) + '\\n'));"));
    const child = spawn(process.execPath, [BIN, 'list', '--label', 'k=v'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const [code] = (await once(child, 'close')) as [number | null];
    const r = { code, stdout, stderr };
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /slow_compute/);
    const loaded: string[] = JSON.parse(/^LOADED (.*)$/m.exec(r.stderr)![1]!);
    assert.ok(loaded.includes('NativeModule crypto'), 'the list really opened the vault');
    // What Node's own ES module loader brings counts for nothing (Node 20 reads modules through fs/promises).
    const dir = tempDir();
    writeFileSync(join(dir, 'other.mjs'), 'export const one = 1;\n');
    writeFileSync(join(dir, 'bare.mjs'), "await import('./other.mjs'); process.stdout.write(JSON.stringify(process.moduleLoadList));\n");
    const bare = spawnSync(process.execPath, [join(dir, 'bare.mjs')], { encoding: 'utf8' });
    const loaderOwn: string[] = JSON.parse(bare.stdout);
    assert.deepEqual(FACADE_ONLY.filter((m) => loaded.includes(m) && !loaderOwn.includes(m)), []);
  });

  test('on a Node without process.getBuiltinModule, every path still finds its built-ins', async () => {
    const env = preload('delete process.getBuiltinModule;');
    const h = newHome();
    const version = await h.run(['--version'], { env });
    assert.equal(version.code, 0, version.stderr);
    await h.ok(['server', 'add', 'web', '--url', demo.url], { env });
    const call = parseJsonDoc((await h.ok(['--json', 'call', 'web', 'slow_compute', 'seconds=60', '--detach', '--label', 'k=v'], { env })).stdout);
    const ref = String(call.taskId).slice(0, 12);
    const got = await h.ok(['--json', 'get', ref], { env });
    assert.equal(parseJsonDoc(got.stdout).status, 'working');
    const listed = await h.ok(['list', '--label', 'k=v'], { env });
    assert.match(listed.stdout, /slow_compute/);
    const cancelled = await h.run(['--json', 'cancel', ref], { env });
    assert.equal(cancelled.code, 0, cancelled.stderr);
    const exported = await h.run(['export', ref, '--out', join(h.dir, 'out.bundle')], { env: { ...env, MCP_TASKS_EXPORT_KEY: 'correct horse battery staple' } });
    assert.equal(exported.code, 0, exported.stderr);
    // The CLI's own words: no stack trace of a built-in that could not be found.
    for (const r of [version, got, listed, cancelled, exported]) assert.doesNotMatch(r.stderr, /getBuiltinModule|is not a function|ERR_/);
  });
});
