// The published package, as a user gets it: `npm pack` (which runs prepack: a clean src-only
// build) on a copy of the project, `npm install <tarball>` into an empty folder, then the
// installed `mcp-tasks` bin runs --version, --help and a call on the built-in demo server, whose
// stdio server is the installed package itself. Slow (two builds and an install), never timed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const project = fileURLToPath(new URL('../../../', import.meta.url));
const version = (JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { version: string }).version;
const work = mkdtempSync(join(tmpdir(), 'mcp-tasks-pack-'));
after(() => {
  if (!process.env.MCP_TASKS_KEEP_TEST_DIRS) rmSync(work, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (no time limit: packing builds twice on a loaded machine). */
function run(file: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: opts.cwd, env: opts.env ?? cleanEnv(), maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/**
 * Our environment without what `npm test` injects (npm_* settings, the runner's NODE_* hooks,
 * the CLI's own variables); PATH starts with the directory of the Node running this test, so the
 * installed bin's `#!/usr/bin/env node` runs on the same Node line as the suite.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) || k.startsWith('MCP_TASKS_') || k.startsWith('NODE_TEST') || k === 'NODE_OPTIONS' || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  env.PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
  env.CI = '1';
  env.NO_COLOR = '1';
  return { ...env, ...extra };
}

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });

let tarball = '';
let packed: string[] = [];
let installed = '';

before(async () => {
  // A copy, so prepack's clean build never touches the build/ the rest of the suite runs from.
  const copy = join(work, 'project');
  const skip = new Set(['node_modules', 'build', '.git', 'test', '.mcp-tasks-home']);
  cpSync(project, copy, { recursive: true, filter: (src) => !skip.has(relative(project, src).split(/[\\/]/)[0]!) });
  symlinkSync(join(project, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const pack = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: copy });
  assert.equal(pack.code, 0, `npm pack failed:\n${pack.stderr.slice(-4000)}`);
  const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(work, info!.filename);
  packed = info!.files.map((f) => f.path).sort();

  const consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'pack-consumer', version: '1.0.0', private: true }));
  // --prefer-offline: the dependencies are in npm's cache from the project's own install.
  const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: consumer });
  assert.equal(install.code, 0, `npm install of the tarball failed:\n${install.stderr.slice(-4000)}`);
  installed = join(consumer, 'node_modules', 'mcp-tasks');
});

test('the tarball holds the launcher, the compiled src, LICENSE and README: no tests, no TypeScript sources, no source maps', () => {
  for (const must of ['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json', 'bin/mcp-tasks.js', 'build/bundle/bin.js']) assert.ok(packed.includes(must), `${must} missing from the tarball`);
  assert.deepEqual(
    packed.filter((p) => p.endsWith('.map') || p.endsWith('.ts') || p.startsWith('test/') || p.startsWith('build/test/') || p.startsWith('build/src/') || p.startsWith('src/')),
    [],
  );
  assert.deepEqual(
    filesUnder(installed).filter((p) => p.endsWith('.map')),
    [],
  );
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { private?: boolean; license?: string };
  assert.equal(manifest.private, undefined);
  assert.equal(manifest.license, 'MIT');
});

test('the installed bin prints its version and its help', async () => {
  const bin = join(installed, '..', '.bin', 'mcp-tasks');
  const home = mkdtempSync(join(work, 'home-'));
  const v = await run(bin, ['--version'], { cwd: work, env: cleanEnv({ MCP_TASKS_HOME: home }) });
  assert.equal(v.code, 0, v.stderr);
  assert.equal(v.stdout.split('\n')[0], `mcp-tasks ${version}`);
  assert.match(v.stdout, /^protocols: 2026-07-28 .*2025-11-25/m);
  const help = await run(bin, ['--help'], { cwd: work, env: cleanEnv({ MCP_TASKS_HOME: home }) });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: mcp-tasks /m);
  assert.match(help.stdout, /\bcall\b/);
});

test('the installed package calls a tool on its built-in demo server (the server is the installed package too)', async () => {
  const bin = join(installed, '..', '.bin', 'mcp-tasks');
  const home = mkdtempSync(join(work, 'home-'));
  const call = await run(bin, ['call', 'demo', 'greet', 'name=x'], { cwd: work, env: cleanEnv({ MCP_TASKS_HOME: home, MCP_TASKS_NO_KEYCHAIN: '1' }) });
  assert.equal(call.code, 0, call.stderr);
  assert.match(call.stdout, /^Hello, x!$/m);
});
