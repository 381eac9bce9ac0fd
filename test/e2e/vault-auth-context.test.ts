// The vault's auth context: a task created with a bearer token can be reconnected to from a shell
// without it (on-call at 3 a.m.), a token set in the environment wins over the stored one, the
// token is never in any file in clear, and export bundles never carry it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { filesUnder, newHome, parseJsonDoc, startDemo, type DemoServer } from '../helpers/cli.js';
import { startProxy, type Proxy } from '../helpers/proxy.js';
import { seededWord } from '../helpers/seeded.js';

const TOKEN = `tok-${seededWord()}-${Date.now()}`;

/** A real authenticating gateway: 401 unless `Authorization: Bearer TOKEN`, else proxied to the demo server. */
async function startGateway(target: URL): Promise<Proxy & { refused: () => number }> {
  let refused = 0;
  const proxy = await startProxy(target.href, {
    answer: (req) => {
      if (req.headers.authorization === `Bearer ${TOKEN}`) return undefined;
      refused++;
      return { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: JSON.stringify({ error: 'unauthorized' }) };
    },
  });
  return { ...proxy, refused: () => refused };
}

describe('auth context in the vault', () => {
  let demo: DemoServer;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  before(async () => {
    demo = await startDemo();
    gw = await startGateway(new URL(demo.url));
  });
  after(async () => {
    await gw.close();
    await demo.stop();
  });

  test('reconnects without the variable, prefers a set variable, keeps the token out of files and exports', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'secure', '--url', gw.url, '--bearer-env', 'SECURE_TOKEN']);
    const created = parseJsonDoc((await h.ok(['--json', 'call', 'secure', 'slow_compute', 'seconds=1', '--detach', '--label', 'job=auth'], { env: { SECURE_TOKEN: TOKEN } })).stdout);
    assert.equal(created.status, 'working');

    // On-call shell: no SECURE_TOKEN. The stored credential reconnects to the same server.
    const got = await h.run(['--json', 'watch', 'auth', '--timeout', '20s'], { env: { SECURE_TOKEN: undefined } });
    assert.equal(got.code, 0, got.stderr);
    const lines = got.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.at(-1).status, 'completed');

    // A variable that is set wins: a rotated (here: wrong) token is used, and refused.
    const before = gw.refused();
    const wrong = await h.run(['get', 'auth'], { env: { SECURE_TOKEN: 'not-the-token' } });
    assert.equal(wrong.code, 8, wrong.stderr);
    assert.ok(gw.refused() > before);
    assert.doesNotMatch(wrong.stderr + wrong.stdout, /not-the-token/);

    // show names the stored credential without its value.
    const shown = await h.run(['show', 'auth']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /stored for reconnecting: \$SECURE_TOKEN \(values hidden\)/);
    assert.doesNotMatch(shown.stdout, new RegExp(TOKEN));

    // No file under the home holds the token in clear (the vault is encrypted).
    for (const f of filesUnder(h.dir)) assert.equal(f.bytes.includes(Buffer.from(TOKEN)), false, `${f.path} holds the token`);

    // Export → import: the handle travels, the credential does not.
    const exportKey = 'export-passphrase-for-tests';
    const bundle = (await h.ok(['export', 'auth'], { env: { MCP_TASKS_EXPORT_KEY: exportKey } })).stdout;
    const other = newHome();
    await other.ok(['server', 'add', 'secure', '--url', gw.url, '--bearer-env', 'SECURE_TOKEN']);
    const imported = await other.run(['import', '-'], { input: bundle, env: { MCP_TASKS_EXPORT_KEY: exportKey } });
    assert.equal(imported.code, 0, imported.stderr);
    const denied = await other.run(['get', 'auth'], { env: { SECURE_TOKEN: undefined } });
    assert.equal(denied.code, 8, `without their own token the importer is refused: ${denied.stderr}`);
    const allowed = await other.run(['--json', 'get', 'auth'], { env: { SECURE_TOKEN: TOKEN } });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(parseJsonDoc(allowed.stdout).status, 'completed');
    for (const f of filesUnder(other.dir)) assert.equal(f.bytes.includes(Buffer.from(TOKEN)), false, `${f.path} holds the token`);
  });
});
