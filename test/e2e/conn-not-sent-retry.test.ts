// A request whose connection failed before any byte of it was written cannot have created
// anything: it is "not sent" and goes once more on a new connection, never "in doubt". A real
// HTTPS proxy in front of the demo server resets (TCP RST) the TCP connection a `call` opens for
// its tools/call before the TLS handshake, so no byte of the request can have been written; the
// next connection is served as usual.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newHome, parseJsonDoc, spawnCli, startDemo, tempDir, type DemoServer, type TestHome } from '../helpers/cli.js';
import { startProxy, type Proxy } from '../helpers/proxy.js';

/** A throw-away certificate for 127.0.0.1, made for this run (no key is kept in the tree). */
function selfSignedCert(): { key: string; cert: string; certPath: string } {
  const dir = tempDir('mcp-tasks-tls-');
  const key = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', certPath, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(certPath, 'utf8'), certPath };
}

describe('a request cut before any byte of it was written is not sent, and goes once more', () => {
  let demo: DemoServer;
  let proxy: Proxy;
  let tls: ReturnType<typeof selfSignedCert>;
  /** Connections to reset, by their number; and those reset so far. */
  const resetAt = new Set<number>();
  const reset: number[] = [];
  let accepted = 0;
  before(async () => {
    tls = selfSignedCert();
    demo = await startDemo({ verbose: true });
    proxy = await startProxy(
      demo.url,
      {
        connection: (n) => {
          accepted = n;
          if (!resetAt.has(n)) return undefined;
          reset.push(n);
          return 'reset';
        },
      },
      { tls },
    );
  });
  after(async () => {
    await proxy?.close();
    await demo?.stop();
  });

  /** The CLI as a process of its own (the certificate is trusted through its environment). */
  const cli = (h: TestHome, args: string[]) => spawnCli(args, { home: h.dir, env: { NODE_EXTRA_CA_CERTS: tls.certPath } }).done;

  test('the tools/call connection reset before the TLS handshake: exit 0, one task created, nothing in doubt', async () => {
    const h = newHome();
    const added = await cli(h, ['server', 'add', 'edge', '--url', proxy.url]);
    assert.equal(added.code, 0, added.stderr);
    // A checked server (discovery and tools kept): `call` sends tools/call first, on the first connection it opens.
    const checked = await cli(h, ['server', 'check', 'edge']);
    assert.equal(checked.code, 0, checked.stderr);
    const callsBefore = await demo.count('tools/call');
    const armed = accepted + 1;
    resetAt.add(armed);
    const r = await cli(h, ['--json', 'call', 'edge', 'slow_compute', 'seconds=1', '--detach']);
    assert.deepEqual(reset, [armed], 'the first connection of the call was reset');
    assert.equal(r.code, 0, r.stderr);
    const handle = parseJsonDoc(r.stdout) as { taskId: string; status: string };
    assert.equal(await demo.count('tools/call'), callsBefore + 1, 'one task created on the server');
    const list = await cli(h, ['--json', 'list', '--all']);
    assert.equal(list.code, 0, list.stderr);
    const rows = parseJsonDoc(list.stdout) as Array<{ taskId: string | null; phase: string }>;
    assert.deepEqual(
      rows.map((x) => [x.taskId, x.phase]),
      [[handle.taskId, 'active']],
      'one record, holding the handle; none in doubt',
    );
  });

  test('reset again on the new connection: not sent, exit 7, no record left (nothing can have been created)', async () => {
    const h = newHome();
    assert.equal((await cli(h, ['server', 'add', 'edge', '--url', proxy.url])).code, 0);
    assert.equal((await cli(h, ['server', 'check', 'edge'])).code, 0);
    const callsBefore = await demo.count('tools/call');
    const armed = accepted + 1;
    resetAt.add(armed);
    resetAt.add(armed + 1);
    reset.length = 0;
    const r = await cli(h, ['call', 'edge', 'slow_compute', 'seconds=1', '--detach']);
    assert.deepEqual(reset, [armed, armed + 1], 'both connections of the call were reset');
    assert.equal(r.code, 7, r.stderr);
    assert.doesNotMatch(r.stderr, /in doubt/);
    assert.equal(await demo.count('tools/call'), callsBefore, 'nothing reached the server');
    const list = await cli(h, ['--json', 'list', '--all']);
    assert.deepEqual(parseJsonDoc(list.stdout), [], 'no record: nothing was created');
  });
});
