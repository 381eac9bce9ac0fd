// -32602 to tasks/update or tasks/cancel is not "lost" until a tasks/get says so. A server may
// refuse one answer (or a cancel) with Invalid params on a task that is alive and still waiting:
// the command reports the refusal (exit 1, the server's words sanitised, a next step), the record
// stays active and unchanged, and only a confirming tasks/get that also says unknown marks it
// lost. On the demo server (2026-07-28, whose refusals a proxy supplies) and on server-everything
// (2025-11-25).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { firstUnsafe, homeWithServer, parseJsonDoc, startDemo, type DemoServer, type TestHome } from '../helpers/cli.js';
import { accept, answersFile, startTask } from '../helpers/answers.js';
import { methodOf, rpcErrorReply, startProxy, type Proxy } from '../helpers/proxy.js';
import { FileTaskStore } from '../../src/demo/task-store.js';
import { startEverythingServer } from '../helpers/third-party-http.js';
import { storedRecords } from '../helpers/legacy-everything.js';

const HOSTILE = 'response does not fit \x1b[31mthe schema\x1b[0m';

/** The record as `show --json` prints it. */
const shown = async (h: TestHome, ref: string) => parseJsonDoc((await h.ok(['--json', 'show', ref])).stdout);

describe('2026-07-28: a refused tasks/update or tasks/cancel on a live task', () => {
  let demo: DemoServer;
  let proxy: Proxy;
  /** Methods the proxy answers with -32602 itself (the request never reaches the server). */
  const refuse = new Set<string>();
  /** After a refused request: tasks/get is refused too (the task really is unknown). */
  let getsUnknownAfterRefusal = false;
  let refused = 0;
  before(async () => {
    demo = await startDemo({ verbose: true });
    proxy = await startProxy(demo.url, {
      answer: (req) => {
        const method = methodOf(req.body) ?? '';
        if (refuse.has(method)) {
          refused++;
          return rpcErrorReply(req.body, -32602, HOSTILE);
        }
        if (method === 'tasks/get' && getsUnknownAfterRefusal && refused > 0) return rpcErrorReply(req.body, -32602, 'Task not found or expired');
        return undefined;
      },
    });
  });
  after(async () => {
    await proxy.close();
    await demo.stop();
  });
  const reset = () => {
    refuse.clear();
    getsUnknownAfterRefusal = false;
    refused = 0;
  };
  const storedTask = (taskId: string) => new FileTaskStore(demo.store).open().get(taskId);

  test('answer: the refusal is reported (exit 1), the record stays active with no key used up; the next answer goes through', async () => {
    reset();
    const h = await homeWithServer('web', proxy.url);
    const taskId = await startTask(h, 'web', 'confirm_delete', ['filename=a.txt'], 'ask');
    const file = answersFile(h, { confirm: accept({ confirm: true }) });
    refuse.add('tasks/update');
    const r = await h.run(['answer', 'ask', '--answers', file]);
    assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /the server refused the answer .*error -32602: response does not fit the schema.*the task is still input_required, and nothing was recorded as answered/);
    assert.match(r.stderr, /answer [\w-]+ --template/);
    assert.doesNotMatch(r.stderr, /lost/);
    assert.equal(firstUnsafe(r.stderr), undefined);
    const rec = await shown(h, 'ask');
    assert.equal(rec.phase, 'active');
    assert.deepEqual(rec.inputKeysAnswered, []);
    assert.deepEqual(storedTask(taskId)?.answers, {}, 'the server took no answer');

    refuse.clear();
    const again = await h.run(['answer', 'ask', '--answers', file]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual((await shown(h, 'ask')).inputKeysAnswered, ['confirm']);
  });

  test('answer --json: the refusal is one error document', async () => {
    reset();
    const h = await homeWithServer('web', proxy.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=j.txt'], 'askj');
    refuse.add('tasks/update');
    const r = await h.run(['--json', 'answer', 'askj', '--answers', answersFile(h, { confirm: accept({ confirm: true }) })]);
    assert.equal(r.code, 1, r.stderr);
    const doc = parseJsonDoc(r.stdout);
    assert.equal(doc.error.kind, 'invalid-input');
    assert.match(doc.error.message, /refused the answer/);
    assert.equal((await shown(h, 'askj')).phase, 'active');
  });

  test('watch answering from --answers: the refusal ends the watch (exit 1), never lost', async () => {
    reset();
    const h = await homeWithServer('web', proxy.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=w.txt'], 'askw');
    refuse.add('tasks/update');
    const r = await h.run(['watch', 'askw', '--answers', answersFile(h, { confirm: accept({ confirm: true }) })]);
    assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /refused the answer/);
    const rec = await shown(h, 'askw');
    assert.equal(rec.phase, 'active');
    assert.deepEqual(rec.inputKeysAnswered, []);
  });

  test('cancel: the refusal is reported (exit 1), the record stays active, the server cancelled nothing', async () => {
    reset();
    const h = await homeWithServer('web', proxy.url);
    const taskId = await startTask(h, 'web', 'confirm_delete', ['filename=c.txt'], 'stopme');
    refuse.add('tasks/cancel');
    for (const args of [['cancel', 'stopme'], ['cancel', 'stopme', '--wait']]) {
      const r = await h.run(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, /the server refused the cancel .*the task is still input_required, and its handle is kept/);
      assert.doesNotMatch(r.stdout, /cancellation requested/);
    }
    assert.equal((await shown(h, 'stopme')).phase, 'active');
    assert.equal(storedTask(taskId)?.cancelRequestedAtMs, undefined);
  });

  test('only a confirming tasks/get that also says unknown marks the task lost (exit 6)', async () => {
    reset();
    const h = await homeWithServer('web', proxy.url);
    await startTask(h, 'web', 'confirm_delete', ['filename=g.txt'], 'gone');
    refuse.add('tasks/update');
    getsUnknownAfterRefusal = true;
    const r = await h.run(['answer', 'gone', '--answers', answersFile(h, { confirm: accept({ confirm: true }) })]);
    assert.equal(r.code, 6, `${r.stdout}\n${r.stderr}`);
    assert.equal((await shown(h, 'gone')).phase, 'lost');
  });
});

test('2025-11-25: a tasks/cancel refused with -32602 on a task tasks/get still shows is not lost', async (t) => {
  const server = await startEverythingServer(t);
  let refuseCancel = true;
  const proxy = await startProxy(server.url, {
    answer: (req) => (refuseCancel && methodOf(req.body) === 'tasks/cancel' ? rpcErrorReply(req.body, -32602, HOSTILE) : undefined),
  });
  t.after(() => proxy.close());
  const h = await homeWithServer('ev', proxy.url);
  const detached = await h.run(['--json', 'call', 'ev', 'simulate-research-query', 'topic=reefs', '--detach', '--label', 'job=reef']);
  assert.equal(detached.code, 0, detached.stderr);
  const r = await h.run(['cancel', 'reef']);
  assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /the server refused the cancel .*error -32602: response does not fit the schema.*its handle is kept/);
  assert.equal(firstUnsafe(r.stderr), undefined);
  const [rec] = storedRecords(h);
  assert.notEqual(rec!.phase, 'lost');
  assert.equal(rec!.phase, 'active');

  // The server takes the next cancel: the task ends cancelled, as it would have.
  refuseCancel = false;
  const c = await h.run(['--json', 'cancel', 'reef', '--wait', '--timeout', '60s']);
  assert.equal(c.code, 3, c.stderr);
  assert.equal(parseJsonDoc(c.stdout).status, 'cancelled');
});
