// On-call paths (issue 14): `get` with the server down reports the terminal state the vault
// holds (marked as stored, exit as that state); in-doubt and lost records are closed with
// `recover <ref> --resolve` after an out-of-band check; `recover` takes refs as everywhere and
// gives the same guidance for one record as for all; `call --detach` warns of a short TTL.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonDoc, startDemo, tempHome } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

describe('in process: on-call', () => {
  test('get with the server unreachable: the stored terminal state, marked as stored, exit as that state', async () => {
    const demo = await startDemo();
    const home = tempHome();
    const cli = (args: string[]) => runInProcess(args, { home });
    assert.equal((await cli(['server', 'add', 'web', '--url', demo.url])).code, 0);
    assert.equal((await cli(['call', 'web', 'slow_compute', 'seconds=0', '--label', 'job=ok'])).code, 0);
    const failed = await cli(['call', 'web', 'failing_job', '--label', 'job=bad']);
    assert.notEqual(failed.code, 0);
    await demo.stop();

    const ok = await cli(['get', 'ok']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /slow_compute on web: completed/);
    assert.match(ok.stderr, /note: stored result: cannot reach the server \(server "web"\).*terminal state stored in the vault/);
    const json = parseJsonDoc((await cli(['--json', 'get', 'ok'])).stdout);
    assert.equal(json.status, 'completed');
    assert.equal(json.stored, true);
    const bad = await cli(['get', 'bad']);
    assert.equal(bad.code, failed.code, 'exits as the stored state');
  });

  test('recover: a label works, one record gets the same guidance as all, --resolve closes it, prune may then drop it', async () => {
    const demo = await startDemo({ faults: ['drop-create-response'] });
    const home = tempHome();
    const cli = (args: string[]) => runInProcess(args, { home });
    try {
      assert.equal((await cli(['server', 'add', 'web', '--url', demo.url])).code, 0);
      const call = await cli(['call', 'web', 'slow_compute', 'seconds=0', '--label', 'job=deploy']);
      assert.equal(call.code, 10, call.stderr);

      const all = await cli(['recover']);
      assert.equal(all.code, 10);
      const opId = /^(\S{8}) {2}slow_compute on web/m.exec(all.stdout)?.[1];
      assert.ok(opId, all.stdout);
      // One runnable command per verdict, never `a|b|c` (a shell would run that as a pipeline).
      for (const verdict of ['completed', 'not-run', 'failed']) assert.match(all.stdout, new RegExp(`\\n\\s+mcp-tasks recover ${opId} --resolve ${verdict} --note "what you found"`));
      assert.doesNotMatch(all.stdout, /completed\|not-run/);
      for (const ref of ['deploy', opId]) {
        const one = await cli(['recover', ref]);
        assert.equal(one.code, 10, one.stderr);
        // Every guidance line of the bare listing is there for the one record.
        for (const line of all.stdout.trimEnd().split('\n')) assert.ok(one.stdout.includes(line), `recover ${ref} lacks: ${line}\n${one.stdout}`);
      }

      const typo = await cli(['recover', 'deploy', '--resolve', 'not-ran']);
      assert.equal(typo.code, 1);
      assert.match(typo.stderr, /not one of completed, not-run, failed; did you mean "not-run"\?/);

      const closed = await cli(['recover', 'deploy', '--resolve', 'not-run', '--note', 'no such job on the server']);
      assert.equal(closed.code, 0, closed.stderr);
      assert.match(closed.stdout, /resolved as not-run: no such job on the server; it was in-doubt/);
      assert.equal((await cli(['recover'])).code, 0, 'nothing left in doubt');
      const shown = await cli(['show', 'deploy']);
      assert.match(shown.stdout, /resolved +not-run by hand at .*: no such job on the server \(was in-doubt/);
      assert.match(shown.stdout, /resolved by hand: not-run/, 'kept in the history');
      const again = await cli(['recover', 'deploy', '--resolve', 'completed']);
      assert.equal(again.code, 1, 'a closed record is not resolved twice');

      const pruned = await cli(['--json', 'prune']);
      assert.deepEqual(parseJsonDoc(pruned.stdout), { pruned: 1 });
      assert.deepEqual(parseJsonDoc((await cli(['--json', 'list', '--all'])).stdout), []);
    } finally {
      await demo.stop();
    }
  });

  test('call --detach warns when the server keeps the task only a short while', async () => {
    const demo = await startDemo({ faults: ['ttl=60000'] });
    const home = tempHome();
    const cli = (args: string[]) => runInProcess(args, { home });
    try {
      assert.equal((await cli(['server', 'add', 'web', '--url', demo.url])).code, 0);
      const r = await cli(['call', 'web', 'slow_compute', 'seconds=5', '--detach', '--label', 'job=brief']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /warning: the server keeps this task only 60 s after it was created \(about \d{4}-.*\); its result is lost if nobody asks before then: `mcp-tasks watch \S+`/);
      const long = await startDemo();
      try {
        assert.equal((await cli(['server', 'add', 'long', '--url', long.url])).code, 0);
        const quiet = await cli(['call', 'long', 'slow_compute', 'seconds=5', '--detach']);
        assert.doesNotMatch(quiet.stderr, /warning: the server keeps this task only/);
      } finally {
        await long.stop();
      }
    } finally {
      await demo.stop();
    }
  });
});
