// Every command the CLI prints as a next step runs as printed (issue 14): the hints of a
// representative set of end-to-end runs are collected, and each one is executed verbatim in a
// shell, in the same home. None may be "command not found" (127), a parse error, or hold a
// <placeholder>; each starts with the command as it was invoked: `mcp-tasks` from PATH (as after
// `npm link`), `node <script>` when it is not on PATH.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { delimiter } from 'node:path';
import { BIN, PATH_BIN_DIR, homeWithServer, startDemo, tempDir, type CliResult, type DemoServer, type TestHome } from '../helpers/cli.js';

/** Commands in backticks on `next:` lines and their indented continuations, and the detach summary's commands. */
export function printedCommands(text: string): string[] {
  const found: string[] = [];
  let inHint = false;
  for (const line of text.split('\n')) {
    if (/next[^:]*:/.test(line)) inHint = true;
    else if (!/^\s{2,}/.test(line)) inHint = false;
    if (inHint) for (const m of line.matchAll(/`([^`]+)`/g)) found.push(m[1]!);
    const plain = /^\s+(?:follow it|check once|cancel|it is waiting for input):\s+(\S.*)$/.exec(line) ?? /^\s+next: ((?:node|npx|mcp-tasks) .*)$/.exec(line);
    if (plain) found.push(plain[1]!);
  }
  return found;
}

function sh(command: string, home: string, cwd: string, path = `${PATH_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, MCP_TASKS_HOME: home, CI: '1', NO_COLOR: '1', MCP_TASKS_NO_KEYCHAIN: '1', PATH: path };
    delete env.NODE_OPTIONS;
    for (const k of Object.keys(env)) if (k.startsWith('NODE_TEST')) delete env[k];
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('next steps run verbatim', () => {
  let demo: DemoServer;
  let h: TestHome;
  const outputs: Array<{ args: string; r: CliResult }> = [];
  const record = async (args: string[], opts: { input?: string } = {}) => {
    const r = await h.run(args, opts);
    outputs.push({ args: args.join(' '), r });
    return r;
  };

  before(async () => {
    demo = await startDemo();
    h = await homeWithServer('web', demo.url);
  });
  after(async () => {
    await demo.stop();
  });

  test('every printed command runs as printed, with real refs and server names', async () => {
    const cwd = tempDir('mcp-tasks-hints-');
    writeFileSync(join(cwd, 'bad-answers.json'), JSON.stringify({ confirm: { action: 'accept', content: { confirm: 'yes' } } }));
    // A representative walk: detach, wait for input without a terminal, bad answers, refs that
    // match nothing, unknown tools and arguments, timeouts, cancel, recover, export.
    await record(['call', 'web', 'slow_compute', 'seconds=1', '--detach', '--label', 'job=slow']);
    await record(['call', 'web', 'confirm_delete', 'filename=a.txt', '--label', 'job=confirm']);
    await record(['call', 'web', 'multi_input', '--label', 'job=multi']);
    await record(['call', 'web', 'test_tool_with_task']);
    await record(['answer', 'confirm']);
    await record(['answer', 'confirm', '--answers', join(cwd, 'bad-answers.json')]);
    await record(['answer', 'confirm', '--template']);
    await record(['answer', 'multi', 'name=Ada']);
    await record(['get', 'no-such-task']);
    await record(['call', 'web', 'no_such_tool']);
    await record(['call', 'web', 'slow_compute', 'seconds=lots']);
    await record(['call', 'web', 'slow_compute', 'seconds=30', '--timeout', '1ms', '--label', 'job=long']);
    await record(['cancel', 'long']);
    await record(['watch', 'slow']);
    await record(['recover']);
    await record(['server', 'add', 'web', '--url', demo.url]);
    // Not on PATH: the hints name node and the script instead.
    const offPath = await h.run(['get', 'no-such-task'], { env: { PATH: process.env.PATH } });
    const offPathHints = printedCommands(offPath.stderr);
    assert.ok(offPathHints.length > 0 && offPathHints.every((c) => c.startsWith(`node ${BIN} `)), offPath.stderr);
    for (const c of offPathHints) assert.notEqual((await sh(c, h.dir, cwd, process.env.PATH)).code, 127, c);

    const commands = new Set<string>();
    for (const { args, r } of outputs) for (const c of printedCommands(`${r.stdout}\n${r.stderr}`)) commands.add(`${c}\u0000${args}`);
    assert.ok(commands.size >= 12, `too few hints collected (${commands.size}):\n${outputs.map((o) => o.r.stderr).join('\n')}`);
    const invocation = 'mcp-tasks ';
    const entries = [...commands].map((entry) => entry.split('\u0000') as [string, string]);
    for (const [command, from] of entries) {
      assert.doesNotMatch(command, /<[^>]*>/, `a placeholder in the hint of "${from}": ${command}`);
      assert.ok(command.startsWith(invocation) || command.startsWith(`MCP_TASKS_EXPORT_KEY`), `the hint of "${from}" does not start with the command as invoked: ${command}`);
    }
    // Each hint runs in its own shell and process, three at a time: only whether it runs and
    // parses is judged, so their order does not matter (the vault takes concurrent writers).
    const results = new Map<string, { code: number | null; stderr: string }>();
    const queue = [...entries];
    await Promise.all(
      [0, 1, 2].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) results.set(next[0], await sh(next[0], h.dir, cwd));
      }),
    );
    for (const [command, from] of entries) {
      const r = results.get(command)!;
      assert.notEqual(r.code, 127, `"${command}" (from "${from}"): command not found\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /error: (unknown option|unknown command|too many arguments|missing required argument)|syntax error/, `"${command}" (from "${from}") does not parse:\n${r.stderr}`);
    }
  });
});
