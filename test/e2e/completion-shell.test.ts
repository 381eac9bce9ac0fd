// Shell completion (issue 14): the bash script is loaded into a real bash and asked for
// candidates the way bash asks (COMP_WORDS / COMP_CWORD, then the function); commands, flags,
// enumerated values, server names from the config, tool names from the tools/list cache (the
// demo server is stopped first: completion never goes to the network) and refs from the vault.
// zsh and fish scripts are syntax-checked where those shells are installed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, PATH_BIN_DIR, homeWithServer, startDemo, tempDir, type DemoServer, type TestHome } from '../helpers/cli.js';
import { vaultAt } from '../../src/app/open-vault.js';
import { typeableRef } from '../../src/vault/vault-record.js';
import { fakeTaskId, makeRecord } from '../helpers/vault-helpers.js';

const hasShell = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;

describe('completion', { timeout: 120_000 }, () => {
  let demo: DemoServer;
  let h: TestHome;
  let script: string;
  let env: NodeJS.ProcessEnv;
  const record = makeRecord({ taskId: fakeTaskId('c'), server: 'web', labels: { job: 'nightly-build' } });

  before(async () => {
    demo = await startDemo();
    h = await homeWithServer('web', demo.url);
    const check = await h.run(['server', 'check', 'web']);
    assert.equal(check.code, 0, check.stderr);
    vaultAt(h.dir, { MCP_TASKS_NO_KEYCHAIN: '1' }).put(record);
    await demo.stop();
    env = { PATH: `${PATH_BIN_DIR}:${process.env.PATH}`, HOME: process.env.HOME, MCP_TASKS_HOME: h.dir, MCP_TASKS_NO_KEYCHAIN: '1', CI: '1', NO_COLOR: '1' };
    const r = await h.run(['completion', 'bash']);
    assert.equal(r.code, 0, r.stderr);
    script = join(tempDir('mcp-tasks-completion-'), 'mcp-tasks.bash');
    writeFileSync(script, r.stdout);
  });
  after(async () => {
    await demo?.stop();
  });

  /** What bash offers for the line (the last word is the one being completed). */
  const complete = (line: string[], cwd?: string): string[] => {
    const words = line.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
    const out = execFileSync('bash', ['-c', `source "$1"; COMP_WORDS=(${words}); COMP_CWORD=${line.length - 1}; _mcp_tasks; printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', script], { env, encoding: 'utf8', ...(cwd ? { cwd } : {}) });
    return out.split('\n').filter(Boolean);
  };

  test('commands, subcommands, flags and enumerated flag values', () => {
    assert.deepEqual(complete(['mcp-tasks', 'ca']), ['call', 'cancel']);
    assert.ok(complete(['mcp-tasks', '']).includes('completion'));
    assert.ok(!complete(['mcp-tasks', '']).includes('__complete'), 'the hidden command is not offered');
    assert.deepEqual(complete(['mcp-tasks', 'server', 'l']), ['list', 'login', 'logout']);
    assert.deepEqual(complete(['mcp-tasks', 'list', '--st']), ['--status', '--stored-auth-only']);
    assert.ok(complete(['mcp-tasks', 'watch', '--']).includes('--json'), 'global flags on a subcommand');
    assert.deepEqual(complete(['mcp-tasks', 'list', '--status', 'in']), ['input_required', 'in-doubt']);
    assert.deepEqual(complete(['mcp-tasks', 'recover', 'x', '--resolve', '']), ['completed', 'not-run', 'failed']);
    assert.deepEqual(complete(['mcp-tasks', 'completion', '']), ['bash', 'zsh', 'fish']);
  });

  test('server names from the config, tool names and argument names from the tools/list cache (server down)', () => {
    assert.deepEqual(complete(['mcp-tasks', 'call', '']), ['demo', 'web']);
    assert.deepEqual(complete(['mcp-tasks', 'server', 'check', 'w']), ['web']);
    assert.deepEqual(complete(['mcp-tasks', 'get', 'x', '--server', '']), ['demo', 'web']);
    const tools = complete(['mcp-tasks', 'call', 'web', '']);
    assert.ok(tools.includes('slow_compute') && tools.includes('confirm_delete'), tools.join(' '));
    assert.deepEqual(complete(['mcp-tasks', 'call', 'web', 'slow_']), ['slow_compute']);
    assert.deepEqual(complete(['mcp-tasks', 'tools', 'web', 'gre']), ['greet']);
    assert.deepEqual(complete(['mcp-tasks', 'call', 'web', 'slow_compute', 'se']), ['seconds=']);
    // --home in the line is honoured: another home has no "web".
    assert.deepEqual(complete(['mcp-tasks', '--home', tempDir(), 'call', '']), ['demo']);
  });

  test('refs from the vault: label values and short refs', () => {
    const refs = complete(['mcp-tasks', 'watch', '']);
    assert.ok(refs.includes('nightly-build'), refs.join(' '));
    assert.ok(refs.includes(typeableRef(record)), refs.join(' '));
    assert.deepEqual(complete(['mcp-tasks', 'get', 'nightly']), ['nightly-build']);
  });

  test('file slots fall back to file names', () => {
    const dir = tempDir('mcp-tasks-files-');
    writeFileSync(join(dir, 'answers.json'), '{}');
    assert.deepEqual(complete(['mcp-tasks', 'answer', 'nightly-build', '--answers', join(dir, 'ans')]), [join(dir, 'answers.json')]);
  });

  test('a candidate the shell would run or split is never offered', () => {
    // Written as a person might label a task: a label value with a command substitution and a space.
    vaultAt(h.dir, { MCP_TASKS_NO_KEYCHAIN: '1' }).put(makeRecord({ taskId: fakeTaskId('d'), labels: { job: '$(touch pwned)', other: 'two words' } }));
    const cwd = tempDir('mcp-tasks-completion-cwd-');
    const refs = complete(['mcp-tasks', 'get', ''], cwd);
    assert.ok(!refs.some((r) => r.includes('$(') || r.includes(' ')), refs.join(' | '));
    assert.ok(!existsSync(join(cwd, 'pwned')), 'completing ran the command substitution in a label');
    assert.ok(refs.includes('nightly-build'));
  });

  test('zsh and fish scripts parse in their shells', async (t) => {
    for (const shell of ['zsh', 'fish'] as const) {
      const r = await h.run(['completion', shell]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /__complete --/);
      if (!hasShell(shell)) {
        t.diagnostic(`${shell} is not installed here: its script was not syntax-checked`);
        continue;
      }
      const file = join(tempDir(), `c.${shell}`);
      writeFileSync(file, r.stdout);
      const check = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
      assert.equal(check.status, 0, `${shell} -n: ${check.stderr}`);
    }
    const bad = await h.run(['completion', 'bsh']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /no completion for the shell "bsh"; did you mean "bash"\?/);
  });

  test('the script runs the program as it was invoked (here: node and the script path)', () => {
    const text = execFileSync(process.execPath, [BIN, 'completion', 'bash'], { env: { ...env, PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
    assert.ok(text.includes(`node ${BIN} __complete --`), text.split('\n').find((l) => l.includes('__complete')));
  });
});
