// Every exit code of the contract, produced by a real situation against the embedded demo
// server (stdio `demo` and Streamable HTTP), its faults, a stopped server, a server that
// refuses credentials, a damaged vault, --timeout and Ctrl-C.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addHttpServer, filesUnder, newHome, parseJsonDoc, startDemo, type DemoServer, homeWithServer } from '../helpers/cli.js';
import { rpcErrorReply, startProxy } from '../helpers/proxy.js';
import { seededWord } from '../helpers/seeded.js';

const refOf = (stdout: string) => parseJsonDoc(stdout).taskId as string;

describe('exit codes from real situations', { concurrency: 4 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('0: a task that completes (stdio demo)', async () => {
    const h = newHome();
    const r = await h.run(['call', 'demo', 'slow_compute', 'seconds=1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /slow_compute on demo: completed/);
    assert.match(r.stdout, /Computed slow_compute after 1 second/);
  });

  test('1: usage errors and invalid input', async () => {
    const h = newHome();
    const cases: Array<[string[], RegExp]> = [
      [['no-such-command'], /unknown command/],
      [['call', 'demo'], /missing required argument/],
      [['call', 'demo', 'slow_compute', 'seconds=1', '--timeout', 'soon'], /--timeout "soon" is not a duration/],
      [['call', 'nowhere', 'slow_compute'], /no server named "nowhere"/],
      [['call', 'demo', 'no_such_tool'], /has no tool "no_such_tool"/],
      [['get', 'abcdefgh'], /no task in the vault matches "abcdefgh"/],
      [['call', 'demo', 'slow_compute', 'seconds=1', '--label', 'novalue'], /--label "novalue" is not key=value/],
    ];
    await Promise.all(
      cases.map(async ([args, message]) => {
        const r = await h.run(args);
        assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message, args.join(' '));
        assert.equal(r.stdout, '', `${args.join(' ')} printed on stdout`);
      }),
    );
  });

  test('2: a task that ends failed with a JSON-RPC error (HTTP)', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['call', 'web', 'protocol_error_job']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stdout, /protocol_error_job on web: failed/);
    assert.match(r.stdout, /error -32603: Internal error: simulated protocol failure/);
  });

  test('3: cancel --wait reports the cancelled state it observed (HTTP)', async () => {
    const h = await homeWithServer('web', demo.url);
    const started = await h.run(['--json', 'call', 'web', 'slow_compute', 'seconds=30', '--detach', '--label', 'job=cancel-me']);
    assert.equal(started.code, 0, started.stderr);
    const r = await h.run(['cancel', 'cancel-me', '--wait']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stdout, /slow_compute on web: cancelled/);
    const get = await h.run(['--json', 'get', '--', refOf(started.stdout)]);
    assert.equal(get.code, 3, get.stderr);
    assert.equal(parseJsonDoc(get.stdout).status, 'cancelled');
  });

  test('4: a task that completes with a tool error (stdio demo)', async () => {
    const h = newHome();
    const r = await h.run(['call', 'demo', 'failing_job']);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stdout, /failing_job on demo: completed with a tool error/);
    assert.match(r.stdout, /simulated tool error/);
  });

  test('5: a task waiting for input, without a TTY (HTTP and stdio)', async () => {
    const h = await homeWithServer('web', demo.url);
    const [http, stdio] = await Promise.all([h.run(['call', 'web', 'confirm_delete', 'filename=a.txt']), h.run(['call', 'demo', 'confirm_delete', 'filename=b.txt'])]);
    for (const r of [http, stdio]) {
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stdout, /input required/);
      assert.match(r.stderr, /confirm: a form: Delete [ab]\.txt\?/);
    }
    // The handles are kept: the tasks wait on the server for an answer.
    const list = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ status: string; operation: { name: string } }>;
    assert.equal(list.filter((x) => x.operation.name === 'confirm_delete' && x.status === 'input_required').length, 2);
  });

  test('5: input asked before any task exists (preflight), nothing kept', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['call', 'web', 'preflight_check']);
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /environment/);
    assert.match(r.stderr, /nothing was started/);
    const list = await h.run(['--json', 'list', '--all']);
    assert.deepEqual(parseJsonDoc(list.stdout), []);
  });

  test('6: the TTL elapses while the task is followed (ttl fault)', async () => {
    const short = await startDemo({ faults: ['ttl=1500'] });
    try {
      const h = await homeWithServer('web', short.url);
      const r = await h.run(['call', 'web', 'slow_compute', 'seconds=5', '--label', 'job=short']);
      assert.equal(r.code, 6, r.stderr);
      assert.match(r.stderr, /task lost/);
      assert.match(r.stderr, /do not assume it succeeded/);
      assert.doesNotMatch(r.stdout, /completed/);
      // The record says lost; asking again is still a loss, never a success.
      const [again] = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ phase: string }>;
      assert.equal(again?.phase, 'lost');
      const get = await h.run(['get', 'short']);
      assert.equal(get.code, 6, get.stderr);
      // The stale status message is history, not state; the last reported status is named as such.
      assert.match(get.stdout, /slow_compute on web: lost\n  the server no longer knows this task/);
      assert.doesNotMatch(get.stdout, /Computing slow_compute/);
      assert.match(get.stdout, /last reported status: working/);
      // In JSON a script reading `status` sees "lost", never the last "working".
      const json = await h.run(['--json', 'get', 'short']);
      assert.equal(json.code, 6);
      const doc = parseJsonDoc(json.stdout);
      assert.equal(doc.status, 'lost');
      assert.equal(doc.lastStatus, 'working');
      assert.equal(doc.phase, 'lost');
      assert.match(doc.reason, /no longer knows this task/);
      assert.equal(doc.statusMessage, undefined);
      assert.deepEqual(doc.operation, { method: 'tools/call', name: 'slow_compute', arguments: { seconds: 5 } });
      // A taskId inspected without the vault: its operation is unknown, and says so (null).
      const adhoc = await h.run(['--json', 'get', '--server', 'web', '--', 'not-a-task-id-at-all']);
      assert.equal(adhoc.code, 6);
      assert.equal(parseJsonDoc(adhoc.stdout).operation, null);
      assert.equal(parseJsonDoc(adhoc.stdout).status, 'lost');
    } finally {
      await short.stop();
    }
  });

  test('6: a taskId the server does not know (--server)', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['get', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '--server', 'web']);
    assert.equal(r.code, 6, r.stderr);
    assert.match(r.stderr, /unknown or expired taskId/);
    const w = await h.run(['watch', 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', '--server', 'web']);
    assert.equal(w.code, 6, w.stderr);
  });

  test('7: get against a stopped server keeps the handle', async () => {
    const gone = await startDemo();
    const h = await homeWithServer('web', gone.url);
    const started = await h.run(['--json', 'call', 'web', 'slow_compute', 'seconds=60', '--detach', '--label', 'job=orphan']);
    assert.equal(started.code, 0, started.stderr);
    await gone.stop();
    const r = await h.run(['get', 'orphan']);
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /cannot reach the server/);
    const json = await h.run(['--json', 'get', 'orphan']);
    assert.equal(json.code, 7);
    assert.equal(parseJsonDoc(json.stdout).error.kind, 'unreachable');
    const list = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ taskId: string; phase: string }>;
    assert.deepEqual(
      list.map((x) => [x.taskId, x.phase]),
      [[refOf(started.stdout), 'active']],
    );
  });

  test('7: watch retries a stopped server, then gives up (MCP_TASKS_RETRY)', async () => {
    const gone = await startDemo();
    const h = await homeWithServer('web', gone.url);
    const started = await h.run(['call', 'web', 'slow_compute', 'seconds=60', '--detach', '--label', 'job=orphan']);
    assert.equal(started.code, 0, started.stderr);
    await gone.stop();
    const r = await h.run(['watch', 'orphan'], { env: { MCP_TASKS_RETRY: '2,50' }, timeoutMs: 45_000 });
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /retry 1\/2/);
    assert.match(r.stderr, /retry 2\/2/);
    assert.match(r.stderr, /unreachable.*The handle is kept/);
    const list = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ phase: string }>;
    assert.equal(list[0]?.phase, 'active');
  });

  test('7, not 2: a JSON-RPC error on tasks/get is not a failed task; the handle is kept', async () => {
    // A real proxy in front of the demo server that, while `refusing`, answers tasks/get with an
    // error a server we did not write might send (e.g. a header it does not accept).
    let refusing = false;
    const proxy = await startProxy(demo.url, {
      answer: (req) => (refusing && req.headers['mcp-method'] === 'tasks/get' ? rpcErrorReply(req.body, -32001, 'simulated refusal of this request') : undefined),
    });
    try {
      const h = await homeWithServer('picky', proxy.url);
      const started = await h.run(['call', 'picky', 'slow_compute', 'seconds=60', '--detach', '--label', 'job=picky']);
      assert.equal(started.code, 0, started.stderr);
      refusing = true;
      for (const args of [['get', 'picky'], ['watch', 'picky']]) {
        const r = await h.run(args);
        assert.equal(r.code, 7, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /answered tasks\/get with error -32001.*simulated refusal.*the task's state was not observed, and its handle is kept/);
        assert.doesNotMatch(r.stdout, /failed/);
      }
      const json = await h.run(['--json', 'get', 'picky']);
      assert.equal(json.code, 7);
      assert.equal(parseJsonDoc(json.stdout).error.kind, 'protocol');
      const [rec] = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ status: string; phase: string }>;
      assert.deepEqual([rec?.status, rec?.phase], ['working', 'active'], 'the record is unchanged');
      // Once the server answers again, the same handle works.
      refusing = false;
      const again = await h.run(['get', 'picky']);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /slow_compute on picky: working/);
    } finally {
      await proxy.close();
    }
  });

  test('8: a server that refuses the bearer token (HTTP 401)', async () => {
    const seen: Array<string | undefined> = [];
    const server: Server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      req.resume();
      req.on('end', () => {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="e2e"' });
        res.end('{"error":"unauthorized"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const token = `tok-${seededWord()}-do-not-print`;
    try {
      const h = newHome();
      await addHttpServer(h, 'locked', `http://127.0.0.1:${port}/mcp`, ['--bearer-env', 'E2E_LOCKED_TOKEN']);
      const env = { E2E_LOCKED_TOKEN: token };
      const call = await h.run(['-v', 'call', 'locked', 'slow_compute', 'seconds=1'], { env });
      assert.equal(call.code, 8, call.stderr);
      assert.match(call.stderr, /refused/);
      const check = await h.run(['--json', 'server', 'check', 'locked'], { env });
      assert.equal(check.code, 8, check.stderr);
      assert.equal(parseJsonDoc(check.stdout).error.kind, 'auth');
      assert.ok(seen.includes(`Bearer ${token}`), 'the token was sent');
      for (const out of [call.stdout, call.stderr, check.stdout, check.stderr]) assert.ok(!out.includes(token), 'the token was printed');
      for (const f of filesUnder(h.dir)) assert.ok(!f.bytes.includes(token), `the token is in ${f.path}`);
      // No token at all is refused before anything is sent.
      const before = seen.length;
      const none = await h.run(['call', 'locked', 'slow_compute', 'seconds=1']);
      assert.equal(none.code, 8, none.stderr);
      assert.match(none.stderr, /E2E_LOCKED_TOKEN.*not set/);
      assert.equal(seen.length, before);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  test('9: a damaged vault is reported and left byte for byte as it was', async () => {
    const h = newHome();
    const first = await h.run(['call', 'demo', 'slow_compute', 'seconds=0', '--detach']);
    assert.equal(first.code, 0, first.stderr);
    const vault = join(h.dir, 'vault.json');
    const good = readFileSync(vault);
    const damaged = good.subarray(0, Math.floor(good.length / 2));
    writeFileSync(vault, damaged);
    for (const args of [['list'], ['--json', 'list'], ['get', 'anything'], ['call', 'demo', 'slow_compute', 'seconds=0']]) {
      const r = await h.run(args);
      assert.equal(r.code, 9, `${args.join(' ')}: ${r.stderr}`);
      assert.deepEqual(readFileSync(vault), damaged, `${args.join(' ')} changed the vault file`);
    }
    const json = parseJsonDoc((await h.run(['--json', 'list'])).stdout);
    assert.equal(json.error.kind, 'vault');
    assert.match(json.error.message, /vault/);
    assert.match(json.error.message, /left untouched|nothing was changed/);
    assert.equal(typeof json.error.next, 'string');
  });

  test('9: a passphrase vault with a wrong or missing key', async () => {
    const h = newHome();
    const made = await h.run(['call', 'demo', 'slow_compute', 'seconds=0', '--detach'], { env: { MCP_TASKS_VAULT_KEY: 'correct horse' } });
    assert.equal(made.code, 0, made.stderr);
    const vault = join(h.dir, 'vault.json');
    const bytes = readFileSync(vault);
    const wrong = await h.run(['list'], { env: { MCP_TASKS_VAULT_KEY: 'battery staple' } });
    assert.equal(wrong.code, 9, wrong.stderr);
    const missing = await h.run(['list']);
    assert.equal(missing.code, 9, missing.stderr);
    assert.match(missing.stderr, /MCP_TASKS_VAULT_KEY/);
    assert.deepEqual(readFileSync(vault), bytes);
    const right = await h.run(['--json', 'list', '--all'], { env: { MCP_TASKS_VAULT_KEY: 'correct horse' } });
    assert.equal(right.code, 0, right.stderr);
    assert.equal((parseJsonDoc(right.stdout) as unknown[]).length, 1);
  });

  test('9: a damaged vault stops call before anything is sent (HTTP)', async () => {
    const own = await startDemo({ verbose: true });
    try {
      const h = await homeWithServer('web', own.url);
      writeFileSync(join(h.dir, 'vault.json'), '{"format":"mcp-tasks-vault",');
      const r = await h.run(['call', 'web', 'slow_compute', 'seconds=1']);
      assert.equal(r.code, 9, r.stderr);
      assert.equal(await own.count('tools/call'), 0);
    } finally {
      await own.stop();
    }
  });

  test('10: the create response is lost (drop-create-response): in doubt, not retried', async () => {
    const dropping = await startDemo({ faults: ['drop-create-response'], verbose: true });
    try {
      const h = await homeWithServer('web', dropping.url);
      const r = await h.run(['call', 'web', 'slow_compute', 'seconds=1']);
      assert.equal(r.code, 10, r.stderr);
      assert.match(r.stderr, /in doubt/);
      assert.match(r.stderr, /Do not simply run the same call again/);
      assert.equal(await dropping.count('tools/call'), 1, 'the call was sent exactly once');
      // The same call again is refused while the first is in doubt: nothing is sent.
      const again = await h.run(['--json', 'call', 'web', 'slow_compute', 'seconds=1']);
      assert.equal(again.code, 10);
      assert.equal(parseJsonDoc(again.stdout).error.kind, 'in-doubt');
      assert.match(parseJsonDoc(again.stdout).error.message, /identical call is in doubt/);
      assert.equal(await dropping.count('tools/call'), 1, 'the identical re-run sent nothing');
      const json = await h.run(['--json', 'call', 'web', 'slow_compute', 'seconds=2']);
      assert.equal(json.code, 10);
      const doc = parseJsonDoc(json.stdout);
      assert.equal(doc.error.kind, 'in-doubt');
      const list = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ phase: string }>;
      assert.deepEqual(
        list.map((x) => x.phase),
        ['in-doubt', 'in-doubt'],
      );
    } finally {
      await dropping.stop();
    }
  });

  test('124: --timeout while the task is still running keeps the handle (HTTP)', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['call', 'web', 'slow_compute', 'seconds=30', '--timeout', '1s', '--label', 'job=long']);
    assert.equal(r.code, 124, r.stderr);
    assert.match(r.stderr, /--timeout was reached; the handle is kept/);
    const list = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ status: string; phase: string; labels: Record<string, string> }>;
    assert.equal(list.length, 1);
    assert.equal(list[0]!.status, 'working');
    assert.equal(list[0]!.phase, 'active');
    assert.deepEqual(list[0]!.labels, { job: 'long' });
    const w = await h.run(['watch', 'long', '--timeout', '700ms']);
    assert.equal(w.code, 124, w.stderr);
  });

  test('130: Ctrl-C during watch keeps the handle (stdio demo, the whole process group)', async () => {
    const h = newHome();
    const started = await h.run(['--json', 'call', 'demo', 'slow_compute', 'seconds=60', '--detach', '--label', 'job=int']);
    assert.equal(started.code, 0, started.stderr);
    // As in a terminal: SIGINT reaches mcp-tasks and the demo server it spawned.
    const watch = h.spawn(['watch', 'int'], { detached: true });
    await watch.waitFor(/slow_compute on demo: working/);
    watch.kill('SIGINT', { group: true });
    const r = await watch.done;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /interrupted; the task keeps running on the server and its handle is kept/);
    const list = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ taskId: string; status: string }>;
    assert.deepEqual(
      list.map((x) => [x.taskId, x.status]),
      [[refOf(started.stdout), 'working']],
    );
  });

  test('130: Ctrl-C during call keeps the handle (stdio demo, the whole process group)', async () => {
    const h = newHome();
    const call = h.spawn(['call', 'demo', 'slow_compute', 'seconds=60', '--label', 'job=int'], { detached: true });
    await call.waitFor(/slow_compute on demo: working/);
    call.kill('SIGINT', { group: true });
    const r = await call.done;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /handle is kept/);
    const list = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ status: string; phase: string }>;
    assert.deepEqual(
      list.map((x) => [x.status, x.phase]),
      [['working', 'active']],
    );
  });

  test('130: Ctrl-C during call keeps the handle (HTTP)', async () => {
    const h = await homeWithServer('web', demo.url);
    const call = h.spawn(['call', 'web', 'slow_compute', 'seconds=60']);
    await call.waitFor(/slow_compute on web: working/);
    call.kill('SIGINT');
    const r = await call.done;
    assert.equal(r.code, 130, r.stderr);
    const list = parseJsonDoc((await h.run(['--json', 'list'])).stdout) as Array<{ status: string; phase: string }>;
    assert.equal(list.length, 1);
    assert.equal(list[0]!.phase, 'active');
    // The handle still works from a new process.
    const get = await h.run(['get', '--', (list[0] as unknown as { taskId: string }).taskId.slice(0, 8)]);
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /working/);
  });
});
