// Flag parsing apart from behaviour (gh's injected run function): each task command's flags
// become typed, validated options, handed to the run function without running anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildProgram, type Runners } from '../../../src/cli/program.js';
import type { Context } from '../../../src/context.js';
import { CliError } from '../../../src/errors.js';

function parse(argv: string[]) {
  const calls: Array<{ command: string; args: unknown[] }> = [];
  const record =
    (command: string) =>
    async (...args: unknown[]) => {
      calls.push({ command, args: args.slice(0, -1) });
      return 0;
    };
  const runners: Runners = { get: record('get'), watch: record('watch'), answer: record('answer'), cancel: record('cancel'), call: record('call') };
  const program = buildProgram('0.0.0', () => ({}) as Context, () => {}, { writeOut: () => {}, writeErr: () => {} }, runners);
  return { calls, done: program.parseAsync(argv, { from: 'user' }) };
}

test('cancel: --wait and --timeout become { wait, timeoutMs }', async () => {
  const { calls, done } = parse(['cancel', 'abc123', '--wait', '--timeout', '90s']);
  await done;
  assert.deepEqual(calls, [{ command: 'cancel', args: ['abc123', { wait: true, timeoutMs: 90_000 }] }]);
});

test('watch: several refs, --server and --save; nothing undefined in the options', async () => {
  const { calls, done } = parse(['watch', 'a', 'b', '--server', 'web', '--save', '--answers', 'f.json']);
  await done;
  assert.deepEqual(calls, [{ command: 'watch', args: [['a', 'b'], { server: 'web', save: true, answers: 'f.json' }] }]);
});

test('answer: repeated --decline and --cancel are lists', async () => {
  const { calls, done } = parse(['answer', 'r', '--decline', 'k1', '--decline', 'k2', '--cancel', 'k3']);
  await done;
  assert.deepEqual(calls, [{ command: 'answer', args: ['r', { decline: ['k1', 'k2'], cancel: ['k3'] }] }]);
});

test('call: labels parsed, timeout in ms, key=value pairs passed through', async () => {
  const { calls, done } = parse(['call', 'demo', 'slow_compute', 'seconds=2', '--label', 'ci.run=42', '--timeout', '5m', '--detach']);
  await done;
  assert.deepEqual(calls, [{ command: 'call', args: ['demo', 'slow_compute', ['seconds=2'], { detach: true, timeoutMs: 300_000, labels: { 'ci.run': '42' } }] }]);
});

test('a bad flag value is a usage error before the run function is called', async () => {
  const bad = parse(['get', 'r', '--server', 'web']);
  await bad.done;
  assert.deepEqual(bad.calls, [{ command: 'get', args: ['r', { server: 'web' }] }]);
  const { calls, done } = parse(['cancel', 'r', '--wait', '--timeout', 'soon']);
  await assert.rejects(done, (err: unknown) => err instanceof CliError && err.kind === 'usage' && /--timeout "soon" is not a duration/.test(err.message));
  assert.deepEqual(calls, []);
  const labels = parse(['call', 's', 't', '--label', 'novalue']);
  await assert.rejects(labels.done, (err: unknown) => err instanceof CliError && /--label "novalue" is not key=value/.test(err.message));
  assert.deepEqual(labels.calls, []);
});
