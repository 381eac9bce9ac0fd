// Every command the CLI prints as a next step runs as printed (issue 14): the hints of a
// representative set of end-to-end runs are collected, and each one is executed verbatim in a
// shell, in the same home. None may be "command not found" (127), a parse error, or hold a
// <placeholder>; each starts with the command as it was invoked: `mcp-tasks` from PATH (as after
// `npm link`), `node <script>` when it is not on PATH.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { startProxy, type Proxy } from '../helpers/proxy.js';
import { BIN, PATH_BIN_DIR, PATH_WITHOUT_CLI, homeWithServer, startDemo, tempDir, type CliResult, type DemoServer, type TestHome } from '../helpers/cli.js';

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
    const offPath = await h.run(['get', 'no-such-task'], { env: { PATH: PATH_WITHOUT_CLI } });
    const offPathHints = printedCommands(offPath.stderr);
    assert.ok(offPathHints.length > 0 && offPathHints.every((c) => c.startsWith(`node ${BIN} `)), offPath.stderr);
    for (const c of offPathHints) assert.notEqual((await sh(c, h.dir, cwd, PATH_WITHOUT_CLI)).code, 127, c);

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

/**
 * The three ways the tool is started (issue: every hint runs as printed): `npx mcp-tasks` in a
 * project that has this checkout installed (npx finds it locally; npm is kept offline), `node
 * <abs>/bin/mcp-tasks.js`, and `mcp-tasks` on PATH as `npm link` leaves it (PATH_BIN_DIR).
 * Each walks the input-waiting, in-doubt, lost, usage-error and import paths through a real
 * shell; every printed hint then runs verbatim in `bash -c`.
 */
interface Invocation {
  name: string;
  prefix: string;
  cwd: string;
  path: string;
}

function npxProject(): string {
  const dir = tempDir('mcp-tasks-npx-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hint-runner', version: '1.0.0', private: true, dependencies: { 'mcp-tasks': '*' } }));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(dirname(dirname(BIN)), join(dir, 'node_modules', 'mcp-tasks'));
  symlinkSync('../mcp-tasks/bin/mcp-tasks.js', join(dir, 'node_modules', '.bin', 'mcp-tasks'));
  return dir;
}

function bash(command: string, inv: Invocation, home: string, extra: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, MCP_TASKS_HOME: home, CI: '1', NO_COLOR: '1', MCP_TASKS_NO_KEYCHAIN: '1', PATH: inv.path, npm_config_offline: 'true', MCP_TASKS_EXPORT_KEY: 'hints-verbatim-passphrase', ...extra };
    delete env.NODE_OPTIONS;
    for (const k of Object.keys(env)) if (k.startsWith('NODE_TEST') || k.startsWith('npm_lifecycle') || k === 'npm_command') delete env[k];
    const child = spawn('bash', ['-c', command], { cwd: inv.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('next steps run verbatim under npx, node and PATH', () => {
  let demo: DemoServer;
  // In front of the demo: every tools/call is answered by the server, then the connection is cut
  // before the answer reaches the client (the task exists; its taskId, seen here, never arrives).
  let dropping: Proxy;
  const dropped: string[] = [];
  before(async () => {
    demo = await startDemo();
    dropping = await startProxy(demo.url, {
      replace: (req, upstream) => {
        if (req.headers['mcp-method'] !== 'tools/call') return undefined;
        const taskId = (upstream.message?.result as { taskId?: unknown } | undefined)?.taskId;
        if (typeof taskId === 'string') dropped.push(taskId);
        return null;
      },
    });
  });
  after(async () => {
    await demo.stop();
    await dropping.close();
  });
  const base = PATH_WITHOUT_CLI;
  const invocations = (): Invocation[] => [
    { name: 'npx', prefix: 'npx mcp-tasks', cwd: npxProject(), path: base },
    { name: 'node', prefix: `node ${BIN}`, cwd: tempDir('mcp-tasks-hints-node-'), path: base },
    { name: 'PATH', prefix: 'mcp-tasks', cwd: tempDir('mcp-tasks-hints-path-'), path: `${PATH_BIN_DIR}${delimiter}${base}` },
  ];

  for (const inv of invocations()) {
    test(`${inv.name}: every hint of the input-waiting, in-doubt, lost, usage-error and import paths runs as printed`, async () => {
      const home = tempDir('mcp-tasks-hints-home-');
      const other = tempDir('mcp-tasks-hints-other-');
      const outputs: Array<{ args: string; text: string }> = [];
      const run = async (args: string, opts: { home?: string; expect?: number } = {}) => {
        const r = await bash(`${inv.prefix} ${args}`, inv, opts.home ?? home);
        if (opts.expect !== undefined) assert.equal(r.code, opts.expect, `${inv.prefix} ${args}\n${r.stdout}\n${r.stderr}`);
        outputs.push({ args, text: `${r.stdout}\n${r.stderr}` });
        return r;
      };
      await run(`server add web --url ${demo.url}`, { expect: 0 });
      await run(`server add drop --url ${dropping.url}`, { expect: 0 });
      // Waiting for input, no terminal: call, get, watch, watch --active, answer, answer --template.
      await run('call web confirm_delete filename=a.txt --label job=confirm', { expect: 5 });
      await run('get confirm', { expect: 5 });
      await run('watch confirm', { expect: 5 });
      await run('watch --active', { expect: 5 });
      await run('answer confirm', { expect: 5 });
      await run('answer confirm --template');
      await run('call web preflight_check', { expect: 5 });
      // In doubt: the task was created, its answer never came (the proxy saw its taskId).
      const before = dropped.length;
      await run('call drop slow_compute seconds=1', { expect: 10 });
      const created = dropped.slice(before);
      assert.equal(created.length, 1, 'the dropped call created one task on the server');
      // The recover listing's attach line runs verbatim, with the taskId in $TASK_ID as it says.
      const listing = await run('recover', { expect: 10 });
      const attachLine = /found its task\? attach it \(the taskId on stdin\): (.*)$/m.exec(listing.stdout + listing.stderr)?.[1];
      assert.ok(attachLine, `no attach line in the recover listing:\n${listing.stdout}\n${listing.stderr}`);
      assert.ok(attachLine.startsWith(`printf %s "$TASK_ID" | ${inv.prefix} recover `), attachLine);
      const attached = await bash(attachLine, inv, home, { TASK_ID: created[0]! });
      assert.equal(attached.code, 0, `${attachLine}\n${attached.stdout}\n${attached.stderr}`);
      assert.match(attached.stdout + attached.stderr, /attached: operation [0-9a-f]{8} \(slow_compute on drop\) is now this task/);
      assert.equal((await bash(`${inv.prefix} --json recover`, inv, home)).stdout.trim(), '[]', 'nothing is in doubt any more');
      // Lost: a taskId the server does not know (its next step names no command; any it prints is checked).
      const lost = await bash(`printf %s no-such-task-id-0123456789 | ${inv.prefix} get - --server web`, inv, home);
      assert.equal(lost.code, 6, lost.stderr);
      outputs.push({ args: 'get - --server web', text: lost.stderr });
      // Usage errors.
      await run('get', { expect: 1 });
      await run('watch --bogus x', { expect: 1 });
      await run('--json call web', { expect: 1 });
      // Import on a machine that lacks the server.
      await run('call web slow_compute seconds=30 --detach --label job=handoff', { expect: 0 });
      const bundle = join(other, 'handoff.bundle');
      await run(`export handoff --out ${bundle}`, { expect: 0 });
      await run(`import ${bundle}`, { home: other, expect: 0 });
      await run('get handoff', { home: other, expect: 1 });

      const printed = outputs.flatMap(({ args, text }) => printedCommands(text).map((c) => [c, args] as const));
      const hints = new Map<string, string>();
      for (const [c, args] of printed) if (!hints.has(c)) hints.set(c, args);
      const from = (needle: string) => printed.filter(([, args]) => args.startsWith(needle));
      for (const path of ['call web confirm_delete', 'get confirm', 'watch confirm', 'watch --active', 'answer confirm', 'call web preflight_check', 'call drop', 'get', 'watch --bogus', 'import', 'get handoff']) {
        assert.ok(from(path).length > 0, `no hint collected from "${path}":\n${outputs.filter((o) => o.args.startsWith(path)).map((o) => o.text).join('\n')}`);
      }
      for (const [command, args] of printed) {
        assert.doesNotMatch(command, /<[^>]*>|\bFILE\b/, `a placeholder in the hint of "${args}": ${command}`);
        assert.doesNotMatch(command, /npx npx|mcp-tasks mcp-tasks/, `rewritten twice in the hint of "${args}": ${command}`);
        assert.ok(command.startsWith(`${inv.prefix} `) || command.startsWith('MCP_TASKS_EXPORT_KEY'), `the hint of "${args}" does not start with \`${inv.prefix}\`: ${command}`);
      }
      // --json next fields name the command as invoked too.
      const jsonNext = outputs.flatMap(({ text }) => [...text.matchAll(/"next":"([^"]*)"/g)].map((m) => m[1]!));
      assert.ok(jsonNext.length > 0);
      for (const n of jsonNext) for (const m of n.matchAll(/`([^`]+)`/g)) assert.ok(m[1]!.startsWith(`${inv.prefix} `), `a --json next field: ${n}`);

      // Three at a time, as above: only whether each runs and parses is judged.
      const queue = [...hints];
      const ran: Array<[string, string, { code: number | null; stderr: string }]> = [];
      await Promise.all([0, 1, 2].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) ran.push([next[0], next[1], await bash(next[0], inv, next[0].includes('handoff') ? other : home)]);
      }));
      for (const [command, args, r] of ran) {
        assert.notEqual(r.code, 127, `"${command}" (from "${args}"): command not found\n${r.stderr}`);
        assert.doesNotMatch(r.stderr, /error: (unknown option|unknown command|too many arguments|missing required argument)|syntax error|npm (ERR|error)/, `"${command}" (from "${args}") does not run as printed:\n${r.stderr}`);
      }
    });
  }
});
