// The layering is part of the design. scripts/check-architecture.mjs (`npm run check:architecture`)
// reads the import graph with the TypeScript compiler API; here it runs on the real tree, and on one
// small fixture per rule that plants exactly that violation, so each rule is shown to have teeth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const project = fileURLToPath(new URL('../../', import.meta.url));
const script = `${project}scripts/check-architecture.mjs`;
const fixtures = `${project}test/fixtures/architecture/`;

interface Violation {
  rule: string;
  message: string;
}
interface Checker {
  RULES: Record<string, unknown>;
  check(root: string): { files: number; edges: number; violations: Violation[] };
}
const checker = (await import(pathToFileURL(script).href)) as Checker;

/** Each fixture directory breaks one rule: its name, up to the first '-' when the rule has none. */
const planted: Record<string, { rule: string; count: number; mentions: RegExp }> = {
  'floors-output-app': { rule: 'floors', count: 1, mentions: /output\/present\.ts:2 imports \(type-only\) app\/outcomes\.ts: adapters \(output\/\) is below app/ },
  'floors-vault-output': { rule: 'floors', count: 1, mentions: /vault\/listing-index\.ts:2 imports output\/render\.ts: stores \(vault\/\) is below adapters \(output\/\)/ },
  'floors-sideways': { rule: 'floors', count: 1, mentions: /connection\/connect\.ts:2 imports output\/sanitize\.ts: connection\/ and output\/ share the adapters floor/ },
  'floors-unplaced': { rule: 'floors', count: 1, mentions: /^plugins\/ is on no floor/ },
  seam: { rule: 'seam', count: 2, mentions: /app\/watch\.ts:2 imports protocol\/wire\.ts around the session seam[\s\S]*cli\/commands\/get\.ts:2 imports connection\/connect\.ts around/ },
  'cycles-type': { rule: 'cycles', count: 1, mentions: /app\/a\.ts -> app\/b\.ts -> app\/a\.ts/ },
  'purity-fs': { rule: 'purity', count: 2, mentions: /tasks\/poll\.ts:1 imports fs\b[\s\S]*node:fs\/promises/ },
  'purity-process': { rule: 'purity', count: 2, mentions: /tasks\/poll\.ts:1 uses the process global[\s\S]*tasks\/poll\.ts:2/ },
  'purity-import': { rule: 'purity', count: 1, mentions: /protocol\/render\.ts:1 imports home\.ts \(tasks\/ and protocol\/ import only each other and errors\.ts\)/ },
  cycles: { rule: 'cycles', count: 1, mentions: /app\/a\.ts -> app\/b\.ts -> app\/sub\/c\.ts -> app\/a\.ts/ },
  'cli-error': { rule: 'cli-error', count: 2, mentions: /tasks\/outcome\.ts:1 uses CliError[\s\S]*vault\/vault\.ts:2 uses CliError/ },
  'startup-sdk': { rule: 'startup', count: 1, mentions: /@modelcontextprotocol\/client: bin\.ts -> main\.ts -> cli\/program\.ts -> cli\/commands\/answer\.ts/ },
  'startup-zod': { rule: 'startup', count: 1, mentions: /loads zod/ },
  'startup-prompts': { rule: 'startup', count: 1, mentions: /loads @inquirer\/prompts/ },
  'tty-only': { rule: 'tty-only', count: 1, mentions: /output\/render\.ts:1 imports chalk statically/ },
  'process-exit': { rule: 'process-exit', count: 1, mentions: /app\/report\.ts:1 calls process\.exit/ },
  'process-global': { rule: 'process-global', count: 1, mentions: /connection\/fetch\.ts:2 uses the process global/ },
  resolvable: { rule: 'resolvable', count: 1, mentions: /\.\/missing\.js/ },
};

test('the real tree keeps every architecture rule', () => {
  const { files, violations } = checker.check(project);
  assert.ok(files > 20, `only ${files} source files found`);
  assert.deepEqual(violations, []);
});

test('the clean fixture (dynamic SDK import, sideways edges SIDEWAYS names, `process` as a property name) passes', () => {
  const { files, violations } = checker.check(`${fixtures}clean`);
  assert.equal(files, 5);
  assert.deepEqual(violations, []);
});

test('every fixture on disk is listed, and every rule has a fixture that breaks it', () => {
  const onDisk = readdirSync(fixtures).filter((d) => d !== 'clean').sort();
  assert.deepEqual(onDisk, Object.keys(planted).sort());
  assert.deepEqual([...new Set(Object.values(planted).map((p) => p.rule))].sort(), Object.keys(checker.RULES).sort());
});

for (const [fixture, want] of Object.entries(planted)) {
  test(`rule ${want.rule} fails on the planted violation in fixtures/architecture/${fixture}`, () => {
    const { violations } = checker.check(`${fixtures}${fixture}`);
    assert.deepEqual(
      violations.map((v) => v.rule),
      Array<string>(want.count).fill(want.rule),
      JSON.stringify(violations, null, 2),
    );
    assert.match(violations.map((v) => v.message).join('\n'), want.mentions);
  });
}

test('the command exits 1 naming the violation, and 0 on a clean tree', async () => {
  const run = promisify(execFile);
  const bad = await run(process.execPath, [script, '--root', `${fixtures}startup-sdk`]).then(
    () => assert.fail('expected exit 1'),
    (err: { code: number; stdout: string }) => err,
  );
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /^startup: --help loads @modelcontextprotocol\/client/m);
  assert.match(bad.stdout, /1 violation\(s\)$/m);
  const good = await run(process.execPath, [script, '--root', `${fixtures}clean`]);
  assert.match(good.stdout, /0 violation\(s\)/);
});

test('every unit on a floor exists in src/, and none is on two floors', () => {
  const { FLOORS } = checker as unknown as { FLOORS: Array<{ name: string; units: string[] }> };
  const units = FLOORS.flatMap((f) => f.units);
  assert.equal(new Set(units).size, units.length, 'a unit listed twice');
  const src = `${project}src/`;
  const onDisk = new Set(readdirSync(src, { withFileTypes: true }).map((d) => (d.isDirectory() ? `${d.name}/` : d.name)).filter((n) => n.endsWith('/') || (n.endsWith('.ts') && !n.endsWith('.d.ts'))));
  assert.deepEqual(units.filter((u) => !onDisk.has(u)), [], 'FLOORS names a unit src/ does not have');
});
