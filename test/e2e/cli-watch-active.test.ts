// watch --active: every active task in the vault, followed at once; the exit code is the first
// non-zero in vault order, and finished tasks are not watched again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newHome, parseJsonDoc } from '../helpers/cli.js';

test('watch --active follows every active task and leaves finished ones alone', async () => {
  const h = newHome();
  const none = await h.run(['watch', '--active']);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stderr, /no active tasks/);
  const noRefs = await h.run(['watch']);
  assert.equal(noRefs.code, 1);
  assert.match(noRefs.stderr, /--active/);

  await h.ok(['call', 'demo', 'slow_compute', 'seconds=1', '--detach']);
  await h.ok(['call', 'demo', 'failing_job', '--detach']);
  const r = await h.run(['--json', 'watch', '--active', '--timeout', '30s'], { timeoutMs: 60_000 });
  assert.equal(r.code, 4, r.stderr);
  const finals = r.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((d) => d.status === 'completed');
  assert.deepEqual(finals.map((d) => d.operation.name).sort(), ['failing_job', 'slow_compute']);

  const again = await h.run(['watch', '--active']);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /no active tasks/);
  const all = parseJsonDoc((await h.ok(['--json', 'list', '--all'])).stdout);
  assert.equal(all.length, 2);
  assert.ok(all.every((d: { phase: string }) => d.phase === 'terminal'));
});
