// Recovery without duplicated effects, against a real demo server that drops the response to a
// task-creating call (the task exists, the client never hears of it): the vault keeps the
// operation as in doubt, `recover` says whether resubmitting is safe, and a resubmission never
// pays twice unless forced. Also: a vaulted handle is only sent to the server identity it was
// created on (rebind).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addHttpServer, newHome, parseJsonDoc, startDemo, type DemoServer, type Home, homeWithServer } from '../helpers/cli.js';
import { countTool, makeRecord } from '../helpers/vault-helpers.js';
import { vaultAt } from '../../src/app/open-vault.js';
import { normalizeUrl } from '../../src/servers/server-entry.js';

const META = 'io.github.mcp-tasks/idempotency-key';

interface ListedRecord {
  taskId: string;
  opId: string;
  phase: string;
  status: string;
  server: string;
  operation: { name: string; arguments: Record<string, unknown> };
  result?: { structuredContent?: Record<string, unknown> };
}

async function listAll(h: Home): Promise<ListedRecord[]> {
  const r = await h.run(['list', '--json', '--all']);
  assert.equal(r.code, 0, r.stderr);
  return parseJsonDoc(r.stdout) as ListedRecord[];
}

/** `call` a tool on a dropping server: exit 10, one in-doubt record without a handle. */
async function inDoubtCall(h: Home, server: string, tool: string, args: string[]): Promise<ListedRecord> {
  const r = await h.run(['call', server, tool, ...args]);
  assert.equal(r.code, 10, `expected exit 10 (in doubt)\n${r.stderr}`);
  assert.match(r.stderr, new RegExp(`${tool} on ${server} is in doubt`));
  assert.match(r.stderr, /Do not simply run the same call again/);
  const recs = await listAll(h);
  assert.equal(recs.length, 1);
  const rec = recs[0]!;
  assert.equal(rec.phase, 'in-doubt');
  assert.ok(!rec.taskId, 'no handle came back');
  assert.equal(rec.operation.name, tool);
  assert.match(r.stderr, new RegExp(`mcp-tasks recover ${rec.opId.slice(0, 8)}`), 'the next step names the operation');
  return rec;
}

describe('in-doubt submissions and recover', { concurrency: 4, timeout: 180_000 }, () => {
  // One dropping server per test that counts tasks in its store, so counts are not shared.
  const servers: DemoServer[] = [];
  const dropping = async () => {
    const d = await startDemo({ faults: ['drop-create-response'] });
    servers.push(d);
    return d;
  };
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  test('with an idempotency contract: listed as safe, resubmitted once, exactly ONE payment exists', async () => {
    const demo = await dropping();
    const h = newHome();
    await addHttpServer(h, 'pay', demo.url, ['--idempotency-meta', META]);
    const rec = await inDoubtCall(h, 'pay', 'send_payment', ['to=bob', 'amount:=10']);
    assert.deepEqual(rec.operation.arguments, { to: 'bob', amount: 10 });
    assert.equal(countTool(demo.store, 'send_payment'), 1, 'the dropped call did create the payment');
    const op8 = rec.opId.slice(0, 8);

    const list = await h.run(['recover']);
    assert.equal(list.code, 10, list.stderr);
    assert.match(list.stdout, new RegExp(`${op8}\\s+send_payment on pay`));
    assert.match(list.stdout, /safe to resubmit: the server deduplicates on _meta\["io\.github\.mcp-tasks\/idempotency-key"\]/);
    assert.match(list.stdout, new RegExp(`next: mcp-tasks recover ${op8} --resubmit`));

    const json = await h.run(['recover', '--json']);
    const [entry] = parseJsonDoc(json.stdout) as Array<{ opId: string; resubmit: { safe: boolean }; reason: string }>;
    assert.equal(entry?.opId, rec.opId);
    assert.equal(entry?.resubmit.safe, true);
    assert.match(entry!.reason, /the request was sent but no handle came back/);

    const one = await h.run(['recover', op8]);
    assert.equal(one.code, 10);
    assert.match(one.stdout, /is in doubt/);

    // A handle-less record is not something to poll.
    const get = await h.run(['get', rec.opId]);
    assert.equal(get.code, 10, get.stderr);
    assert.match(get.stderr, /never received a task handle/);

    const resubmit = await h.run(['recover', op8, '--resubmit']);
    assert.equal(resubmit.code, 0, resubmit.stderr);
    assert.match(resubmit.stderr, /resubmitting send_payment on pay \(the server deduplicates/);
    assert.match(resubmit.stdout, /Paid 10 EUR to bob/);
    assert.equal(countTool(demo.store, 'send_payment'), 1, 'exactly ONE payment: the resubmission found the first one');

    const after = await listAll(h);
    assert.equal(after.length, 1, 'the same record now holds the handle');
    assert.equal(after[0]!.opId, rec.opId);
    assert.equal(after[0]!.phase, 'terminal');
    assert.equal(after[0]!.status, 'completed');
    assert.ok(after[0]!.taskId);
    const none = await h.run(['recover']);
    assert.equal(none.code, 0);
    assert.match(none.stdout, /no submissions in doubt/);
    const again = await h.run(['recover', op8, '--resubmit']);
    assert.equal(again.code, 1, 'a record with a handle is not resubmitted');
    assert.match(again.stderr, /not in doubt: it has a task handle/);
    assert.equal(countTool(demo.store, 'send_payment'), 1);
  });

  test('without the contract: refused (exit 1) unless --force, and then a second payment exists', async () => {
    const demo = await dropping();
    const h = await homeWithServer('pay', demo.url);
    const rec = await inDoubtCall(h, 'pay', 'send_payment', ['to=carol', 'amount:=5']);
    const op8 = rec.opId.slice(0, 8);
    assert.equal(countTool(demo.store, 'send_payment'), 1);

    const list = await h.run(['recover']);
    assert.equal(list.code, 10);
    assert.match(list.stdout, /not safe to resubmit blindly: the server declares no duplicate-prevention contract for send_payment, which may be destructive/);
    assert.match(list.stdout, new RegExp(`mcp-tasks recover ${op8} --resubmit --force --yes\n`), 'without a terminal the printed step carries the confirmation');

    const refused = await h.run(['recover', op8, '--resubmit']);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /refusing to resubmit send_payment/);
    assert.equal(countTool(demo.store, 'send_payment'), 1, 'the refusal sent nothing');
    assert.equal((await listAll(h))[0]!.phase, 'in-doubt', 'still in doubt after the refusal');

    // No TTY: --force alone is not a confirmation; the refusal names --yes and sends nothing.
    const unconfirmed = await h.run(['recover', op8, '--resubmit', '--force']);
    assert.equal(unconfirmed.code, 1, unconfirmed.stderr);
    assert.match(unconfirmed.stderr, /--force needs confirmation and there is no terminal to ask in; nothing was sent\n.*next: .*mcp-tasks recover [0-9a-f]{8} --resubmit --force --yes/);
    assert.equal(countTool(demo.store, 'send_payment'), 1, 'the unconfirmed --force sent nothing');
    assert.equal((await listAll(h))[0]!.phase, 'in-doubt');

    // Confirmed with --yes. The server drops this response too, so it is in doubt again.
    const forced = await h.run(['recover', op8, '--resubmit', '--force', '--yes']);
    assert.match(forced.stderr, /resubmitting send_payment on pay \(forced\)/);
    assert.equal(forced.code, 10, forced.stderr);
    assert.equal(countTool(demo.store, 'send_payment'), 2, 'a second payment: the refusal mattered');
  });

  test('a read-only, idempotent tool (slow_compute) is not resubmitted on its annotations alone', async () => {
    const demo = await dropping();
    const h = await homeWithServer('web', demo.url);
    const rec = await inDoubtCall(h, 'web', 'slow_compute', ['seconds=1', 'label=ro']);
    const op8 = rec.opId.slice(0, 8);
    const json = parseJsonDoc((await h.run(['recover', '--json'])).stdout) as Array<{ resubmit: { safe: boolean; why: string } }>;
    assert.equal(json[0]?.resubmit.safe, false, 'annotations are the server\'s claim, not proof');
    assert.match(json[0]!.resubmit.why, /annotates it read-only and idempotent, a hint from the server, not proof/);
    const resubmit = await h.run(['recover', op8, '--resubmit']);
    assert.equal(resubmit.code, 1, resubmit.stderr);
    assert.match(resubmit.stderr, /refusing to resubmit slow_compute/);
    assert.equal(countTool(demo.store, 'slow_compute'), 1, 'nothing was sent again');
    // A person who checked may still send it again, confirmed.
    const forced = await h.run(['recover', op8, '--resubmit', '--force', '--yes']);
    assert.equal(forced.code, 10, forced.stderr);
    assert.equal(countTool(demo.store, 'slow_compute'), 2);
  });

  test(
    'a resubmission that cannot reach the server keeps the in-doubt record',
    {
    },
    async () => {
      const demo = await startDemo({ faults: ['drop-create-response'] });
      const h = newHome();
      try {
        await addHttpServer(h, 'pay', demo.url, ['--idempotency-meta', META]);
        const rec = await inDoubtCall(h, 'pay', 'send_payment', ['to=dave', 'amount:=7']);
        await demo.stop();
        const r = await h.run(['recover', rec.opId.slice(0, 8), '--resubmit']);
        assert.equal(r.code, 7, r.stderr);
        const recs = await listAll(h);
        assert.equal(recs.length, 1, 'the in-doubt operation is still recorded');
        assert.equal(recs[0]!.phase, 'in-doubt');
      } finally {
        await demo.stop();
      }
    },
  );

  test(
    'recover --json exits 10 when something is in doubt, like the text form',
    async () => {
      const h = newHome();
      vaultAt(h.dir, { MCP_TASKS_NO_KEYCHAIN: '1' }).put(makeRecord({ phase: 'in-doubt', reason: 'the request was sent but no handle came back' }));
      const r = await h.run(['recover', '--json']);
      assert.equal(parseJsonDoc(r.stdout).length, 1);
      assert.equal(r.code, 10);
    },
  );

  test('a submission whose process died before the handle (stale `submitting`) is listed; fresh ones are not', async () => {
    const h = newHome();
    const v = vaultAt(h.dir, { MCP_TASKS_NO_KEYCHAIN: '1' });
    const stale = makeRecord({ phase: 'submitting', tool: 'send_payment', ageMs: 10 * 60_000, args: { to: 'erin', amount: 3 } });
    const fresh = makeRecord({ phase: 'submitting', tool: 'send_payment', ageMs: 5_000 });
    v.put(stale);
    v.put(fresh);
    const r = await h.run(['recover']);
    assert.equal(r.code, 10, r.stderr);
    assert.match(r.stdout, new RegExp(`${stale.opId.slice(0, 8)}\\s+send_payment on web\\s+\\{"to":"erin","amount":3\\}`));
    assert.doesNotMatch(r.stdout, new RegExp(fresh.opId.slice(0, 8)));
    const one = await h.run(['recover', stale.opId.slice(0, 8)]);
    assert.equal(one.code, 10);
    assert.match(one.stdout, /the submitting process stopped before a handle came back/);
    assert.match(one.stdout, /not safe to resubmit blindly/);
    const unknown = await h.run(['recover', 'ffffffff']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no in-doubt submission matches "ffffffff"/);
    const noId = await h.run(['recover', '--resubmit']);
    assert.equal(noId.code, 1);
  });

  test('resubmission is refused when the server entry now points elsewhere', async () => {
    const demo = await dropping();
    const h = newHome();
    await addHttpServer(h, 'pay', demo.url, ['--idempotency-meta', META]);
    const rec = await inDoubtCall(h, 'pay', 'send_payment', ['to=frank', 'amount:=1']);
    const other = 'http://127.0.0.1:9/mcp';
    await addHttpServer(h, 'pay', other, ['--idempotency-meta', META, '--force']);
    const r = await h.run(['recover', rec.opId.slice(0, 8), '--resubmit']);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stderr.includes(normalizeUrl(other)) && r.stderr.includes(normalizeUrl(demo.url)), `names both identities: ${r.stderr}`);
    assert.equal(countTool(demo.store, 'send_payment'), 1);
    assert.equal((await listAll(h))[0]!.phase, 'in-doubt');
  });
});

describe('a vaulted handle is only sent where it was created (rebind)', { timeout: 120_000 }, () => {
  let a: DemoServer;
  let b: DemoServer;
  before(async () => {
    a = await startDemo();
    // A second server on the same durable store: the same tasks, reachable at another URL.
    b = await startDemo({ store: a.store });
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test('get after `server add --force` to another URL is refused naming both; --rebind proceeds and is recorded', async () => {
    const h = await homeWithServer('web', a.url);
    const call = await h.run(['call', 'web', 'slow_compute', 'seconds=600', '--detach', '--json', '--label', 'run=rebind-me']);
    assert.equal(call.code, 0, call.stderr);
    const taskId = parseJsonDoc(call.stdout).taskId as string;
    const ok = await h.run(['get', 'rebind-me']);
    assert.equal(ok.code, 0, ok.stderr);

    await addHttpServer(h, 'web', b.url, ['--force']);
    const refused = await h.run(['get', 'rebind-me']);
    assert.equal(refused.code, 1, refused.stderr);
    assert.ok(refused.stderr.includes(a.url), `names the original identity: ${refused.stderr}`);
    assert.ok(refused.stderr.includes(b.url), `names the new identity: ${refused.stderr}`);
    assert.match(refused.stderr, /only sent where it was created/);
    assert.match(refused.stderr, /--rebind/);
    assert.ok(!refused.stderr.includes(taskId), 'the handle is not echoed');
    const watchRefused = await h.run(['watch', 'rebind-me', '--timeout', '1s']);
    assert.equal(watchRefused.code, 1, 'watch is refused the same way');
    const shown = parseJsonDoc((await h.run(['show', 'rebind-me', '--json'])).stdout);
    assert.deepEqual(shown.serverIdentity, { kind: 'http', url: a.url });

    const rebound = await h.run(['get', 'rebind-me', '--rebind', '--yes', '--json']);
    assert.equal(rebound.code, 0, rebound.stderr);
    assert.equal(parseJsonDoc(rebound.stdout).taskId, taskId);
    assert.equal(parseJsonDoc(rebound.stdout).status, 'working', 'the same task, answered by the other URL');
    const after = parseJsonDoc((await h.run(['show', 'rebind-me', '--json'])).stdout);
    assert.deepEqual(after.serverIdentity, { kind: 'http', url: b.url }, 'the move is recorded, once');
    const plain = await h.run(['get', 'rebind-me']);
    assert.equal(plain.code, 0, plain.stderr);
  });
});
