// Named servers end to end: server add (HTTP with --header/--bearer-env, stdio with --env),
// list/show never printing secrets, import of an mcpServers file with --only, check (protocol
// generation and the tasks extension), refusal of plain http:// off loopback, and `tools` hints.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addHttpServer, BIN, filesUnder, newHome, parseJsonDoc, startDemo, tempDir, type CliResult, type DemoServer, type Home, homeWithServer } from '../helpers/cli.js';
import { startProxy } from '../helpers/proxy.js';

const secret = (name: string) => `${name}-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;

function assertNowhere(value: string, outputs: CliResult[], home: Home): void {
  for (const r of outputs) {
    assert.ok(!r.stdout.includes(value), `secret printed on stdout:\n${r.stdout}`);
    assert.ok(!r.stderr.includes(value), `secret printed on stderr:\n${r.stderr}`);
  }
  for (const f of filesUnder(home.dir)) assert.ok(!f.bytes.includes(value), `secret stored in ${f.path}`);
}

const serverNames = async (h: Home) => (parseJsonDoc((await h.run(['--json', 'server', 'list'])).stdout) as Array<{ name: string }>).map((s) => s.name);

describe('named servers', { concurrency: 4 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.stop();
  });

  test('HTTP with --bearer-env and --header: used at connect time, never printed or stored', async () => {
    const h = newHome();
    const token = secret('bearer');
    const apiKey = secret('apikey');
    const env = { E2E_TOKEN: token, E2E_API_KEY: apiKey };
    const outputs: CliResult[] = [];
    const run = async (args: string[], code = 0) => {
      const r = await h.run(args, { env });
      outputs.push(r);
      assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
      return r;
    };
    await run(['server', 'add', 'web', '--url', demo.url, '--bearer-env', 'E2E_TOKEN', '--header', 'X-Team: search', '--header', 'X-Api-Key: env:E2E_API_KEY']);
    const shown = parseJsonDoc((await run(['--json', 'server', 'show', 'web'])).stdout);
    assert.equal(shown.name, 'web');
    assert.equal(shown.transport, 'http');
    assert.equal(shown.url, demo.url);
    assert.deepEqual(shown.auth, { kind: 'bearer-env', variable: 'E2E_TOKEN' });
    assert.deepEqual(shown.headers, { 'X-Team': 'search', 'X-Api-Key': 'env:E2E_API_KEY' });
    const text = await run(['server', 'show', 'web']);
    assert.match(text.stdout, /E2E_TOKEN/);
    const list = await run(['server', 'list']);
    assert.match(list.stdout, /^demo\s+built-in demo server \(stdio\)$/m);
    assert.match(list.stdout, new RegExp(`^web\\s+${demo.url.replace(/[.]/g, '\\.')}`, 'm'));
    await run(['--json', 'server', 'list']);
    // Real use of the credentials, verbose.
    const check = await run(['-v', 'server', 'check', 'web']);
    assert.match(check.stdout, /2026-07-28/);
    const call = await run(['-v', '--json', 'call', 'web', 'slow_compute', 'seconds=0', '--label', 'job=auth']);
    assert.equal(parseJsonDoc(call.stdout).status, 'completed');
    const rec = parseJsonDoc((await run(['--json', 'show', 'auth'])).stdout);
    // The vault keeps the credentials in use (encrypted) for reconnecting; show names them, never their values.
    assert.deepEqual(rec.auth, { kind: 'bearer-env', variable: 'E2E_TOKEN', storedCredentials: ['E2E_TOKEN', 'E2E_API_KEY'] });
    await run(['list', '--all']);
    assertNowhere(token, outputs, h);
    assertNowhere(apiKey, outputs, h);
    // Config, vault and key are private to the user.
    for (const f of ['servers.json', 'vault.json']) {
      const mode = statSync(join(h.dir, f)).mode & 0o777;
      assert.equal(mode & 0o077, 0, `${f} has mode ${mode.toString(8)}`);
    }
  });

  test('a credential header or a URL with credentials is refused and not stored', async () => {
    const h = newHome();
    const value = secret('literal');
    const refused = [
      await h.run(['server', 'add', 'a', '--url', demo.url, '--header', `Authorization: Bearer ${value}`]),
      await h.run(['server', 'add', 'b', '--url', demo.url.replace('http://', `http://user:${value}@`)]),
      await h.run(['server', 'add', 'c', '--url', demo.url, '--header', `Cookie: session=${value}`]),
    ];
    for (const r of refused) {
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /refusing/);
    }
    assert.match(refused[0]!.stderr, /--bearer-env|env:VAR/);
    assert.deepEqual(await serverNames(h), ['demo']);
    assertNowhere(value, refused, h);
  });

  test('a token given to --bearer-env by mistake is not echoed back', async () => {
    const h = newHome();
    const value = `sk-${secret('tok')}.x`;
    const r = await h.run(['server', 'add', 'a', '--url', demo.url, '--bearer-env', value]);
    assert.equal(r.code, 1, r.stderr);
    assertNowhere(value, [r], h);
  });

  test('stdio with --env: values reach the server, never the output', async () => {
    const h = newHome();
    const token = secret('passthrough');
    const literal = secret('literal');
    const out = join(tempDir(), 'env.json');
    // A "server" that records its environment, then exits.
    const probe = `require('fs').writeFileSync(process.argv[1], JSON.stringify(process.env))`;
    const add = await h.run(['server', 'add', 'probe', '--env', 'E2E_PASS', '--env', `E2E_LITERAL=${literal}`, '--', process.execPath, '-e', probe, out]);
    assert.equal(add.code, 0, add.stderr);
    assert.ok(!add.stdout.includes(literal) && !add.stderr.includes(literal));
    const show = await h.run(['--json', 'server', 'show', 'probe']);
    const entry = parseJsonDoc(show.stdout);
    assert.equal(entry.transport, 'stdio');
    assert.equal(entry.command, process.execPath);
    assert.deepEqual(entry.env, { E2E_PASS: '(passed through)', E2E_LITERAL: '(set)' });
    const check = await h.run(['server', 'check', 'probe'], { env: { E2E_PASS: token } });
    assert.equal(check.code, 7, check.stderr); // it exits without speaking MCP
    const seen = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>;
    assert.equal(seen.E2E_PASS, token);
    assert.equal(seen.E2E_LITERAL, literal);
    const list = await h.run(['server', 'list']);
    const textShow = await h.run(['server', 'show', 'probe']);
    for (const r of [show, list, textShow, check]) {
      assert.ok(!r.stdout.includes(literal) && !r.stderr.includes(literal), 'a stored --env value was printed');
    }
    assertNowhere(token, [add, show, check, list, textShow], h);
  });

  test('stdio server with a passed-through token: check and call work, the token stays out', async () => {
    const h = newHome();
    const token = secret('stdio-token');
    const store = join(tempDir(), 'tasks.json');
    const add = await h.run(['server', 'add', 'local', '--env', 'E2E_STDIO_TOKEN', '--', process.execPath, BIN, 'demo-server', '--stdio', '--store', store]);
    assert.equal(add.code, 0, add.stderr);
    const env = { E2E_STDIO_TOKEN: token };
    const check = await h.run(['--json', 'server', 'check', 'local'], { env });
    assert.equal(check.code, 0, check.stderr);
    assert.equal(parseJsonDoc(check.stdout).tasksExtension, true);
    const call = await h.run(['-v', 'call', 'local', 'slow_compute', 'seconds=1'], { env });
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /slow_compute on local: completed/);
    const list = await h.run(['server', 'list'], { env });
    assert.match(list.stdout, /^local\s+stdio: /m);
    assertNowhere(token, [add, check, call, list], h);
  });

  test('server import of an mcpServers file with --only', async () => {
    const h = newHome();
    const envSecret = secret('envval');
    const headerSecret = secret('hdr');
    const file = join(tempDir(), 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          alpha: { command: 'node', args: ['alpha.js', '--port', '0'], env: { ALPHA_KEY: envSecret } },
          beta: { type: 'http', url: 'https://beta.example.com/mcp', headers: { Authorization: `Bearer ${headerSecret}`, 'X-Team': 'search' } },
          gamma: { command: 'gamma-server' },
          delta: { url: 'http://delta.example.com/mcp' },
        },
      }),
    );
    const r = await h.run(['server', 'import', file, '--only', 'alpha,beta']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /imported alpha/);
    assert.match(r.stdout, /imported beta/);
    assert.deepEqual((await serverNames(h)).sort(), ['alpha', 'beta', 'demo']);
    const alpha = parseJsonDoc((await h.run(['--json', 'server', 'show', 'alpha'])).stdout);
    assert.equal(alpha.transport, 'stdio');
    assert.equal(alpha.command, 'node');
    assert.deepEqual(alpha.args, ['alpha.js', '--port', '0']);
    assert.deepEqual(alpha.env, { ALPHA_KEY: '(passed through)' });
    const beta = parseJsonDoc((await h.run(['--json', 'server', 'show', 'beta'])).stdout);
    assert.equal(beta.transport, 'http');
    assert.equal(beta.url, 'https://beta.example.com/mcp');
    assert.equal(beta.headers['X-Team'], 'search');
    assert.match(beta.headers.Authorization, /^env:[A-Z0-9_]+$/);
    assertNowhere(envSecret, [r], h);
    assertNowhere(headerSecret, [r], h);

    // --only naming an absent entry imports nothing.
    const bad = await h.run(['server', 'import', file, '--only', 'gamma,nope']);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /nope/);
    assert.deepEqual((await serverNames(h)).sort(), ['alpha', 'beta', 'demo']);
    // Existing names are skipped without --force; plain http:// off loopback is refused.
    const again = await h.run(['--json', 'server', 'import', file, '--only', 'alpha,delta']);
    assert.equal(again.code, 1, again.stderr);
    const report = parseJsonDoc(again.stdout);
    assert.deepEqual(report.imported, []);
    assert.deepEqual(report.skipped.map((s: { name: string }) => s.name).sort(), ['alpha', 'delta']);
    assert.match(report.skipped.find((s: { name: string }) => s.name === 'delta').reason, /http:\/\//);
    const gamma = await h.run(['server', 'import', file, '--only', 'gamma']);
    assert.equal(gamma.code, 0, gamma.stderr);
    assert.deepEqual((await serverNames(h)).sort(), ['alpha', 'beta', 'demo', 'gamma']);
  });

  test('server check reports 2026-07-28 and the tasks extension (HTTP and stdio)', async () => {
    const h = await homeWithServer('web', demo.url);
    const text = await h.run(['server', 'check', 'web']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /protocol\s+2026-07-28/);
    assert.match(text.stdout, /io\.modelcontextprotocol\/tasks advertised/);
    assert.match(text.stdout, /slow_compute\s+\[read-only idempotent\]/);
    for (const name of ['web', 'demo']) {
      const r = await h.run(['--json', 'server', 'check', name]);
      assert.equal(r.code, 0, r.stderr);
      const doc = parseJsonDoc(r.stdout);
      assert.equal(doc.server, name);
      assert.equal(doc.protocolVersion, '2026-07-28');
      assert.equal(doc.generation, '2026-07-28');
      assert.equal(doc.era, 'modern', 'the deprecated alias of generation, kept for this release');
      assert.equal(doc.tasksExtension, true);
      assert.equal(doc.serverInfo.name, 'mcp-tasks-demo');
      const pay = doc.tools.find((t: { name: string }) => t.name === 'send_payment');
      assert.equal(pay.annotations.destructiveHint, true);
      assert.equal(pay.annotations.idempotentHint, false);
    }
    // The generation is remembered for the named server.
    const list = await h.run(['server', 'list']);
    assert.match(list.stdout, /^web\s+\S+ \[2026-07-28, tasks\]$/m);
    assert.equal(parseJsonDoc((await h.run(['--json', 'server', 'show', 'web'])).stdout).tasksAdvertised, true);
  });

  test('a server that sends serverInfo as a top-level discover field (not in _meta) is still named', async () => {
    // A real proxy that rewrites the demo server's discover result the way some servers send it.
    const proxy = await startProxy(demo.url, {
      rewrite: (req) =>
        req.headers['mcp-method'] === 'server/discover'
          ? (body) => {
              const msg = JSON.parse(body);
              msg.result.serverInfo = msg.result._meta['io.modelcontextprotocol/serverInfo'];
              delete msg.result._meta['io.modelcontextprotocol/serverInfo'];
              return JSON.stringify(msg);
            }
          : undefined,
    });
    try {
      const h = await homeWithServer('moved', proxy.url);
      const r = await h.run(['--json', 'server', 'check', 'moved']);
      assert.equal(r.code, 0, r.stderr);
      const doc = parseJsonDoc(r.stdout);
      assert.deepEqual([doc.protocolVersion, doc.tasksExtension, doc.serverInfo?.name], ['2026-07-28', true, 'mcp-tasks-demo']);
    } finally {
      await proxy.close();
    }
  });

  test('plain http:// to a non-loopback host is refused unless --allow-http', async () => {
    const h = newHome();
    const far = await h.run(['server', 'add', 'far', '--url', 'http://mcp.example.com/mcp']);
    assert.equal(far.code, 1, far.stderr);
    assert.match(far.stderr, /plain http:\/\/ to mcp\.example\.com/);
    assert.match(far.stderr, /--allow-http/);
    const private10 = await h.run(['server', 'add', 'lan', '--url', 'http://10.0.0.5:8080/mcp']);
    assert.equal(private10.code, 1, private10.stderr);
    assert.deepEqual(await serverNames(h), ['demo']);
    for (const [name, url, extra] of [
      ['tls', 'https://mcp.example.com/mcp', []],
      ['local', 'http://localhost:9/mcp', []],
      ['loop', 'http://127.0.0.1:9/mcp', []],
      ['v6', 'http://[::1]:9/mcp', []],
      ['trusted', 'http://mcp.internal.example:8080/mcp', ['--allow-http']],
    ] as Array<[string, string, string[]]>) {
      const r = await h.run(['server', 'add', name, '--url', url, ...extra]);
      assert.equal(r.code, 0, `${url}: ${r.stderr}`);
    }
    assert.deepEqual((await serverNames(h)).sort(), ['demo', 'local', 'loop', 'tls', 'trusted', 'v6']);
    const bad = await h.run(['server', 'add', 'ftp', '--url', 'ftp://mcp.example.com/mcp']);
    assert.equal(bad.code, 1, bad.stderr);
  });

  test('server names: add twice, --force, remove, and the built-in demo', async () => {
    const h = await homeWithServer('web', demo.url);
    const twice = await h.run(['server', 'add', 'web', '--url', demo.url]);
    assert.equal(twice.code, 1, twice.stderr);
    assert.match(twice.stderr, /already exists/);
    await addHttpServer(h, 'web', 'https://other.example.com/mcp', ['--force']);
    assert.equal(parseJsonDoc((await h.run(['--json', 'server', 'show', 'web'])).stdout).url, 'https://other.example.com/mcp');
    const demoAdd = await h.run(['server', 'add', 'demo', '--url', demo.url]);
    assert.equal(demoAdd.code, 1, demoAdd.stderr);
    const demoRemove = await h.run(['server', 'remove', 'demo']);
    assert.equal(demoRemove.code, 1, demoRemove.stderr);
    const rm = await h.run(['server', 'remove', 'web']);
    assert.equal(rm.code, 0, rm.stderr);
    const show = await h.run(['server', 'show', 'web']);
    assert.equal(show.code, 1, show.stderr);
    assert.match(show.stderr, /no server named "web"/);
    const rm2 = await h.run(['server', 'remove', 'web']);
    assert.equal(rm2.code, 1, rm2.stderr);
  });

  test('tools <server> shows the readOnly / destructive / idempotent hints', async () => {
    const h = await homeWithServer('web', demo.url);
    const r = await h.run(['tools', 'web']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^16 tool\(s\) on web:$/m);
    assert.match(r.stdout, /^\s+slow_compute\s+\[read-only idempotent\] Sleep for `seconds`/m);
    assert.match(r.stdout, /^\s+send_payment\s+\[destructive\] /m);
    assert.match(r.stdout, /^\s+confirm_delete\s+\[destructive\] /m);
    assert.match(r.stdout, /^\s+greet\s+\[read-only idempotent\] /m);
    assert.match(r.stdout, /^\s+failing_job\s+A job that ends/m);
    const json = await h.run(['--json', 'tools', 'demo']);
    assert.equal(json.code, 0, json.stderr);
    const tools = parseJsonDoc(json.stdout) as Array<{ name: string; description: string; inputSchema: any; annotations: Record<string, boolean> }>;
    assert.equal(tools.length, 16);
    const slow = tools.find((t) => t.name === 'slow_compute')!;
    assert.deepEqual(slow.annotations, { readOnlyHint: true, idempotentHint: true });
    assert.equal(slow.inputSchema.properties.seconds.type, 'number');
    assert.deepEqual(slow.inputSchema.required, ['seconds']);
    assert.deepEqual(tools.find((t) => t.name === 'failing_job')!.annotations, {});
  });
});

test('a credential-looking --env value is refused; the name alone passes it through', async () => {
  const h = newHome();
  const refused = await h.run(['server', 'add', 'gh', '--env', 'GITHUB_TOKEN=ghp_secretvalue123', '--', process.execPath, '-e', '0']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /looks like a credential/);
  assert.doesNotMatch(refused.stderr + refused.stdout, /ghp_secretvalue123/);
  await h.ok(['server', 'add', 'gh', '--env', 'GITHUB_TOKEN', '--', process.execPath, '-e', '0']);
  const shown = parseJsonDoc((await h.ok(['--json', 'server', 'show', 'gh'])).stdout);
  assert.deepEqual(shown.env, { GITHUB_TOKEN: '(passed through)' });
});
