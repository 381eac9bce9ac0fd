// `list --refresh` polls every active task at once, all under the one Ctrl-C signal: with more
// than ten of them (server up or down) Node printed MaxListenersExceededWarning, a listener per
// request. A real process (the warning is a process's), a real demo server over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newHome, parseJsonDoc, startDemo } from '../helpers/cli.js';

test('list --refresh of a dozen active tasks, the server up and then down: no listener warning', { timeout: 180_000 }, async () => {
  const demo = await startDemo();
  const h = newHome();
  try {
    await h.ok(['server', 'add', 'web', '--url', demo.url]);
    for (let i = 0; i < 12; i++) await h.ok(['--json', 'call', 'web', 'slow_compute', 'seconds=3600', '--detach']);
    assert.equal((parseJsonDoc((await h.ok(['--json', 'list'])).stdout) as unknown[]).length, 12);
    const up = await h.run(['list', '--refresh'], { spawn: true });
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stderr, /polled 12 of 12 active task\(s\)/);
    assert.doesNotMatch(up.stderr, /MaxListenersExceededWarning|memory leak/);
  } finally {
    await demo.stop();
  }
  const down = await h.run(['list', '--refresh'], { spawn: true, env: { MCP_TASKS_RETRY: '0,1' } });
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stderr, /polled 0 of 12 active task\(s\); 12 not reached/);
  assert.doesNotMatch(down.stderr, /MaxListenersExceededWarning|memory leak/);
});
