// What keeps the bundle's start-up light (peak RSS of `get`, docs/performance.md): bin.ts's
// resolve hook for the bundle's own chunks (src/bundle-resolve.ts), built-ins taken without their ES
// module facade, and one definition of what takes them (scripts/builtins-direct.mjs, scripts/build.mjs). Runs against the built bundle (`npm run build`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chunkResolver } from '../../../src/bundle-resolve.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bundle = join(root, 'build', 'bundle');
const bundleUrl = pathToFileURL(`${bundle}/`).href;

test('a sibling chunk imported from inside the bundle resolves to its URL without the default resolver', () => {
  const resolve = chunkResolver(bundleUrl);
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

test('past plain help, the bundle links its chunks without a filesystem resolution each where Node has module.registerHooks', () => {
  // Records the chunk paths the default resolver works on (its realpathSync and pathToFileURL both
  // call path.resolve): with the hook, only bin.js and the chunks bin.js imports statically (loaded
  // before the hook is registered); main's chunk and everything after it, never.
  const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-bundle-startup-'));
  const preload = join(dir, 'record-resolves.cjs');
  writeFileSync(
    preload,
    `const path = require('path');
const resolve = path.resolve;
const seen = new Set();
path.resolve = function (...args) {
  const m = /[\\/]build[\\/]bundle[\\/]([\\w.-]+\\.js)$/.exec(String(args[args.length - 1] ?? ''));
  if (m) seen.add(m[1]);
  return resolve.apply(this, args);
};
process.on('exit', () => process.stderr.write('default-resolved=' + [...seen].join(',') + '\\n'));
`,
  );
  const r = spawnSync(process.execPath, ['-r', preload, join(root, 'bin', 'mcp-tasks.js'), '--version'], { encoding: 'utf8', env: { ...process.env, MCP_TASKS_HOME: dir, NO_COLOR: '1' } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^mcp-tasks /);
  const resolved = (/default-resolved=(.*)/.exec(r.stderr)?.[1] ?? '').split(',').filter(Boolean);
  const binImports = new Set([...readFileSync(join(bundle, 'bin.js'), 'utf8').matchAll(/(?:from|import)\s*"\.\/([\w.-]+\.js)"/g)].map((m) => m[1]));
  assert.ok(resolved.includes('bin.js'), `the launcher's import of bin.js is the default resolver's (${resolved.join(' ')})`);
  const main = resolved.filter((f) => f.startsWith('main-'));
  if (typeof (nodeModule as { registerHooks?: unknown }).registerHooks === 'function') {
    assert.deepEqual(resolved.filter((f) => f !== 'bin.js' && !binImports.has(f)), [], 'no chunk past bin.js\'s own imports went through the default resolver');
  } else {
    // Node 20 (no registerHooks): the default resolver, whose path work the record sees.
    assert.equal(main.length, 1, `the default resolver resolved main's chunk (${resolved.join(' ')})`);
  }
});

test('built-ins and require() come from one definition of __mcpTasksBuiltin, imported by every other chunk that takes one', () => {
  // scripts/build.mjs: esbuild's chunks import it from one module, which the merge keeps once.
  const files = readdirSync(bundle).filter((f) => f.endsWith('.js'));
  const defining = files.filter((f) => readFileSync(join(bundle, f), 'utf8').includes('const __mcpTasksBuiltin='));
  assert.equal(defining.length, 1, `one chunk defines __mcpTasksBuiltin (${defining.join(' ')})`);
  const home = defining[0]!;
  const text = readFileSync(join(bundle, home), 'utf8');
  assert.equal(text.split('var __require=').length - 1, 1, `${home} holds esbuild's __require, whose require() is __mcpTasksBuiltin`);
  assert.match(text, /var __require=\(x=>typeof __mcpTasksBuiltin!=="undefined"\?__mcpTasksBuiltin/);
  let importing = 0;
  for (const name of files.filter((f) => f !== home)) {
    const body = readFileSync(join(bundle, name), 'utf8');
    assert.ok(!body.includes('var __require='), `${name}: esbuild's __require only in ${home}`);
    if (!body.includes('__mcpTasksBuiltin("node:')) continue;
    importing++;
    assert.match(body, new RegExp(`import\\{[^}]*\\bas __mcpTasksBuiltin\\b[^}]*\\}from"\\./${home.replace(/[.]/g, '\\.')}"`), `${name} imports __mcpTasksBuiltin from ${home}`);
  }
  assert.ok(importing > 5, `chunks take their built-ins from ${home} (${importing})`);
});

test('no chunk imports a Node built-in statically (node:module and namespace imports aside): each comes from __mcpTasksBuiltin', () => {
  // An import of a built-in builds its ES module namespace, running every getter of the module
  // (scripts/builtins-direct.mjs); the build rewrites them all.
  const offending: string[] = [];
  let taken = 0;
  for (const name of readdirSync(bundle).filter((f) => f.endsWith('.js'))) {
    const text = readFileSync(join(bundle, name), 'utf8');
    for (const m of text.matchAll(/import\s*([\w${},\s]*?)\s*from\s*"([^"./][^"]*)"/g)) {
      if (nodeModule.isBuiltin(m[2]!) && m[2] !== 'node:module' && !/^\*\s*as\b/.test(m[1]!)) offending.push(`${name}: ${m[0]}`);
    }
    taken += text.split('__mcpTasksBuiltin("node:').length - 1;
  }
  assert.deepEqual(offending, []);
  assert.ok(taken > 50, `the chunks take their built-ins through __mcpTasksBuiltin (${taken})`);
});

test('the bundle parses with zod\'s jitless parser: a command that validates server messages compiles no code with new Function', () => {
  // scripts/build.mjs sets zod's jitless option in zod's core module: zod would otherwise compile a
  // parser per object schema on its first parse (16 in a `get`), more work than a run's few messages.
  const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-bundle-jitless-'));
  const preload = join(dir, 'count-function.cjs');
  writeFileSync(
    preload,
    `let n = 0;
const F = globalThis.Function;
globalThis.Function = new Proxy(F, { construct(t, a, nt) { n++; return Reflect.construct(t, a, nt); }, apply(t, self, a) { n++; return Reflect.apply(t, self, a); } });
process.on('exit', () => process.stderr.write('function-compiles=' + n + '\\n'));
`,
  );
  // tools: the SDK client's initialize and tools/list over stdio, each answer checked by its schema.
  const r = spawnSync(process.execPath, ['-r', preload, join(root, 'bin', 'mcp-tasks.js'), '--json', 'tools', 'demo'], { encoding: 'utf8', env: { ...process.env, MCP_TASKS_HOME: dir, NO_COLOR: '1', MCP_TASKS_NO_KEYCHAIN: '1' } });
  assert.equal(r.status, 0, r.stderr);
  assert.ok((JSON.parse(r.stdout) as { name: string }[]).some((tool) => tool.name === 'slow_compute'), r.stdout);
  assert.equal(/function-compiles=(\d+)/.exec(r.stderr)?.[1], '0', r.stderr);
});

/** The chunk that holds a lazily loaded source module: the last of its steps (scripts/build.mjs writes load-steps.json). */
function chunkOf(source: string): string {
  const steps = JSON.parse(readFileSync(join(bundle, 'load-steps.json'), 'utf8')) as Record<string, string[]>;
  const chunk = steps[source]?.at(-1);
  assert.ok(chunk, `load-steps.json names the chunk of ${source}`);
  return chunk;
}

/** The bundle's chunks a chunk loads before it runs: its static imports, transitively (dynamic import() is loaded only when used). */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const m of readFileSync(join(bundle, name), 'utf8').matchAll(/(?:from\s*|import\s*)"\.\/([\w.-]+\.js)"/g)) visit(m[1]!);
  };
  visit(entry);
  return seen;
}

test('`list` and `show` load no zod (so none of the SDK\'s schemas): they only print what the store holds, and zod alone costs ~13 ms of a start', () => {
  const entry = chunkOf('src/cli/commands/vault-view.ts');
  const loaded = staticClosure(entry);
  assert.ok(loaded.size > 5, `the closure follows imports (${loaded.size} chunks)`);
  // scripts/merge-chunks.mjs: esbuild alone made this 44 chunks (and 48 on the team store).
  assert.ok(loaded.size <= 20, `\`list\` loads few chunks: each costs about half a millisecond (${loaded.size})`);
  for (const name of loaded) {
    const text = readFileSync(join(bundle, name), 'utf8');
    assert.doesNotMatch(text, /\$ZodType|ZodError/, `${name} (loaded by ${entry}) holds zod`);
  }
  // The check itself: `get` does load zod (it validates server messages).
  const get = chunkOf('src/cli/commands/get.ts');
  assert.ok([...staticClosure(get)].some((n) => /\$ZodType|ZodError/.test(readFileSync(join(bundle, n), 'utf8'))), 'get\'s closure holds zod');
});

test('the build finds an import cycle among chunks, and only the kind it is asked about (scripts/builtins-direct.mjs importCycle)', async () => {
  // The merge and the built-in rewrite both stop the build on one (a const taken at a chunk's top
  // could be read before that chunk ran); this is the check they share.
  type ImportCycle = (files: Iterable<string>, importsOf: (file: string) => string[], counts?: (cycle: string[]) => boolean) => string[] | undefined;
  const { importCycle } = (await import(pathToFileURL(join(root, 'scripts', 'builtins-direct.mjs')).href)) as { importCycle: ImportCycle };
  const graph: Record<string, string[]> = { 'bin.js': ['a.js'], 'a.js': ['b.js', 'd.js'], 'b.js': ['c.js'], 'c.js': ['a.js'], 'd.js': [] };
  const importsOf = (f: string) => graph[f] ?? [];
  assert.deepEqual(importCycle(Object.keys(graph), importsOf), ['a.js', 'b.js', 'c.js', 'a.js']);
  assert.equal(importCycle(Object.keys(graph), importsOf, (cycle) => cycle.includes('d.js')), undefined);
  assert.equal(importCycle(['d.js'], importsOf), undefined);
  graph['c.js'] = [];
  assert.equal(importCycle(Object.keys(graph), importsOf), undefined, 'no cycle once c.js stops importing a.js');
});
