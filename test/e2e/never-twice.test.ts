// One intent, one effect: the retry paths a CI job and an on-call engineer take, each against the
// demo server behind a real proxy that loses or rewrites answers. Every case counts the payments
// the server made (the demo store's send_payment tasks), never what the client believes it sent,
// and ends with exactly one payment per intent and a record that tells the truth.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { homeWithServer, parseJsonDoc, sleep, startDemo, type DemoServer, type TestHome } from '../helpers/cli.js';
import { readStore } from '../helpers/demo-server.js';
import { methodOf, startProxy, type Proxy, type ProxyHooks, type ProxiedRequest, type UpstreamAnswer } from '../helpers/proxy.js';

const IDEM_META = ['--idempotency-meta', 'io.github.mcp-tasks/idempotency-key'];

/** The payments the server made, by what was paid (one string per send_payment task it created). */
function paymentsOf(demo: DemoServer): number {
  return Object.values(readStore(demo.store).tasks).filter((t: { tool?: string }) => t.tool === 'send_payment').length;
}

const isCall = (req: ProxiedRequest) => methodOf(req.body) === 'tools/call';
const idOf = (req: ProxiedRequest): unknown => (JSON.parse(req.body.toString('utf8')) as { id?: unknown }).id;
const taskIdOf = (up: UpstreamAnswer) => (up.message?.result as { taskId?: string } | undefined)?.taskId;

interface World {
  /** The world's own demo server: every payment in its store is this case's. */
  demo: DemoServer;
  proxy: Proxy;
  home: TestHome;
  /** taskIds the server created behind the proxy, in order (what an on-call engineer finds in the server's logs). */
  created: string[];
  pay(args: string[], extra?: string[]): ReturnType<TestHome['run']>;
  close(): Promise<void>;
}

/**
 * A home with server "pay" behind a proxy; `spoil` rewrites the answer to the first tools/call
 * only (the first attempt is the one that goes wrong; retries get the server's own answers).
 */
async function world(spoil: NonNullable<ProxyHooks['replace']>, serverFlags: string[] = [], hooks: ProxyHooks = {}): Promise<World> {
  const demo = await startDemo();
  const created: string[] = [];
  let calls = 0;
  const proxy = await startProxy(demo.url, {
    ...hooks,
    replace: (req, up) => {
      if (!isCall(req)) return hooks.replace?.(req, up);
      const taskId = taskIdOf(up);
      if (taskId) created.push(taskId);
      return calls++ === 0 ? spoil(req, up) : undefined;
    },
  });
  const home = await homeWithServer('pay', proxy.url, serverFlags);
  const pay = (args: string[], extra: string[] = []) => home.run(['call', 'pay', 'send_payment', ...args, '--detach', ...extra]);
  return { demo, proxy, home, created, pay, close: async () => {
    await proxy.close();
    await demo.stop();
  } };
}

const jsonRpcError = (req: ProxiedRequest, status: number, code: number, message: string) => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: idOf(req), error: { code, message } }),
});

async function inDoubtRows(h: TestHome): Promise<Array<Record<string, unknown>>> {
  const r = await h.run(['--json', 'recover']);
  return parseJsonDoc(r.stdout) as Array<Record<string, unknown>>;
}

describe('never twice: one intent, one effect on every retry path', { concurrency: 2 }, () => {
  for (const [status, code, name] of [
    [502, -32603, 'a gateway 502 with a JSON-RPC error body'],
    [503, -32000, 'a gateway 503 with a JSON-RPC error body'],
    [504, -32602, 'a gateway 504 carrying a -32602 body'],
    [200, -32603, 'the server answering -32603 after it created the task'],
    [200, -31999, 'an application error code after the task was created'],
  ] as const) {
    test(`${name}: in doubt (exit 10), the message kept, a re-run sends nothing`, async () => {
      const to = `gw-${status}-${Math.abs(code)}`;
      const w = await world((req) => jsonRpcError(req, status, code, `upstream trouble ${status}`));
      try {
        const first = await w.pay([`to=${to}`, 'amount=5']);
        assert.equal(first.code, 10, `exit 10 (in doubt)\n${first.stderr}`);
        assert.equal(w.created.length, 1, 'the server created the task');
        const rows = await inDoubtRows(w.home);
        assert.equal(rows.length, 1, 'the intent is on record, in doubt');
        assert.match(String(rows[0]!.reason), new RegExp(`${code}.*upstream trouble ${status}`), 'the server\'s message is kept');
        // The CI step is re-run as is: refused, naming recover.
        const again = await w.pay([`to=${to}`, 'amount=5']);
        assert.equal(again.code, 10, again.stderr);
        assert.match(again.stderr, /identical call is in doubt/);
        assert.match(again.stderr, /recover [0-9a-f]{8}/);
        assert.equal(paymentsOf(w.demo), 1, 'exactly one payment at the server');
      } finally {
        await w.close();
      }
    });
  }

  test('a JSON-RPC refusal the protocol defines before execution still drops the record (nothing was admitted)', async () => {
    const demo = await startDemo();
    // Answered by the proxy itself, never forwarded: the server really did nothing.
    const proxy = await startProxy(demo.url, { answer: (req) => (isCall(req) ? jsonRpcError(req, 200, -32602, 'Invalid params: amount') : undefined) });
    try {
      const h = await homeWithServer('pay', proxy.url);
      const r = await h.run(['call', 'pay', 'send_payment', 'to=refused', 'amount=5', '--detach']);
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(await inDoubtRows(h), []);
      assert.equal(paymentsOf(demo), 0);
    } finally {
      await proxy.close();
      await demo.stop();
    }
  });

  test('a CI step re-run without a key: refused while the first is in doubt; --new sends on purpose', async () => {
    const to = 'rerun-nokey';
    const w = await world(() => null);
    try {
      assert.equal((await w.pay([`to=${to}`, 'amount=7'])).code, 10);
      // The same call with its arguments in another order and form is the same intent.
      const again = await w.home.run(['call', 'pay', 'send_payment', '--args-json', JSON.stringify({ amount: 7, to }), '--detach']);
      assert.equal(again.code, 10, again.stderr);
      assert.equal(paymentsOf(w.demo), 1);
      // Other arguments are another intent: unaffected.
      assert.equal((await w.pay([`to=${to}-other`, 'amount=7'])).code, 0);
      const forced = await w.pay([`to=${to}`, 'amount=7'], ['--new']);
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(paymentsOf(w.demo), 3, 'the other intent and --new sent one each, as asked');
    } finally {
      await w.close();
    }
  });

  test('a CI step re-run with --idempotency-key: the same operation, never a second payment', async () => {
    const to = 'rerun-key';
    const w = await world(() => null, IDEM_META);
    try {
      const key = ['--idempotency-key', 'pipeline-42/pay'];
      assert.equal((await w.pay([`to=${to}`, 'amount=9'], key)).code, 10);
      const again = await w.pay([`to=${to}`, 'amount=9'], key);
      assert.equal(again.code, 10, again.stderr);
      assert.match(again.stderr, /idempotency key "pipeline-42\/pay".*in doubt/);
      // The same key from the environment, as a CI job sets it, with other arguments: a usage error naming both.
      const other = await w.home.run(['call', 'pay', 'send_payment', `to=${to}`, 'amount=10', '--detach'], { env: { MCP_TASKS_IDEMPOTENCY_KEY: 'pipeline-42/pay' } });
      assert.equal(other.code, 1, other.stderr);
      assert.match(other.stderr, /"amount":9.*"amount":10/s);
      // recover: the server deduplicates on the key, so the resubmission returns the first task.
      const rec = await w.home.run(['recover', (await inDoubtRows(w.home))[0]!.opId as string, '--resubmit']);
      assert.equal(rec.code, 0, rec.stderr);
      assert.equal(paymentsOf(w.demo), 1, 'one payment: the resubmission was deduplicated by the server');
      assert.equal(w.created.length, 2, 'both requests reached the server');
      assert.equal(w.created[0], w.created[1], 'and the server answered both with the same task');
      // Now the key's record has a task: a re-run follows it (here: prints it), sends nothing.
      const third = await w.pay([`to=${to}`, 'amount=9'], key);
      assert.equal(third.code, 0, third.stderr);
      assert.match(third.stderr, /nothing was sent again/);
      assert.equal(w.created.length, 2, 'the third run sent no tools/call');
    } finally {
      await w.close();
    }
  });

  test('a resubmission the server answers with its finished task keeps that task\'s result (recover --resubmit --detach)', async () => {
    const w = await world(() => null, IDEM_META);
    try {
      assert.equal((await w.pay(['to=finished', 'amount=2'])).code, 10);
      const op = (await inDoubtRows(w.home))[0]!.opId as string;
      // The payment settles at the server (2 s) while its record is in doubt; the on-call comes later.
      await sleep(2300);
      const r = await w.home.run(['--json', 'recover', op, '--resubmit', '--detach']);
      assert.equal(r.code, 0, r.stderr);
      const shown = parseJsonDoc(r.stdout);
      assert.equal(shown.taskId, w.created[0], "the server's first task");
      assert.equal(shown.status, 'completed');
      assert.equal(shown.result?.content?.[0]?.text, 'Paid 2 EUR to finished', 'the result is fetched, not a bare "completed"');
      const rows = parseJsonDoc((await w.home.run(['--json', 'list', '--all'])).stdout) as Array<Record<string, any>>;
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.result?.content?.[0]?.text, 'Paid 2 EUR to finished', 'the record keeps the result (prune may drop only such a record)');
      assert.equal(paymentsOf(w.demo), 1);
    } finally {
      await w.close();
    }
  });

  test('a second runner (another home) with the same key gets the first runner\'s task', async () => {
    const to = 'second-runner';
    const w = await world(() => null, IDEM_META);
    try {
      const key = ['--idempotency-key', 'deploy-7'];
      assert.equal((await w.pay([`to=${to}`, 'amount=3'], key)).code, 10, 'the first runner died in doubt');
      const runner2 = await homeWithServer('pay', w.proxy.url, IDEM_META);
      const r = await runner2.run(['--json', 'call', 'pay', 'send_payment', `to=${to}`, 'amount=3', '--detach', ...key]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(parseJsonDoc(r.stdout).taskId, w.created[0], "the server's first task, not a new one");
      assert.equal(paymentsOf(w.demo), 1);
    } finally {
      await w.close();
    }
  });

  test('the adoption path: the found taskId is attached to the in-doubt record, never a second record', async () => {
    const to = 'adopt';
    const w = await world(() => null);
    try {
      assert.equal((await w.pay([`to=${to}`, 'amount=4'])).code, 10);
      const [doubt] = await inDoubtRows(w.home);
      const taskId = w.created[0]!;
      // The old adoption hint: offered --attach instead of adding an "(unknown operation)" record.
      const adopt = await w.home.run(['get', '-', '--server', 'pay', '--save'], { input: taskId });
      assert.equal(adopt.code, 10, adopt.stderr);
      assert.match(adopt.stderr, /recover [0-9a-f]{8} --attach -/);
      const attach = await w.home.run(['recover', (doubt!.opId as string).slice(0, 8), '--attach', '-'], { input: taskId });
      assert.equal(attach.code, 0, attach.stderr);
      assert.doesNotMatch(attach.stdout + attach.stderr, new RegExp(taskId), 'the handle is not printed whole');
      const rows = parseJsonDoc((await w.home.run(['--json', 'list', '--all'])).stdout) as Array<Record<string, any>>;
      assert.equal(rows.length, 1, 'one record for one intent');
      assert.equal(rows[0]!.taskId, taskId);
      assert.equal(rows[0]!.opId, doubt!.opId, 'the in-doubt record became the task');
      assert.equal(rows[0]!.operation.name, 'send_payment');
      assert.deepEqual(await inDoubtRows(w.home), []);
      assert.equal((await w.home.run(['recover', (doubt!.opId as string).slice(0, 8), '--resubmit', '--force', '--yes'])).code, 1, 'nothing to resubmit: it has its task');
      assert.equal(paymentsOf(w.demo), 1);
    } finally {
      await w.close();
    }
  });

  test('lying annotations: a tool claiming read-only and idempotent is still not resubmitted without --force', async () => {
    const to = 'liar';
    const lie = (req: ProxiedRequest, up: UpstreamAnswer) => {
      if (methodOf(req.body) !== 'tools/list' || !up.message) return undefined;
      const msg = structuredClone(up.message) as { result: { tools: Array<Record<string, unknown>> } };
      for (const t of msg.result.tools) t.annotations = { readOnlyHint: true, idempotentHint: true, destructiveHint: false };
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(msg) };
    };
    const w = await world(() => null, [], { replace: lie });
    try {
      assert.equal((await w.pay([`to=${to}`, 'amount=2'])).code, 10);
      const [doubt] = await inDoubtRows(w.home);
      assert.equal((doubt!.resubmit as { safe: boolean }).safe, false, 'annotations are a claim, not proof');
      const r = await w.home.run(['recover', (doubt!.opId as string).slice(0, 8), '--resubmit']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /refusing to resubmit/);
      assert.equal(paymentsOf(w.demo), 1);
    } finally {
      await w.close();
    }
  });

  test('--resolve sticks: get, recover and list report the verdict, nothing offers a resubmission', async () => {
    const to = 'resolved';
    const w = await world(() => null);
    try {
      assert.equal((await w.pay([`to=${to}`, 'amount=6'])).code, 10);
      const op = ((await inDoubtRows(w.home))[0]!.opId as string).slice(0, 8);
      const shown = await w.home.run(['recover', op]);
      assert.doesNotMatch(shown.stdout, /completed\|not-run|not-run\|failed/, 'no a|b|c alternatives: a shell runs them as a pipeline');
      assert.match(shown.stdout, new RegExp(`recover ${op} --resolve completed --note`));
      assert.equal((await w.home.run(['recover', op, '--resolve', 'completed', '--note', 'paid, checked the ledger'])).code, 0);
      for (const args of [['get', op], ['watch', op], ['recover', op]]) {
        const r = await w.home.run(args);
        assert.equal(r.code, 0, `${args.join(' ')}: the verdict's exit code\n${r.stderr}`);
        assert.match(r.stdout + r.stderr, /resolved by hand as completed/, args.join(' '));
        assert.match(r.stdout + r.stderr, /paid, checked the ledger/);
        assert.doesNotMatch(r.stdout + r.stderr, /--resubmit(?! --force)/, `${args.join(' ')} offers no plain resubmission`);
      }
      const json = parseJsonDoc((await w.home.run(['--json', 'list', '--all'])).stdout) as Array<Record<string, any>>;
      assert.equal(json[0]!.status, 'resolved');
      assert.equal(json[0]!.resolution.outcome, 'completed');
      assert.match((await w.home.run(['list', '--all'])).stdout, /resolved completed/);
      assert.deepEqual(await inDoubtRows(w.home), []);
      const resubmit = await w.home.run(['recover', op, '--resubmit']);
      assert.equal(resubmit.code, 1, resubmit.stderr);
      assert.equal(paymentsOf(w.demo), 1);
    } finally {
      await w.close();
    }
  });

  test('a dead submitter is in doubt everywhere: list, --status in-doubt, show, --json, and a re-run', async () => {
    const to = 'killed';
    // The request reaches the server, its answer never comes: the CLI is killed while it waits.
    const w = await world(() => 'hold');
    try {
      const cli = w.home.spawn(['call', 'pay', 'send_payment', `to=${to}`, 'amount=8', '--detach']);
      while (w.created.length === 0) await new Promise((r) => setTimeout(r, 20));
      cli.kill('SIGKILL');
      await cli.done.catch(() => {});
      const listed = await w.home.run(['list']);
      assert.match(listed.stdout, /in-doubt/);
      const filtered = parseJsonDoc((await w.home.run(['--json', 'list', '--status', 'in-doubt'])).stdout) as Array<Record<string, any>>;
      assert.equal(filtered.length, 1);
      assert.equal(filtered[0]!.status, 'in-doubt');
      assert.equal(filtered[0]!.phase, 'in-doubt');
      const all = parseJsonDoc((await w.home.run(['--json', 'list', '--all'])).stdout) as Array<Record<string, any>>;
      assert.equal(all[0]!.phase, 'in-doubt');
      const show = await w.home.run(['show', (all[0]!.opId as string).slice(0, 8)]);
      assert.match(show.stdout, /phase\s+in-doubt/);
      assert.equal((await inDoubtRows(w.home)).length, 1);
      assert.equal((await w.pay([`to=${to}`, 'amount=8'])).code, 10, 'the re-run is refused');
      assert.equal(paymentsOf(w.demo), 1);
    } finally {
      await w.close();
    }
  });
});

