// A stored terminal result is never replaced by "lost" (issue 9 point 3), on every command that
// asks the server about a task: once the server has forgotten a task whose terminal state the
// vault holds, get, watch and answer report that stored state, and the record stays terminal
// (cancel of a stored-terminal task has rules of its own).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, sleep, startDemo, type DemoServer } from '../helpers/cli.js';

describe('a terminal result stored in the vault outlives the server forgetting the task', () => {
  let demo: DemoServer;
  before(async () => {
    // Tasks expire 1.5 s after creation: long enough to observe the completion, then gone.
    demo = await startDemo({ faults: ['ttl=1500'] });
  });
  after(async () => {
    await demo.stop();
  });

  test('get, watch and answer all report the stored completion (exit 0), never lost', async () => {
    const h = await homeWithServer('web', demo.url);
    const done = await h.run(['call', 'web', 'slow_compute', 'seconds=0', '--label', 'job=gone']);
    assert.equal(done.code, 0, done.stderr);
    // Wait (by asking, not by sleeping a fixed time) until the server no longer knows the task.
    let forgotten = false;
    // A get in process takes milliseconds: a pause between asks, so the 1.5 s pass whatever the speed.
    for (let i = 0; i < 600 && !forgotten; i++) {
      if (i > 0) await sleep(100);
      const g = await h.run(['get', 'gone']);
      assert.equal(g.code, 0, g.stderr);
      forgotten = /no longer keeps this task/.test(g.stderr);
    }
    assert.ok(forgotten, 'the ttl fault never made the server forget the task');

    for (const args of [['get', 'gone'], ['watch', 'gone'], ['answer', 'gone']]) {
      const r = await h.run(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /slow_compute on web: completed/, args.join(' '));
      assert.match(r.stderr, /no longer keeps this task; this is the terminal state stored in the vault/, args.join(' '));
      assert.doesNotMatch(r.stderr, /task lost/, args.join(' '));
      const json = parseJsonDoc((await h.run(['--json', ...args])).stdout);
      assert.equal(json.status, 'completed', args.join(' '));
    }
    const [rec] = parseJsonDoc((await h.run(['--json', 'list', '--all'])).stdout) as Array<{ phase?: string; status: string }>;
    assert.equal(rec?.status, 'completed');
  });
});
