// Help printed from the build's snapshot is exactly what commander prints through main(): for
// every command, every way of asking for help, the command named as invoked three ways; only
// at the snapshot's width; anything else is left to commander. The bundle's own snapshot (what
// `npm run build` wrote) prints what main prints from the program as it is now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runInProcess } from '../../helpers/in-process.js';
import { helpSnapshot, type HelpSnapshot } from '../../../src/cli/help-snapshot.js';
import { helpPathOf, printSnapshotHelp } from '../../../src/cli/fast-help.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

function sink(isTTY = false, columns?: number) {
  const chunks: string[] = [];
  const stream = { isTTY, columns, write: (t: string) => (chunks.push(t), true) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join('') };
}

async function viaCommander(argv: string[], env: NodeJS.ProcessEnv, script: string | undefined): Promise<string> {
  const r = await runInProcess(argv, { exactEnv: env, ...(script ? { script } : {}) });
  assert.equal(r.code, 0, `main ${argv.join(' ')} exits 0`);
  assert.equal(r.stderr, '', `main ${argv.join(' ')} prints nothing on stderr`);
  return r.stdout;
}

function viaSnapshot(argv: string[], env: NodeJS.ProcessEnv, script: string | undefined, file: URL, tty?: { columns: number }): string | undefined {
  const out = sink(Boolean(tty), tty?.columns);
  return printSnapshotHelp(argv, { stdout: out.stream, env, ...(script ? { script } : {}) }, file) ? out.text() : undefined;
}

let snapshot: HelpSnapshot;
let file: URL;
test.before(async () => {
  snapshot = await helpSnapshot(80);
  file = pathToFileURL(join(mkdtempSync(join(tmpdir(), 'mcp-tasks-help-')), 'help-snapshot.json'));
  writeFileSync(file, JSON.stringify(snapshot));
});

// `mcp-tasks` (no script), `npx mcp-tasks`, and `node '<a path with a space>'`.
const invocations: Array<{ name: string; env: NodeJS.ProcessEnv; script?: string }> = [
  { name: 'mcp-tasks', env: { PATH: '' } },
  { name: 'npx', env: { PATH: '', npm_command: 'exec' }, script: '/opt/x/mcp-tasks' },
  { name: 'node script', env: { PATH: '' }, script: '/opt/my tools/bin/mcp-tasks.js' },
];

test('every command\'s help, asked every way, is the text commander prints, the command as invoked', async () => {
  const paths = Object.keys(snapshot.texts);
  assert.ok(paths.includes('') && paths.includes('server add') && paths.includes('get'), 'the program and its commands are in the snapshot');
  for (const inv of invocations) {
    for (const path of paths) {
      const words = path ? path.split(' ') : [];
      const forms = [[...words, '--help'], [...words, '-h'], ...(words.length <= 1 ? [['help', ...words]] : []), ...(path === '' ? [[]] : [])];
      for (const argv of forms) {
        const expected = await viaCommander(argv, inv.env, inv.script);
        assert.equal(viaSnapshot(argv, inv.env, inv.script, file), expected, `${inv.name}: ${JSON.stringify(argv)}`);
      }
    }
  }
  // The examples really name the command as invoked.
  assert.match(viaSnapshot(['get', '--help'], invocations[2]!.env, invocations[2]!.script, file)!, /\$ node '\/opt\/my tools\/bin\/mcp-tasks\.js' get nightly/);
});

test('only at the snapshot\'s width: a terminal of another width gets commander\'s wrapping', () => {
  assert.equal(viaSnapshot(['--help'], { PATH: '' }, undefined, file, { columns: 120 }), undefined);
  assert.equal(typeof viaSnapshot(['--help'], { PATH: '' }, undefined, file, { columns: 80 }), 'string');
});

test('anything but a plain request for help is left to commander', () => {
  const texts = snapshot.texts;
  for (const argv of [['get', 'nightly', '--help'], ['--json', '--help'], ['--json'], ['help', 'server', 'add'], ['help', 'nosuch'], ['nosuch', '--help'], ['call'], ['list', '--all'], ['server', '--help', 'add']]) {
    assert.equal(helpPathOf(argv, texts), undefined, JSON.stringify(argv));
  }
  assert.equal(viaSnapshot(['list'], { PATH: '' }, undefined, file), undefined);
  assert.equal(printSnapshotHelp(['--help'], { stdout: sink().stream, env: {} }, new URL('file:///nonexistent/help-snapshot.json')), false, 'no snapshot: commander');
});

test('the built bin prints from its snapshot what main prints from the program now', { skip: !existsSync(join(root, 'build/bundle/help-snapshot.json')) && 'no bundle built' }, async () => {
  const env = { PATH: '', HOME: tmpdir(), MCP_TASKS_HOME: mkdtempSync(join(tmpdir(), 'mcp-tasks-help-home-')), CI: '1', NO_COLOR: '1' };
  const bin = join(root, 'bin', 'mcp-tasks.js');
  for (const argv of [['--help'], ['server', 'add', '--help'], ['help', 'call'], []]) {
    const r = spawnSync(process.execPath, [bin, ...argv], { env, encoding: 'utf8' });
    assert.equal(r.status, 0);
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, await viaCommander(argv, env, bin), JSON.stringify(argv));
  }
});
