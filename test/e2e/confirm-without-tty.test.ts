// The confirming flows without a terminal (issue 9 point 7, docs/reference.md "--yes"): `--rebind` on
// every task command and `recover --resubmit --force` ask in a terminal; without one, each
// proceeds only with `--yes`, else refuses with a one-line error whose next step names `--yes`,
// and sends nothing. (`server add --force`, `server import --force` and `cancel --force` ask in no
// mode: the flag itself is the decision, the same with or without a terminal.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, startDemo, type DemoServer } from '../helpers/cli.js';
import { methodOf, startProxy } from '../helpers/proxy.js';

/** The error block of a refusal: one line naming the problem, one `next:` line. */
function refusal(stderr: string): { message: string; next: string } {
  const lines = stderr.split('\n').filter((l) => (l.startsWith('mcp-tasks: ') && !/created a vault key/.test(l)) || /^\s+next: /.test(l));
  assert.equal(lines.length, 2, `one error line and one next line: ${JSON.stringify(stderr)}`);
  return { message: lines[0]!, next: lines[1]! };
}

describe('confirmations without a terminal need --yes', { concurrency: 2 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('--rebind on get, watch, answer and cancel: refused naming --rebind --yes, nothing sent to the new location; with --yes it proceeds', async (t) => {
    const seenAtNew: string[] = [];
    const oldOrigin = await startProxy(demo.url);
    const newOrigin = await startProxy(demo.url, { answer: (req) => (seenAtNew.push(methodOf(req.body) ?? '?'), undefined) });
    t.after(() => oldOrigin.close());
    t.after(() => newOrigin.close());
    const h = await homeWithServer('web', oldOrigin.url);
    await h.ok(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--label', 'job=moved']);
    await h.ok(['server', 'add', 'web', '--url', newOrigin.url, '--force']);
    seenAtNew.length = 0;

    for (const args of [['get', 'moved'], ['watch', 'moved', '--timeout', '1s'], ['answer', 'moved'], ['cancel', 'moved']]) {
      const r = await h.run([...args, '--rebind']);
      const what = args.join(' ');
      assert.equal(r.code, 1, `${what}: ${r.stderr}`);
      const { message, next } = refusal(r.stderr);
      assert.match(message, /--rebind needs confirmation and there is no terminal to ask in/, what);
      assert.match(next, /--rebind --yes/, what);
      assert.deepEqual(seenAtNew.filter((m) => m.startsWith('tasks/')), [], `${what}: nothing was sent to the new location`);
    }
    const confirmed = await h.run(['--json', 'get', 'moved', '--rebind', '--yes']);
    assert.equal(confirmed.code, 0, confirmed.stderr);
    assert.equal(parseJsonDoc(confirmed.stdout).status, 'working');
    assert.ok(seenAtNew.includes('tasks/get'), 'confirmed, the handle went to the new location');
  });

  test('recover --resubmit --force: refused naming --yes, nothing sent; with --yes it resubmits', async (t) => {
    let calls = 0;
    // Every tools/call reaches the server, and its answer is cut: the submission is in doubt.
    const proxy = await startProxy(demo.url, {
      replace: (req) => {
        if (methodOf(req.body) !== 'tools/call') return undefined;
        calls++;
        return null;
      },
    });
    t.after(() => proxy.close());
    const h = await homeWithServer('pay', proxy.url);
    const first = await h.run(['call', 'pay', 'send_payment', 'to=carol', 'amount:=5']);
    assert.equal(first.code, 10, first.stderr);
    assert.equal(calls, 1);
    const [rec] = parseJsonDoc((await h.run(['--json', 'recover'])).stdout) as Array<{ opId: string }>;
    const op8 = rec!.opId.slice(0, 8);

    const listed = await h.run(['recover']);
    assert.match(listed.stdout, new RegExp(`mcp-tasks recover ${op8} --resubmit --force --yes\\n`), 'the printed step runs as printed without a terminal');

    const unconfirmed = await h.run(['recover', op8, '--resubmit', '--force']);
    assert.equal(unconfirmed.code, 1, unconfirmed.stderr);
    const { message, next } = refusal(unconfirmed.stderr);
    assert.match(message, /refusing to resubmit send_payment \(pay\): --force needs confirmation and there is no terminal to ask in; nothing was sent/);
    assert.match(next, new RegExp(`mcp-tasks recover ${op8} --resubmit --force --yes`));
    assert.equal(calls, 1, 'nothing was sent');

    const confirmed = await h.run(['recover', op8, '--resubmit', '--force', '--yes']);
    assert.match(confirmed.stderr, /resubmitting send_payment on pay \(forced\)/);
    assert.equal(confirmed.code, 10, confirmed.stderr);
    assert.equal(calls, 2, 'confirmed, it was sent again');
  });
});
