// scripts/check-docs.mjs keeps the README and docs/ inside the repository and free of dead links.
// Here it runs on the real documents, and on a planted tree with one bad link of each kind, so
// each check is shown to fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const project = fileURLToPath(new URL('../../../../', import.meta.url));
const script = `${project}scripts/check-docs.mjs`;

interface Problem {
  file: string;
  line: number;
  message: string;
}
interface DocsChecker {
  check(root: string): { files: string[]; links: number; problems: Problem[] };
  slug(heading: string): string;
}
const checker = (await import(pathToFileURL(script).href)) as DocsChecker;

async function run(root?: string): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [script, ...(root ? ['--root', root] : [])]);
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '' };
  }
}

test('the real README and docs/ have no dead link and no link out of the repository', async () => {
  const { files, links, problems } = checker.check(project);
  assert.deepEqual(problems, []);
  assert.ok(files.includes('README.md') && files.includes('docs/reference.md'), files.join(', '));
  assert.ok(links > 0);
  const { code, stdout } = await run();
  assert.equal(code, 0, stdout);
  assert.match(stdout, /check-docs: \d+ documents, \d+ links, 0 problems/);
});

test('headings become the anchors GitHub renders', () => {
  assert.equal(checker.slug('Exit codes'), 'exit-codes');
  assert.equal(checker.slug('Never twice: retrying without a second effect'), 'never-twice-retrying-without-a-second-effect');
  assert.equal(checker.slug('`get`, `watch` and the 2025-11-25 generation'), 'get-watch-and-the-2025-11-25-generation');
  assert.equal(checker.slug('In doubt (exit 10)'), 'in-doubt-exit-10');
});

test('a planted bad document fails, one line per bad link, and code is not read as links', async () => {
  const root = mkdtempSync(join(tmpdir(), 'check-docs-'));
  try {
    mkdirSync(join(root, 'docs', 'deep'), { recursive: true });
    writeFileSync(join(root, 'docs', 'good.md'), '# Good\n\n## Exit codes\n\n## Exit codes\n');
    writeFileSync(join(root, 'docs', 'deep', 'x.md'), '# X\n\nBack [up](../good.md#exit-codes-1), [out](../../../shared/CLI-CONTRACT.md).\n');
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Planted',
        '',
        'Fine: [good](docs/good.md), [anchor](docs/good.md#exit-codes), [self](#planted), [dir](docs/deep/).',
        'Dead: [gone](docs/missing.md).',
        'Dead anchor: [nope](docs/good.md#no-such-heading) and [here](#nowhere).',
        'Outside: [shared](../shared/CLI-CONTRACT.md), [web](https://example.com/x), [abs](/etc/passwd).',
        'Reference style: [ref][r].',
        '',
        '[r]: http://example.org/ref',
        '',
        'Bare: see https://example.net for more.',
        '',
        '```',
        '[in a fence](../outside.md) https://example.com',
        '```',
        'Inline code is not a link either: `[x](../y.md)` and `https://example.com`.',
        '',
      ].join('\n'),
    );
    const { problems } = checker.check(root);
    const lines = problems.map((p) => `${p.file}:${p.line}: ${p.message}`);
    assert.deepEqual(lines, [
      'README.md:4: dead link (no such file): docs/missing.md',
      'README.md:5: dead anchor (no heading "#no-such-heading" in docs/good.md): docs/good.md#no-such-heading',
      'README.md:5: dead anchor (no heading "#nowhere" in README.md): #nowhere',
      'README.md:6: leaves the repository: ../shared/CLI-CONTRACT.md',
      'README.md:6: leaves the repository: https://example.com/x',
      'README.md:6: leaves the repository (an absolute path): /etc/passwd',
      'README.md:9: leaves the repository: http://example.org/ref',
      'README.md:11: leaves the repository: https://example.net',
      'docs/deep/x.md:3: leaves the repository: ../../../shared/CLI-CONTRACT.md',
    ]);
    const { code, stdout } = await run(root);
    assert.equal(code, 1);
    assert.match(stdout, /check-docs: 3 documents, \d+ links, 9 problems/);
    assert.match(stdout, /^README\.md:4: dead link/m);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
