// Loading a module a step at a time (src/fs/load-in-steps.ts): the order, a turn of the event loop
// between steps, never a failure; and the build's load-steps.json against the bundle's own imports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadInSteps } from '../../../src/fs/load-in-steps.js';
import { STORE_COMMANDS } from '../../../src/main.js';
import { SDK_CLIENT_ENTRY } from '../../../src/session/open-session.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bundle = join(root, 'build', 'bundle');

interface Seen {
  loaded: Array<[string, number]>;
  turns: number;
}
const seen = globalThis as unknown as { __loadSteps: Seen };

/** A directory with load-steps.json and chunks that record when they ran (in event-loop turns). */
function fixture(steps: Record<string, string[]>, chunks: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-load-steps-'));
  writeFileSync(join(dir, 'load-steps.json'), JSON.stringify(steps));
  for (const c of chunks) writeFileSync(join(dir, c), `globalThis.__loadSteps.loaded.push([${JSON.stringify(c)}, globalThis.__loadSteps.turns]);\n`);
  return pathToFileURL(join(dir, 'base.js')).href;
}

/** Run `fn` while counting turns of the event loop. */
async function countingTurns(fn: () => Promise<void>): Promise<Seen> {
  seen.__loadSteps = { loaded: [], turns: 0 };
  let running = true;
  const tick = () => {
    seen.__loadSteps.turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await fn();
  } finally {
    running = false;
  }
  return seen.__loadSteps;
}

test('each step loads in the listed order', async () => {
  const base = fixture({ 'src/x.ts': ['a.mjs', 'b.mjs', 'c.mjs'] }, ['a.mjs', 'b.mjs', 'c.mjs']);
  const s = await countingTurns(() => loadInSteps('src/x.ts', { base, always: true }));
  assert.deepEqual(s.loaded.map(([c]) => c), ['a.mjs', 'b.mjs', 'c.mjs']);
});

test('a turn of the event loop comes between two steps, however synchronously a step loads', async () => {
  // As on Node 22+ in the bundle, where an import links and runs its graph in one synchronous run:
  // a socket's answer is read on such a turn, and without one between steps it would wait for them all.
  const base = fixture({ 'src/x.ts': ['a.mjs', 'b.mjs', 'c.mjs'] }, []);
  const s = await countingTurns(() =>
    loadInSteps('src/x.ts', {
      base,
      always: true,
      importChunk: (specifier) => {
        seen.__loadSteps.loaded.push([specifier.slice(specifier.lastIndexOf('/') + 1), seen.__loadSteps.turns]);
        return Promise.resolve();
      },
    }),
  );
  assert.deepEqual(s.loaded.map(([c]) => c), ['a.mjs', 'b.mjs', 'c.mjs']);
  for (let i = 1; i < s.loaded.length; i++) assert.ok(s.loaded[i]![1] > s.loaded[i - 1]![1], `a turn between ${s.loaded[i - 1]![0]} and ${s.loaded[i]![0]}: ${JSON.stringify(s.loaded)}`);
});

test('a step that does not load ends the loading without an error; no manifest, or no entry in it, loads nothing', async () => {
  const base = fixture({ 'src/x.ts': ['a.mjs', 'gone.mjs', 'c.mjs'] }, ['a.mjs', 'c.mjs']);
  const s = await countingTurns(() => loadInSteps('src/x.ts', { base, always: true }));
  assert.deepEqual(s.loaded.map(([c]) => c), ['a.mjs']);
  const none = await countingTurns(() => loadInSteps('src/other.ts', { base, always: true }));
  assert.deepEqual(none.loaded, []);
  const noManifest = pathToFileURL(join(mkdtempSync(join(tmpdir(), 'mcp-tasks-load-steps-')), 'base.js')).href;
  assert.deepEqual((await countingTurns(() => loadInSteps('src/x.ts', { base: noManifest, always: true }))).loaded, []);
});

test('Node 20, which loads a graph a file at a time already, loads nothing ahead', async () => {
  const base = fixture({ 'src/x.ts': ['a.mjs'] }, ['a.mjs']);
  const s = await countingTurns(() => loadInSteps('src/x.ts', { base }));
  assert.deepEqual(s.loaded.map(([c]) => c), Number(process.versions.node.split('.')[0]) >= 22 ? ['a.mjs'] : []);
});

test('the built load-steps.json names every module loaded in steps, each step after the steps it imports', { skip: !existsSync(join(bundle, 'load-steps.json')) && 'no bundle built' }, () => {
  const steps = JSON.parse(readFileSync(join(bundle, 'load-steps.json'), 'utf8')) as Record<string, string[]>;
  const used = [...new Set(STORE_COMMANDS.values()), 'src/connection/connect.ts', SDK_CLIENT_ENTRY];
  for (const entry of used) {
    const list = steps[entry];
    assert.ok(list && list.length > 0, `load-steps.json has steps for ${entry}`);
  }
  // Every step exists; a step's own imports (directly or through chunks left out of the list) that
  // are steps themselves come before it.
  const importsOf = (chunk: string): string[] => [...readFileSync(join(bundle, chunk), 'utf8').matchAll(/(?:from|import)\s*"\.\/([\w.-]+\.js)"/g)].map((m) => m[1]!);
  for (const [entry, list] of Object.entries(steps)) {
    list.forEach((chunk, i) => {
      assert.ok(existsSync(join(bundle, chunk)), `${entry}: ${chunk} is in the bundle`);
      const closure = new Set<string>();
      const visit = (c: string) => {
        for (const d of importsOf(c)) {
          if (closure.has(d)) continue;
          closure.add(d);
          visit(d);
        }
      };
      visit(chunk);
      for (const later of list.slice(i + 1)) assert.ok(!closure.has(later), `${entry}: ${chunk} imports ${later}, listed after it`);
    });
  }
});
