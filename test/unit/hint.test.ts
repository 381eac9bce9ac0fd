// Hints are built from the invocation, not rewritten (issue 24): a command in a next step is a
// cmd() value, printed as the program was started. The guard below reads every string and
// template literal under src/ with the TypeScript compiler API, so a hint written by hand as
// "`mcp-tasks recover …`" fails here instead of printing `mcp-tasks` under npx or node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { Command } from 'commander';
import { cmd, hint, renderHint, shellQuote } from '../../src/hint.js';
import { buildProgram } from '../../src/cli/program.js';
import type { Context } from '../../src/context.js';

const project = fileURLToPath(new URL('../../../', import.meta.url));

test('a hint prints each command as the program was started, and prose as written', () => {
  const next = hint`Run \`${cmd('store', 'init')}\` once, then retry; mcp-tasks never answers twice.`;
  assert.equal(renderHint(next, 'mcp-tasks'), 'Run `mcp-tasks store init` once, then retry; mcp-tasks never answers twice.');
  assert.equal(renderHint(next, 'npx mcp-tasks'), 'Run `npx mcp-tasks store init` once, then retry; mcp-tasks never answers twice.');
  assert.equal(renderHint(next, "node '/opt/my dir/bin/mcp-tasks.js'"), "Run `node '/opt/my dir/bin/mcp-tasks.js' store init` once, then retry; mcp-tasks never answers twice.");
  // Hints nest, numbers are text, a plain string is a hint without a command.
  const login = hint`\`${cmd('server', 'login', 'web')}\``;
  assert.equal(renderHint(hint`run ${login} (${2} tries left)`, 'npx mcp-tasks'), 'run `npx mcp-tasks server login web` (2 tries left)');
  assert.equal(renderHint('Upgrade mcp-tasks to read it.', 'npx mcp-tasks'), 'Upgrade mcp-tasks to read it.');
  // Words are written as typed; data goes through shellQuote.
  assert.equal(renderHint(cmd('call', 'web', shellQuote("it's"), '--args-json', shellQuote('{"a":1}')), 'mcp-tasks'), `mcp-tasks call web 'it'\\''s' --args-json '{"a":1}'`);
});

/** Every command the program has (hidden ones too), and help. */
function subcommands(): string[] {
  const program = buildProgram('0.0.0', () => ({}) as Context, () => {}, { writeOut: () => {}, writeErr: () => {} });
  const names = new Set(['help', '--help']);
  const walk = (c: Command) => {
    for (const sub of c.commands) {
      names.add(sub.name());
      for (const a of sub.aliases()) names.add(a);
    }
  };
  walk(program);
  return [...names];
}

/**
 * Prose that names the program before a command's name without being a command, each kept for a
 * reason: a file format (a vault, an export bundle), the advisory lock key of `store init` (other
 * versions take the same lock), the first comment line of the completion scripts.
 */
const PROSE = ['an mcp-tasks vault', 'an mcp-tasks export bundle', "hashtext('mcp-tasks store init')", '# mcp-tasks completion for'];

/** The literals in one file that spell `mcp-tasks <command>` (or `mcp-tasks ${…}`) by hand. */
function handWrittenCommands(file: string, text: string, commands: readonly string[]): string[] {
  const named = new RegExp(`(?<![\\w-])mcp-tasks (?:${commands.map((c) => c.replace(/[-]/g, '\\-')).join('|')})(?![\\w-])`);
  const beforeValue = /(?<![\w-])mcp-tasks $/;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    let literal: string | undefined;
    let valueFollows = false;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateTail(node)) literal = node.text;
    else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node)) [literal, valueFollows] = [node.text, true];
    if (literal !== undefined) {
      const prose = PROSE.reduce((t, p) => t.split(p).join(''), literal);
      if (named.test(prose) || (valueFollows && beforeValue.test(prose))) found.push(`${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${literal.trim().slice(0, 120)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : name.endsWith('.ts') ? [p] : [];
  });
}

test('no string in src/ spells a command by hand: every printed command is a cmd() in a hint', () => {
  const commands = subcommands();
  assert.ok(commands.includes('recover') && commands.includes('store') && commands.includes('demo-server'), commands.join(' '));
  const found = sources(join(project, 'src'))
    .filter((f) => relative(project, f) !== join('src', 'hint.ts'))
    .flatMap((f) => handWrittenCommands(relative(project, f), readFileSync(f, 'utf8'), commands));
  assert.deepEqual(found, [], `build these with cmd() and hint\`…\` (src/hint.ts):\n${found.join('\n')}`);
});

test('the guard has teeth: a hand-written hint is found, prose and comments are not', () => {
  const planted = [
    '// `mcp-tasks recover` in a comment is fine',
    "const a = 'Run `mcp-tasks recover` to list them.';",
    'const b = `Run \\`mcp-tasks server login ${name}\\` again.`;',
    'const c = `then mcp-tasks ${verb} it`;',
    "const d = 'mcp-tasks never answers a key twice; the vault is not an mcp-tasks vault';",
    'const e = hint`Run \\`${cmd("store", "init")}\\` once.`;',
  ].join('\n');
  const found = handWrittenCommands('planted.ts', planted, subcommands());
  assert.deepEqual(found.map((f) => f.split(':')[1]), ['2', '3', '4'], found.join('\n'));
});
