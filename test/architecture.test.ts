// The layering is part of the design: lifecycle logic and the wire layer stay pure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function importsOf(dir: string): Array<{ file: string; spec: string }> {
  const out: Array<{ file: string; spec: string }> = [];
  for (const name of readdirSync(join(src, dir))) {
    if (!name.endsWith('.ts')) continue;
    const text = readFileSync(join(src, dir, name), 'utf8');
    for (const m of text.matchAll(/(?:^|\n)\s*import\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push({ file: `${dir}/${name}`, spec: (m[1] ?? m[2])! });
  }
  return out;
}

test('tasks/ and protocol/ import nothing from cli/, output/, app/, vault/ or node:fs', () => {
  for (const dir of ['tasks', 'protocol']) {
    for (const { file, spec } of importsOf(dir)) {
      assert.doesNotMatch(spec, /(^|\/)(cli|output|app|vault|connection|prompts)\//, `${file} imports ${spec}`);
      assert.notEqual(spec, 'node:fs', `${file} imports node:fs`);
      assert.doesNotMatch(spec, /^(chalk|ora|@inquirer|commander|conf)/, `${file} imports ${spec}`);
    }
  }
});

test('heavy modules load lazily: no static import of the SDK, prompts or spinners on the start-up path', () => {
  const startup = ['main.ts', 'bin.ts', 'context.ts', 'cli/program.ts', 'errors.ts', 'app/remote-error.ts', 'prompts/prompter.ts'];
  for (const file of startup) {
    const text = readFileSync(join(src, file), 'utf8');
    for (const m of text.matchAll(/^import\s(?!type\b)[^'"]*from\s+['"]([^'"]+)['"]/gm)) {
      assert.doesNotMatch(m[1]!, /^(@modelcontextprotocol|ora|@inquirer|conf$)/, `${file} statically imports ${m[1]}`);
    }
  }
});

test('process.exit is called only by bin.ts and the demo server', () => {
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(src, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.ts') && /process\.exit\(/.test(readFileSync(join(src, rel), 'utf8')) && !['bin.ts', 'demo/stdio-server.ts'].includes(rel)) offenders.push(rel);
    }
  };
  walk('');
  assert.deepEqual(offenders, []);
});
