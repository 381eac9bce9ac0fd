// Help and the shell (issue 14): EXAMPLES and global options on every command's --help, the
// duration syntax, no arguments → help on stdout with exit 0, --version with Node and protocol
// versions, FORCE_COLOR. In process: none of these needs a spawned CLI.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { EXAMPLES, exampleCommand } from '../../src/cli/help-text.js';
import { renderHint } from '../../src/hint.js';
import type { Context } from '../../src/context.js';
import { vaultAt } from '../../src/app/open-vault.js';
import { tempHome } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { fakeTaskId, makeRecord } from '../helpers/vault-helpers.js';

/** Every visible command, by path ("" for the program, "server add", …). */
function commandPaths(): Map<string, Command> {
  const program = buildProgram('0.0.0', () => ({}) as Context, () => {}, { writeOut: () => {}, writeErr: () => {} });
  const out = new Map<string, Command>();
  const walk = (cmd: Command, path: string) => {
    out.set(path, cmd);
    for (const sub of cmd.commands) if (!(sub as unknown as { _hidden: boolean })._hidden) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(program, '');
  return out;
}

/** Enough of a shell's word splitting for the examples: spaces, '…' and "…". */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

describe('help', () => {
  test('every command has EXAMPLES, global options and (where a flag takes one) the duration syntax', async () => {
    const paths = commandPaths();
    assert.ok(paths.size > 20, `found ${paths.size} commands`);
    for (const path of paths.keys()) {
      const r = await runInProcess([...(path ? path.split(' ') : []), '--help']);
      assert.equal(r.code, 0, `${path} --help: ${r.stderr}`);
      assert.match(r.stdout, /\nExamples:\n {2}\$ mcp-tasks /, `${path || '(program)'} --help has EXAMPLES`);
      if (path) assert.match(r.stdout, /\nGlobal Options:\n[\s\S]*--json[\s\S]*--home <dir>/, `${path} --help lists the global options`);
      if (/<duration>/.test(r.stdout)) assert.match(r.stdout, /<duration>: 90s, 5m, 1h or 250ms; a bare number is milliseconds/, `${path} --help explains durations`);
    }
  });

  test('every example names a real command and only flags that command (or the program) has', () => {
    const paths = commandPaths();
    const globals = paths.get('')!.options.flatMap((o) => [o.long, o.short]).filter(Boolean);
    for (const [path, lines] of Object.entries(EXAMPLES)) {
      assert.ok(paths.has(path), `EXAMPLES for a command that does not exist: "${path}"`);
      for (const example of lines) {
        const line = renderHint(example, 'mcp-tasks');
        const argv = words(exampleCommand(line));
        assert.equal(argv.shift(), 'mcp-tasks', line);
        let cmd = paths.get('')!;
        let at = '';
        while (argv.length && paths.has(at ? `${at} ${argv[0]}` : argv[0]!)) {
          at = at ? `${at} ${argv.shift()}` : argv.shift()!;
          cmd = paths.get(at)!;
        }
        // The program's and a group's examples may run its subcommands.
        assert.ok(at === path || at.startsWith(path ? `${path} ` : ''), `"${line}" is filed under "${path}" but runs "${at}"`);
        const own = cmd.options.flatMap((o) => [o.long, o.short]).filter(Boolean);
        for (const w of argv) {
          if (w === '--') break;
          if (w.startsWith('-') && w !== '-') assert.ok([...own, ...globals].includes(w.split('=')[0]!), `"${line}": ${path} has no ${w}`);
        }
      }
    }
  });

  test('examples are written the way the user invoked the tool (npx mcp-tasks under npx)', async () => {
    const r = await runInProcess(['list', '--help'], { env: { npm_command: 'exec' } });
    assert.match(r.stdout, /\n {2}\$ npx mcp-tasks list --all --limit 20\n/);
  });

  test('the description names both generations, not only 2026-07-28', async () => {
    const r = await runInProcess(['--help']);
    assert.match(r.stdout.replace(/\s+/g, ' '), /2026-07-28 tasks extension \(io\.modelcontextprotocol\/tasks\) and the 2025-11-25 experimental tasks/);
  });

  test('no arguments (or only global options): help on stdout, nothing on stderr, exit 0', async () => {
    for (const argv of [[], ['--no-color'], ['--home', tempHome(), '--json']]) {
      const r = await runInProcess(argv);
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /^Usage: mcp-tasks \[options\] \[command\]/);
      assert.equal(r.stderr, '');
    }
    // An unknown command is still a usage error with a suggestion.
    const typo = await runInProcess(['lsit']);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /unknown command 'lsit'[\s\S]*Did you mean list\?/);
  });

  test('help wraps to the terminal width', async () => {
    const narrow = await runInProcess(['cancel', '--help'], { stdoutColumns: 72 });
    const wide = await runInProcess(['cancel', '--help'], { stdoutColumns: 200 });
    const longest = (s: string) => Math.max(...s.split('\n').filter((l) => !l.startsWith('  $ ')).map((l) => l.length));
    assert.ok(longest(narrow.stdout) <= 72, `narrow: ${longest(narrow.stdout)}`);
    assert.ok(longest(wide.stdout) > 80, `wide: ${longest(wide.stdout)}`);
  });
});

describe('--version', () => {
  test('name, version, Node and both protocol versions; --json an object', async () => {
    const r = await runInProcess(['--version']);
    assert.equal(r.code, 0);
    const version = (await import('../../src/version.js')).VERSION;
    assert.equal(r.stdout, `mcp-tasks ${version}\nnode ${process.version}\nprotocols: 2026-07-28 (io.modelcontextprotocol/tasks extension), 2025-11-25 (experimental tasks)\n`);
    for (const argv of [['--version', '--json'], ['--json', '-V']]) {
      const j = await runInProcess(argv);
      assert.equal(j.code, 0);
      assert.deepEqual(JSON.parse(j.stdout), {
        name: 'mcp-tasks',
        version,
        node: process.version,
        protocols: [
          { protocolVersion: '2026-07-28', tasks: 'io.modelcontextprotocol/tasks extension' },
          { protocolVersion: '2025-11-25', tasks: 'experimental tasks' },
        ],
      });
    }
  });
});

describe('colour', () => {
  const ESC = '\x1b[';
  const home = tempHome();
  vaultAt(home, { MCP_TASKS_NO_KEYCHAIN: '1' }).put(makeRecord({ taskId: fakeTaskId('c'), labels: { job: 'colour' } }));
  const show = (opts: { env?: Record<string, string | undefined>; tty?: boolean; argv?: string[] }) =>
    runInProcess([...(opts.argv ?? []), 'show', 'colour'], { home, env: { NO_COLOR: undefined, ...opts.env }, ...(opts.tty ? { stdoutColumns: 100 } : {}) });

  test('FORCE_COLOR colours output into a pipe (chalk\'s rule); FORCE_COLOR=0 turns a terminal plain', async () => {
    const piped = await show({});
    assert.equal(piped.code, 0, piped.stderr);
    assert.ok(!piped.stdout.includes(ESC), 'a pipe is plain by default');
    assert.ok((await show({ tty: true })).stdout.includes(ESC), 'a terminal is coloured');
    for (const v of ['1', '', 'true', '3']) assert.ok((await show({ env: { FORCE_COLOR: v } })).stdout.includes(ESC), `FORCE_COLOR=${JSON.stringify(v)} colours a pipe`);
    for (const v of ['0', 'false']) assert.ok(!(await show({ env: { FORCE_COLOR: v }, tty: true })).stdout.includes(ESC), `FORCE_COLOR=${v} on a terminal is plain`);
  });

  test('NO_COLOR, --no-color and --json still win over FORCE_COLOR', async () => {
    assert.ok(!(await show({ env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout.includes(ESC), 'NO_COLOR wins');
    assert.ok(!(await show({ env: { FORCE_COLOR: '1' }, argv: ['--no-color'] })).stdout.includes(ESC), '--no-color wins');
    const json = await show({ env: { FORCE_COLOR: '1' }, argv: ['--json'] });
    assert.equal(JSON.parse(json.stdout).labels.job, 'colour');
    assert.ok(!json.stdout.includes(ESC), '--json wins');
  });
});
