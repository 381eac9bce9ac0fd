// `cancel --wait` reports the state the task actually reaches. Cancellation is cooperative: a
// task past its point of no return completes anyway (exit 0, said in so many words), and a task
// that still lists its questions after the cancel has not ended: the wait goes on (no answer
// hint, no exit 5) until the server acts on the cancel.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, sleep, startDemo, type DemoServer } from '../helpers/cli.js';
import { FileTaskStore } from '../../src/demo/task-store.js';
import { methodOf, startProxy, type ProxiedRequest } from '../helpers/proxy.js';

/** Wait (by looking at the clock, not by a fixed sleep) until the task is `ms` old by the server's createdAt. */
async function untilTaskAge(createdAt: string, ms: number): Promise<void> {
  const created = Date.parse(createdAt);
  assert.ok(Number.isFinite(created), `createdAt ${createdAt}`);
  while (Date.now() <= created + ms) await sleep(50);
}

/** The task as the demo server stored it (its store is sealed per task). */
const storedTask = (demo: DemoServer, taskId: string) => new FileTaskStore(demo.store).open().get(taskId);

describe('cancel --wait waits for the state the task reaches', () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo({ verbose: true });
  });
  after(async () => {
    await demo.stop();
  });

  test('a payment past its point of no return completes anyway: exit 0, and the words say so', async () => {
    const h = await homeWithServer('web', demo.url);
    for (const json of [false, true]) {
      const label = json ? 'pay-json' : 'pay';
      const detached = parseJsonDoc((await h.ok(['--json', 'call', 'web', 'send_payment', 'to=bob', 'amount:=5', '--detach', '--label', `job=${label}`])).stdout);
      // send_payment commits its money 1 s after creation: a cancel from then on comes too late.
      await untilTaskAge(detached.createdAt, 1000);
      const before = await demo.count('tasks/cancel');
      const r = await h.run([...(json ? ['--json'] : []), 'cancel', label, '--wait']);
      assert.equal(await demo.count('tasks/cancel'), before + 1, 'the cancel reached the server');
      assert.equal(r.code, 0, `the state reached decides the exit code: ${r.stderr}`);
      if (json) {
        const doc = parseJsonDoc(r.stdout);
        assert.equal(doc.status, 'completed');
        assert.equal(r.stderr, '', 'nothing but the document in --json');
      } else {
        assert.match(r.stdout, /send_payment on web: completed/);
        assert.match(r.stdout, /Paid 5 EUR to bob/);
        assert.match(r.stderr, /the cancel was requested, but the task completed anyway/);
        assert.doesNotMatch(r.stderr + r.stdout, /\bcancelled\b/);
      }
    }
  });

  test('a task waiting for input when the cancel is sent: the wait goes on to cancelled (exit 3), with no answer hint', async () => {
    // The proxy acknowledges tasks/cancel itself and hands it to the server only after the client
    // has seen the task still waiting for input once: a server that acts on a cancel later.
    let heldCancel: ProxiedRequest | undefined;
    let delivered = false;
    let getsAfterCancel = 0;
    const deliver = async (req: ProxiedRequest) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
      const res = await fetch(demo.url, { method: 'POST', headers, body: new Uint8Array(req.body) });
      await res.arrayBuffer();
      delivered = true;
    };
    const proxy = await startProxy(demo.url, {
      answer: (req) => {
        if (methodOf(req.body) !== 'tasks/cancel') return undefined;
        heldCancel = req;
        const { id } = JSON.parse(req.body.toString('utf8')) as { id: unknown };
        return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete' } }) };
      },
      replace: async (req, upstream) => {
        if (methodOf(req.body) !== 'tasks/get' || !heldCancel || delivered) return undefined;
        getsAfterCancel++;
        assert.equal((upstream.message?.result as { status?: string } | undefined)?.status, 'input_required');
        await deliver(heldCancel);
        return undefined;
      },
    });
    try {
      const h = await homeWithServer('web', proxy.url);
      const detached = parseJsonDoc((await h.ok(['--json', 'call', 'web', 'confirm_delete', 'filename=a.txt', '--detach', '--label', 'job=ask'])).stdout);
      assert.equal(detached.status, 'input_required');
      const r = await h.run(['cancel', 'ask', '--wait']);
      assert.equal(getsAfterCancel, 1, 'the client saw the task still waiting for input after the cancel');
      assert.equal(r.code, 3, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /confirm_delete on web: cancelled/);
      assert.doesNotMatch(r.stderr, /answer/, 'no answer hint after a cancel');
      assert.equal(typeof storedTask(demo, detached.taskId)?.cancelRequestedAtMs, 'number', 'the server got the cancel');
      const rec = parseJsonDoc((await h.run(['--json', 'show', 'ask'])).stdout);
      assert.equal(rec.phase, 'terminal');
      assert.equal(rec.status, 'cancelled');
    } finally {
      await proxy.close();
    }
  });

  test('on the demo server itself, cancelling a task waiting for input ends it cancelled at once', async () => {
    const h = await homeWithServer('web', demo.url);
    await h.ok(['call', 'web', 'confirm_delete', 'filename=b.txt', '--detach', '--label', 'job=ask2']);
    const r = await h.run(['--json', 'cancel', 'ask2', '--wait']);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(parseJsonDoc(r.stdout).status, 'cancelled');
  });
});
