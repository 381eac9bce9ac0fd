// CLI cases that need no spawned CLI process: main(argv, io) runs in the test process with
// buffered streams, a scripted stdin and a fake clock (see helpers/in-process.ts). Servers stay
// real where a case reaches one; a case that only parses, resolves or refuses runs in milliseconds.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonDoc, parseJsonLines, tempHome, deadUrl } from '../helpers/cli.js';
import { fakeClock, runInProcess } from '../helpers/in-process.js';

function assertErrorDoc(stdout: string, kind: string): { kind: string; message: string; next: string } {
  const doc = parseJsonDoc(stdout);
  assert.deepEqual(Object.keys(doc), ['error']);
  assert.deepEqual(Object.keys(doc.error).sort(), ['kind', 'message', 'next']);
  assert.equal(doc.error.kind, kind);
  assert.ok(doc.error.message.length > 0 && doc.error.next.length > 0);
  return doc.error;
}

describe('in process: errors as the contract prints them', () => {
  // Moved from e2e/cli-json: parsing errors never reach a server.
  test('errors from argument parsing are JSON too', async () => {
    const home = tempHome();
    for (const args of [['--json', 'call', 'demo'], ['--json', 'no-such-command'], ['--json', 'call', 'demo', 'slow_compute', '--no-such-flag']]) {
      const r = await runInProcess(args, { home });
      assert.equal(r.code, 1, r.stderr);
      assertErrorDoc(r.stdout, 'usage');
    }
  });

  test('a bad --timeout is a usage error before anything is resolved or sent', async () => {
    const r = await runInProcess(['--json', 'cancel', 'abcdefgh', '--wait', '--timeout', 'soon']);
    assert.equal(r.code, 1);
    assert.match(assertErrorDoc(r.stdout, 'usage').message, /--timeout "soon" is not a duration/);
    const human = await runInProcess(['get', 'abcdefgh']);
    assert.equal(human.code, 1);
    assert.equal(human.stdout, '');
    assert.match(human.stderr, /^mcp-tasks: no task in the vault matches "abcdefgh"\n {2}next: /);
  });

  test('stdin is read once: the arguments and the answers cannot both come from it', async () => {
    const r = await runInProcess(['--json', 'call', 'demo', 'slow_compute', '--args-file', '-', '--answers', '-'], { stdin: '{"seconds":1}' });
    assert.equal(r.code, 1);
    assert.match(assertErrorDoc(r.stdout, 'usage').message, /stdin cannot carry both the arguments and the answers/);
  });

  test('stdin is read once: a taskId on stdin cannot also be the answers', async () => {
    const r = await runInProcess(['--json', 'answer', '-', '--server', 'web', '--answers', '-'], { stdin: 'some-task-id' });
    assert.equal(r.code, 1);
    assertErrorDoc(r.stdout, 'usage');
  });
});

describe('in process: watch of several tasks', () => {
  test('--json: a task whose server cannot be reached is an error line on stdout naming it; exit 7', async () => {
    const home = tempHome();
    const url = await deadUrl();
    const add = await runInProcess(['server', 'add', 'down', '--url', url], { home });
    assert.equal(add.code, 0, add.stderr);
    const clock = fakeClock();
    const r = await runInProcess(['--json', 'watch', 'task-aaaaaaaa', 'task-bbbbbbbb', '--server', 'down'], { home, clock, env: { MCP_TASKS_RETRY: '0,1' } });
    assert.equal(r.code, 7, r.stderr);
    const lines = parseJsonLines(r.stdout) as Array<{ error: { kind: string; message: string; next: string }; taskId: string; server: string }>;
    assert.deepEqual(lines.map((l) => [l.taskId, l.server, l.error.kind]).sort(), [
      ['task-aaaaaaaa', 'down', 'unreachable'],
      ['task-bbbbbbbb', 'down', 'unreachable'],
    ]);
    for (const l of lines) assert.match(l.error.next, /server check down/);
    assert.equal(r.stderr, '', 'with --json the failures are on stdout, not stderr');

    const human = await runInProcess(['watch', 'task-aaaaaaaa', 'task-bbbbbbbb', '--server', 'down'], { home, clock });
    assert.equal(human.code, 7);
    assert.equal(human.stdout, '');
    assert.match(human.stderr, /\(task-aaaaa…\): cannot reach the server \(server "down"\)/);
    assert.match(human.stderr, /\(task-bbbbb…\): cannot reach the server \(server "down"\)/);
  });
});
