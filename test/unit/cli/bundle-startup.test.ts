// What keeps the bundle's start-up light (peak RSS of `get`, README: Performance): the launcher's
// resolve hook for the bundle's own chunks (bin/chunk-resolve.js) and the require() banner only in
// the chunks that can call require (scripts/build.mjs). Runs against the built bundle (`npm run build`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bundle = join(root, 'build', 'bundle');
const bundleUrl = pathToFileURL(`${bundle}/`).href;

type Resolved = { url: string; format?: string; shortCircuit?: boolean };
type Resolve = (specifier: string, context: { parentURL?: string }, next: (specifier: string, context: { parentURL?: string }) => Resolved) => Resolved;

async function chunkResolver(dir: string): Promise<Resolve> {
  const mod = (await import(pathToFileURL(join(root, 'bin', 'chunk-resolve.js')).href)) as { chunkResolver: (dir: string) => Resolve };
  return mod.chunkResolver(dir);
}

test('a sibling chunk imported from inside the bundle resolves to its URL without the default resolver', async () => {
  const resolve = await chunkResolver(bundleUrl);
  const next = (specifier: string) => ({ url: `next:${specifier}` });
  assert.deepEqual(resolve('./chunk-ABC123.js', { parentURL: `${bundleUrl}get-XYZ.js` }, next), { url: `${bundleUrl}chunk-ABC123.js`, format: 'module', shortCircuit: true });
  // Anything else is the default resolver's: built-ins, packages, other directories, other parents.
  for (const [specifier, parentURL] of [
    ['node:fs', `${bundleUrl}bin.js`],
    ['@napi-rs/keyring', `${bundleUrl}bin.js`],
    ['../src/x.js', `${bundleUrl}bin.js`],
    ['./sub/chunk.js', `${bundleUrl}bin.js`],
    ['./chunk-ABC123.json', `${bundleUrl}bin.js`],
    ['./chunk-ABC123.js', pathToFileURL(join(root, 'bin', 'mcp-tasks.js')).href],
    ['./chunk-ABC123.js', `${bundleUrl}nested/x.js`],
    ['./chunk-ABC123.js', undefined],
  ] as const) {
    assert.deepEqual(resolve(specifier, parentURL === undefined ? {} : { parentURL }, next), { url: `next:${specifier}` }, `${specifier} from ${String(parentURL)}`);
  }
});

test('the launcher links the bundle without a filesystem resolution per chunk where Node has module.registerHooks', () => {
  // Counts path.resolve calls on bundle chunk paths: the default resolver makes two per chunk
  // import (realpathSync and pathToFileURL); bin.js itself, imported from bin/, still takes it.
  const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-bundle-startup-'));
  const preload = join(dir, 'count-resolves.cjs');
  writeFileSync(
    preload,
    `const path = require('path');
const resolve = path.resolve;
let chunks = 0;
path.resolve = function (...args) {
  const p = String(args[args.length - 1] ?? '');
  if (/[\\\\/]build[\\\\/]bundle[\\\\/][\\w.-]+\\.js$/.test(p) && !/[\\\\/]bin\\.js$/.test(p)) chunks++;
  return resolve.apply(this, args);
};
process.on('exit', () => process.stderr.write('chunk-resolutions=' + chunks + '\\n'));
`,
  );
  const r = spawnSync(process.execPath, ['-r', preload, join(root, 'bin', 'mcp-tasks.js'), '--version'], { encoding: 'utf8', env: { ...process.env, MCP_TASKS_HOME: dir, NO_COLOR: '1' } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^mcp-tasks /);
  const count = Number(/chunk-resolutions=(\d+)/.exec(r.stderr)?.[1]);
  if (typeof (nodeModule as { registerHooks?: unknown }).registerHooks === 'function') assert.equal(count, 0, 'no chunk went through the default resolver');
  // Node 20 (no registerHooks): the default resolver, whose path work the count sees.
  else assert.ok(count > 0, `the default resolver resolved the chunks (${count})`);
});

test('the require() banner is only in the chunks that name require, and in the one with esbuild\'s __require', () => {
  const banner = "import { createRequire as __mcpTasksCreateRequire } from 'node:module'; const require = __mcpTasksCreateRequire(import.meta.url);";
  const files = readdirSync(bundle).filter((f) => f.endsWith('.js'));
  let withRuntime = 0;
  let without = 0;
  for (const name of files) {
    const text = readFileSync(join(bundle, name), 'utf8');
    const hasBanner = text.startsWith(banner);
    const body = hasBanner ? text.slice(banner.length) : text;
    if (/\bvar __require\b/.test(body)) {
      withRuntime++;
      assert.ok(hasBanner, `${name} defines __require: it keeps the banner`);
    }
    if (!/\brequire\b/.test(body)) {
      assert.ok(!hasBanner, `${name} never names require: no banner`);
      without++;
    }
    assert.ok(!body.includes('__mcpTasksCreateRequire'), `${name}: the banner at most once, at the top`);
  }
  assert.equal(withRuntime, 1, 'one chunk holds esbuild\'s __require');
  assert.ok(without > files.length / 2, `most chunks carry no banner (${without} of ${files.length})`);
});
