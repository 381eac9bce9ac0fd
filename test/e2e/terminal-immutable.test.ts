// A terminal state once stored is immutable: a server (or whatever stands between us) that later
// answers tasks/get for a finished task with another end (failed after completed) or another
// result never replaces what the vault holds. The first end stands (its exit code too), the
// contradiction is noted in the record's history, and the command warns, sanitised.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { firstUnsafe, homeWithServer, parseJsonDoc, startDemo, type DemoServer } from '../helpers/cli.js';
import { methodOf, startProxy, type Proxy } from '../helpers/proxy.js';

type Rewrite = (task: Record<string, unknown>) => void;

describe('a later, different terminal answer never replaces the stored one', () => {
  let demo: DemoServer;
  let proxy: Proxy;
  /** How tasks/get answers are rewritten on their way back (none: as the server sent them). */
  let rewriteGet: Rewrite | undefined;
  before(async () => {
    demo = await startDemo();
    proxy = await startProxy(demo.url, {
      rewrite: (req) => {
        const change = rewriteGet;
        if (methodOf(req.body) !== 'tasks/get' || !change) return undefined;
        return (body) => {
          const msg = JSON.parse(body) as { result?: Record<string, unknown> };
          if (msg.result) change(msg.result);
          return JSON.stringify(msg);
        };
      },
    });
  });
  after(async () => {
    await proxy.close();
    await demo.stop();
  });

  test('get and watch after a stored completion: the server now says failed', async () => {
    rewriteGet = undefined;
    const h = await homeWithServer('web', proxy.url);
    const done = await h.run(['call', 'web', 'slow_compute', 'seconds=0', '--label', 'job=flip']);
    assert.equal(done.code, 0, done.stderr);

    rewriteGet = (task) => {
      task.status = 'failed';
      delete task.result;
      task.error = { code: -32603, message: 'boom \x1b[31mred\x1b[0m' };
    };
    const g = await h.run(['get', 'flip']);
    assert.equal(g.code, 0, `the first end's exit code stands: ${g.stderr}`);
    assert.match(g.stdout, /slow_compute on web: completed/);
    assert.match(g.stderr, /warning: the server now says the task failed \(boom red\), but it had ended completed/);
    assert.equal(firstUnsafe(g.stderr), undefined, 'server text in the warning is sanitised');

    const json = await h.run(['--json', 'get', 'flip']);
    assert.equal(json.code, 0, json.stderr);
    const doc = parseJsonDoc(json.stdout);
    assert.equal(doc.status, 'completed');
    assert.ok(doc.result, 'the stored result is shown');
    assert.equal(doc.error, undefined);
    assert.equal(doc.warnings?.length, 1, json.stdout);
    assert.match(doc.warnings[0], /now says the task failed/);

    // --poll: the proxy rewrites tasks/get answers (the demo's pushed state would say completed).
    const w = await h.run(['watch', '--poll', 'flip']);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /completed/);
    assert.match(w.stderr, /now says the task failed/);

    const a = await h.run(['answer', 'flip']);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /completed/);
    assert.match(a.stderr, /now says the task failed/);

    rewriteGet = undefined;
    const shown = parseJsonDoc((await h.run(['--json', 'show', 'flip'])).stdout);
    assert.equal(shown.phase, 'terminal');
    assert.equal(shown.status, 'completed');
    assert.ok(shown.result);
    assert.equal(shown.error, undefined);
    const notes = (shown.history as Array<{ status: string; note?: string }>).filter((e) => e.note);
    assert.equal(notes.length, 1, `one note for the contradiction however often it was seen: ${JSON.stringify(shown.history)}`);
    assert.equal(notes[0]!.status, 'failed');
    assert.match(notes[0]!.note!, /not believed: the server later said failed; the first terminal state \(completed\) is kept/);
    const human = await h.run(['show', 'flip']);
    assert.match(human.stdout, /not believed: the server later said failed/);

    // The server answering as before again: nothing to warn about.
    const calm = await h.run(['get', 'flip']);
    assert.equal(calm.code, 0, calm.stderr);
    assert.doesNotMatch(calm.stderr, /warning/);
  });

  test('a different result for the same completion: the first result is kept', async () => {
    rewriteGet = undefined;
    const h = await homeWithServer('web', proxy.url);
    const first = parseJsonDoc((await h.ok(['--json', 'call', 'web', 'slow_compute', 'seconds=0', '--label', 'job=other'])).stdout);
    assert.equal(first.status, 'completed');

    rewriteGet = (task) => {
      task.result = { resultType: 'complete', content: [{ type: 'text', text: 'a different answer' }] };
    };
    const g = await h.run(['--json', 'get', 'other']);
    assert.equal(g.code, 0, g.stderr);
    const doc = parseJsonDoc(g.stdout);
    assert.deepEqual(doc.result, first.result, 'the result stored first is the one shown');
    assert.match(g.stderr, /now says the task completed with a different result/);
    rewriteGet = undefined;
    const shown = parseJsonDoc((await h.run(['--json', 'show', 'other'])).stdout);
    assert.deepEqual(shown.result, first.result);
    assert.ok((shown.history as Array<{ note?: string }>).some((e) => /completed with a different result/.test(e.note ?? '')));
  });
});
