// Bad input to the demo server: malformed HTTP bodies, header/body mismatches, unknown tools
// and bad arguments get the protocol's errors; unusable start-up options end the process with
// a short message and a non-zero exit, never a stack trace or a hang; and no bad request ever
// corrupts the store.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer } from 'node:net';
import { request as httpRequest } from 'node:http';
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  baseHeaders,
  callTool,
  envelope,
  getTask,
  makeTempDir,
  ok,
  readStore,
  request,
  rpcError,
  runCli,
  sha256File,
  startDemoHttp,
  tempStorePath,
  type CliRun,
} from '../helpers/demo-server.js';
import { createTask } from '../helpers/demo-scenarios.js';

/** A start-up failure: non-zero exit, a short message on stderr, no stack trace, nothing on stdout. */
function assertCleanFailure(r: CliRun, mentions: RegExp, code = 1): string {
  assert.equal(r.timedOut, false, `the process hung (killed after ${r.ms} ms)`);
  assert.equal(r.signal, null);
  assert.equal(r.code, code, `exit ${r.code}; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '', 'nothing on stdout');
  const lines = r.stderr.trimEnd().split('\n');
  // One line of message, optionally followed by the one-line safe next step.
  assert.ok(lines.length >= 1 && lines.length <= 2, `stderr has ${lines.length} lines:\n${r.stderr}`);
  assert.match(lines[0]!, /^mcp-tasks: /);
  assert.match(lines[0]!, mentions);
  if (lines[1] !== undefined) assert.match(lines[1], /^\s+next: /);
  assert.ok(!/^\s+at /m.test(r.stderr), `a stack trace on stderr:\n${r.stderr}`);
  return lines[0]!;
}

// The groups are independent (each has its own server or none), so they run side by side.
describe('demo-server bad input', { concurrency: true }, () => {
  test('bad requests over HTTP get protocol errors and never corrupt the store', { concurrency: true }, async (t) => {
    const demo = await startDemoHttp({ t });
    const task = await createTask(demo, 'confirm_delete', { filename: 'precious.txt' });
    const before = readStore(demo.store);

    await Promise.all([
      t.test('a body that is not JSON: HTTP 400 with -32700 and id null', async () => {
        for (const body of ['not json', '{"jsonrpc":"2.0","id":1,"method":', '']) {
          const r = await demo.rawPost(body, { ...baseHeaders('tools/call'), 'mcp-name': 'slow_compute' });
          assert.equal(r.status, 400, `body ${JSON.stringify(body)}`);
          assert.equal(r.json?.error?.code, -32700, r.text);
          assert.equal(r.json.id, null);
          assert.equal(r.json.jsonrpc, '2.0');
        }
      }),

      t.test('JSON that is not a JSON-RPC request: HTTP 400 with -32600', async () => {
        for (const body of ['null', '{}', '{"jsonrpc":"2.0","id":1}', '[]', '42']) {
          const r = await demo.rawPost(body, baseHeaders('tools/call'));
          assert.equal(r.status, 400, `body ${body}: ${r.text}`);
          assert.equal(r.json?.error?.code, -32600, `body ${body}: ${r.text}`);
        }
      }),

      t.test('Mcp-Method header that disagrees with the body: HTTP 400 with -32020 (task tools, sync tools, tasks/*)', async () => {
        const cases: Array<[string, Record<string, unknown>, string]> = [
          ['tools/call', { name: 'slow_compute', arguments: { seconds: 1 } }, 'tools/list'],
          ['tools/call', { name: 'greet', arguments: { name: 'x' } }, 'tools/list'],
          ['tasks/get', { taskId: task.taskId }, 'tasks/cancel'],
        ];
        for (const [method, params, header] of cases) {
          const r = await demo.rpc(method, params, { headers: { 'mcp-method': header } });
          assert.equal(r.status, 400, `${method} sent as ${header}`);
          const e = rpcError(r, -32020, `${method} sent as ${header}`);
          assert.ok(e.data?.mismatch, 'data.mismatch says what disagreed');
        }
        // The mismatched tasks/cancel was not acted on.
        assert.equal(ok(await getTask(demo, task.taskId)).status, 'input_required');
      }),

      t.test('Mcp-Name header that disagrees with (or is missing for) the taskId or tool: HTTP 400 with -32020', async () => {
        const wrong = await demo.rpc('tasks/get', { taskId: task.taskId }, { headers: { 'mcp-name': 'some-other-task' } });
        assert.equal(wrong.status, 400);
        rpcError(wrong, -32020, 'tasks/get with another Mcp-Name');
        const missing = await demo.rpc('tasks/get', { taskId: task.taskId }, { headers: { 'mcp-name': null } });
        assert.equal(missing.status, 400);
        rpcError(missing, -32020, 'tasks/get without Mcp-Name');
        const cancel = await demo.rpc('tasks/cancel', { taskId: task.taskId }, { headers: { 'mcp-name': 'x' } });
        rpcError(cancel, -32020, 'tasks/cancel with another Mcp-Name');
        const tool = await callTool(demo, 'slow_compute', { seconds: 1 }, { headers: { 'mcp-name': 'greet' } });
        assert.equal(tool.status, 400);
        rpcError(tool, -32020, 'tools/call with another Mcp-Name');
        assert.equal(ok(await getTask(demo, task.taskId)).status, 'input_required', 'the mismatched cancel was not acted on');
      }),

      t.test('MCP-Protocol-Version header that disagrees with the envelope: -32020', async () => {
        const r = await callTool(demo, 'slow_compute', { seconds: 1 }, { headers: { 'mcp-protocol-version': '2025-11-25' } });
        assert.equal(r.status, 400);
        rpcError(r, -32020, 'protocol version mismatch');
      }),

      t.test('a modern request without the _meta envelope: -32602 naming it', async () => {
        const r = await demo.rawPost(
          { jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 1 } } },
          { ...baseHeaders('tools/call'), 'mcp-name': 'slow_compute' },
        );
        assert.equal(r.json?.error?.code, -32602, r.text);
        assert.match(r.json.error.message, /_meta/);
        assert.equal(r.json.id, 77);
      }),

      t.test('an unknown tool: a JSON-RPC error -32602 naming it, with or without the extension', async () => {
        for (const tasks of [true, false]) {
          const r = await callTool(demo, 'no_such_tool', {}, { tasks });
          assert.equal(r.status, 200);
          const e = rpcError(r, -32602, 'unknown tool');
          assert.match(e.message, /no_such_tool/);
          assert.equal(r.result, undefined);
        }
      }),

      t.test('malformed arguments: -32602 for task-capable tools; greet (SDK-validated) answers isError', async () => {
        for (const [name, args] of [
          ['slow_compute', { seconds: 'x' }],
          ['slow_compute', {}],
          ['send_payment', { to: 'a', amount: '10' }],
          ['generate_report', { seconds: 'soon' }],
          ['confirm_delete', { filename: 42 }],
        ] as const) {
          const e = rpcError(await callTool(demo, name, args), -32602, `${name} ${JSON.stringify(args)}`);
          assert.match(e.message, /Invalid arguments/);
        }
        const raw = await demo.rpc('tools/call', { name: 'slow_compute', arguments: 'seconds=1' });
        rpcError(raw, -32602, 'arguments as a string');
        const greet = ok(await callTool(demo, 'greet', { name: 5 }), 'greet name: 5');
        assert.equal(greet.isError, true);
        assert.match(greet.content[0].text, /name/);
      }),

      t.test('bad tasks/* params: -32602', async () => {
        rpcError(await demo.rpc('tasks/get', {}), -32602, 'no taskId');
        rpcError(await demo.rpc('tasks/get', { taskId: 12 }), -32602, 'numeric taskId');
        rpcError(await demo.rpc('tasks/update', { taskId: task.taskId, inputResponses: 'yes' }), -32602, 'string inputResponses');
        rpcError(await demo.rpc('tasks/update', { taskId: task.taskId }), -32602, 'no inputResponses');
        assert.equal(ok(await getTask(demo, task.taskId)).status, 'input_required');
      }),

      t.test('an unknown method is -32601', async () => {
        const r = await demo.rawPost({ jsonrpc: '2.0', id: 5, method: 'tasks/frobnicate', params: { _meta: envelope(true) } }, baseHeaders('tasks/frobnicate'));
        assert.equal(r.json?.error?.code, -32601, r.text);
      }),
    ]);

    // After all of that: the store is valid JSON, still holds the task unchanged, and nothing is left half-written.
    const afterAll = readStore(demo.store);
    assert.deepEqual(afterAll, before, 'bad requests changed the store');
    assert.equal(ok(await getTask(demo, task.taskId)).status, 'input_required');
    assert.deepEqual(readdirSync(dirname(demo.store)), ['tasks.json']);
    assert.equal(demo.child.exitCode, null, 'the server survived');
  });

  test('a body over 4 MiB: HTTP 413 with -32600, and the server keeps serving', async (t) => {
    // Its own server: a 413 must not poison the client's keep-alive connection (tested below).
    const demo = await startDemoHttp({ t });
    const big = JSON.stringify(request('tools/call', { name: 'greet', arguments: { name: 'x'.repeat(5 * 1024 * 1024) } }));
    const r = await demo.rawPost(big, { ...baseHeaders('tools/call'), 'mcp-name': 'greet' });
    assert.equal(r.status, 413);
    assert.equal(r.json?.error?.code, -32600);
    assert.match(r.json.error.message, /too large/i);
    // A fresh connection is served normally.
    const body = JSON.stringify(request('tools/call', { name: 'greet', arguments: { name: 'after' } }));
    const answer = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(demo.url, { method: 'POST', agent: false, headers: { ...baseHeaders('tools/call'), 'mcp-name': 'greet' }, timeout: 10_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve(text));
      });
      req.on('error', reject).on('timeout', () => req.destroy(new Error('timeout')));
      req.end(body);
    });
    assert.equal(JSON.parse(answer).result.content[0].text, 'Hello, after!');
    assert.equal(demo.child.exitCode, null);
    readStore(demo.store);
  });

  test('an oversized body is read to its end before the 413: the sender reads the 413, and the same connection answers next', async (t) => {
    // A server that stops reading at the limit and closes makes the sender's write fail (EPIPE)
    // before it can read the 413, depending on timing. Read to its end, the 413 always arrives and
    // the connection stays open: two requests written back to back on one socket get two answers.
    const demo = await startDemoHttp({ t });
    const url = new URL(demo.url);
    const raw = (body: string) =>
      [`POST ${url.pathname} HTTP/1.1`, `host: ${url.host}`, ...Object.entries({ ...baseHeaders('tools/call'), 'mcp-name': 'greet' }).map(([k, v]) => `${k}: ${v}`), `content-length: ${Buffer.byteLength(body)}`, '', body].join('\r\n');
    const big = raw(JSON.stringify(request('tools/call', { name: 'greet', arguments: { name: 'x'.repeat(5 * 1024 * 1024) } })));
    const small = raw(JSON.stringify(request('tools/call', { name: 'greet', arguments: { name: 'same socket' } })));
    const answers = await new Promise<string>((resolve, reject) => {
      let got = '';
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(big);
        socket.write(small);
      });
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => {
        got += d;
        if (got.includes('Hello, same socket!')) {
          socket.destroy();
          resolve(got);
        }
      });
      socket.on('error', (err) => reject(new Error(`${err.message}; read so far: ${got.slice(0, 300)}`)));
      socket.on('close', () => resolve(got));
    });
    assert.match(answers, /^HTTP\/1\.1 413 /, answers.slice(0, 300));
    assert.match(answers, /"code":-32600/);
    assert.match(answers, /HTTP\/1\.1 200 [^]*Hello, same socket!/, `the same connection answered the next request: ${answers.slice(0, 600)}`);
  });

  test('after a 413, the server goes on answering (five calls; the same connection is the raw-socket case above)', async (t) => {
    const demo = await startDemoHttp({ t });
    const big = JSON.stringify(request('tools/call', { name: 'greet', arguments: { name: 'x'.repeat(5 * 1024 * 1024) } }));
    assert.equal((await demo.rawPost(big, { ...baseHeaders('tools/call'), 'mcp-name': 'greet' })).status, 413);
    for (let i = 0; i < 5; i++) {
      const r = ok(await callTool(demo, 'greet', { name: `next ${i}` }, { timeoutMs: 15_000 }), `greet ${i} after a 413`);
      assert.equal(r.content[0].text, `Hello, next ${i}!`);
    }
  });

  test('start-up failures exit non-zero with a short message', { concurrency: 4 }, async (t) => {
    await Promise.all([
      t.test('a store path under a regular file', async (t) => {
        const dir = makeTempDir(t);
        writeFileSync(join(dir, 'file'), 'x');
        const store = join(dir, 'file', 'tasks.json');
        const line = assertCleanFailure(await runCli(['demo-server', '--http', '0', '--store', store], { t }), /cannot use task store/);
        assert.ok(line.includes(store), line);
        assert.equal(readFileSync(join(dir, 'file'), 'utf8'), 'x');
      }),

      t.test('a store path that is a directory', async (t) => {
        const dir = makeTempDir(t);
        assertCleanFailure(await runCli(['demo-server', '--stdio', '--store', dir], { t }), /task store/);
      }),

      t.test('a store path under a dangling symlink', async (t) => {
        const dir = makeTempDir(t);
        symlinkSync(join(dir, 'missing-target'), join(dir, 'dangling'));
        assertCleanFailure(await runCli(['demo-server', '--http', '0', '--store', join(dir, 'dangling', 'sub', 'tasks.json')], { t }), /cannot use task store/);
      }),

      t.test('a store path in /sys (unwritable)', async (t) => {
        assertCleanFailure(await runCli(['demo-server', '--http', '0', '--store', '/sys/mcp-tasks-test/tasks.json'], { t }), /task store/);
      }),

      t.test('a store path under /proc exits instead of hanging', async (t) => {
        assertCleanFailure(await runCli(['demo-server', '--http', '0', '--store', '/proc/x/tasks.json'], { t, timeoutMs: 20_000 }), /task store/);
      }),

      t.test('a corrupt store file: refused, bytes unchanged', async (t) => {
        const store = tempStorePath(t);
        writeFileSync(store, '{"format":"mcp-tasks-demo-store","version":2,"tasks":{"a":');
        const hash = sha256File(store);
        assertCleanFailure(await runCli(['demo-server', '--http', '0', '--store', store], { t }), /not valid JSON/);
        assert.equal(sha256File(store), hash, 'the corrupt store was rewritten');
        assert.deepEqual(readdirSync(dirname(store)), ['tasks.json'], 'no lock or temp file left behind');
      }),

      t.test('a JSON file that is not a store: refused, bytes unchanged', async (t) => {
        const store = tempStorePath(t);
        writeFileSync(store, '{"name":"my-package","version":"1.0.0"}\n');
        const hash = sha256File(store);
        assertCleanFailure(await runCli(['demo-server', '--stdio', '--store', store], { t }), /not an mcp-tasks demo store/);
        assert.equal(sha256File(store), hash);
      }),

      t.test('a port already in use: the message names the port', async (t) => {
        const blocker = createServer();
        await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
        t.after(() => new Promise<void>((r) => blocker.close(() => r())));
        const port = (blocker.address() as { port: number }).port;
        const line = assertCleanFailure(await runCli(['demo-server', '--http', String(port), '--store', tempStorePath(t)], { t }), new RegExp(`port ${port}\\b.*in use`));
        assert.ok(line.includes(String(port)));
      }),

      t.test('an unknown --fault: exit 1 naming it (and the known ones)', async (t) => {
        const line = assertCleanFailure(await runCli(['demo-server', '--http', '0', '--store', tempStorePath(t), '--fault', 'rate-limit', '--fault', 'explode'], { t }), /"explode"/);
        assert.match(line, /drop-create-response/);
      }),

      t.test('a fault missing its number: exit 1 with an example', async (t) => {
        assertCleanFailure(await runCli(['demo-server', '--http', '0', '--store', tempStorePath(t), '--fault', 'ttl=soon'], { t }), /ttl=500/);
      }),

      t.test('a bad --http port and --http with --stdio: exit 1', async (t) => {
        assertCleanFailure(await runCli(['demo-server', '--http', 'eighty', '--store', tempStorePath(t)], { t }), /--http needs a port number.*"eighty"/);
        assertCleanFailure(await runCli(['demo-server', '--http', '70000', '--store', tempStorePath(t)], { t }), /--http needs a port number/);
        assertCleanFailure(await runCli(['demo-server', '--http', '0', '--stdio', '--store', tempStorePath(t)], { t }), /--http.*--stdio/);
      }),
    ]);
  });
});
