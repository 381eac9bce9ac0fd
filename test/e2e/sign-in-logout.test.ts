// `server logout` against a real authorization server (oidc-provider): RFC 7009 revocation where
// the server's metadata advertises a revocation_endpoint, and the local tokens deleted whatever
// it answered; the output says which of the two happened.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesUnder, newHome, parseJsonDoc, startDemo, type DemoServer, type TestHome } from '../helpers/cli.js';
import { startAuthWorld, type AuthWorld } from '../helpers/auth-server.js';

const BROWSER_SCRIPT = fileURLToPath(new URL('../../../test/helpers/browser.mjs', import.meta.url));
const browserEnv = { BROWSER: `${process.execPath} ${BROWSER_SCRIPT}` };

describe('server logout', () => {
  let demo: DemoServer;
  let world: AuthWorld;
  let noRevocation: AuthWorld;
  before(async () => {
    demo = await startDemo();
    world = await startAuthWorld(demo.url);
    noRevocation = await startAuthWorld(demo.url, { revocation: false });
  });
  after(async () => {
    await world.close();
    await noRevocation.close();
    await demo.stop();
  });

  async function signedIn(w: AuthWorld): Promise<TestHome> {
    const h = newHome();
    await h.ok(['server', 'add', 'secure', '--url', w.url]);
    await h.ok(['server', 'login', 'secure'], { env: browserEnv });
    return h;
  }
  const signInFile = (h: TestHome) => filesUnder(h.dir).some((f) => f.path.endsWith(join('sign-in', 'secure.json')));

  test('revoked at the authorization server, then forgotten here', async () => {
    const h = await signedIn(world);
    assert.ok((await world.liveTokens()) >= 2, 'an access and a refresh token are live');
    const r = await h.ok(['server', 'logout', 'secure']);
    assert.match(r.stdout, /signed out of secure: the authorization server revoked its tokens/);
    assert.deepEqual(world.revocations, [200, 200], 'the refresh token, then the access token');
    assert.equal(await world.liveTokens(), 0, 'the authorization server honours none of the tokens any more');
    assert.ok(!signInFile(h));
    assert.equal((await h.run(['tools', 'secure'])).code, 8);
  });

  test('the revocation fails: deleted locally, and said so', async () => {
    const h = await signedIn(world);
    world.failRevocation = true;
    try {
      const live = await world.liveTokens();
      const r = await h.ok(['--json', 'server', 'logout', 'secure']);
      const doc = parseJsonDoc(r.stdout);
      assert.equal(doc.revoked, false);
      assert.equal(doc.removed, true);
      assert.match(doc.revocation, /HTTP 503/);
      assert.ok(!signInFile(h), 'the local tokens are deleted whatever the answer');
      assert.equal(await world.liveTokens(), live, 'nothing was revoked');
      assert.deepEqual(world.revocations.slice(-1), [503], 'asked once, refused, not asked again');
    } finally {
      world.failRevocation = false;
    }
  });

  test('no revocation endpoint: deleted locally; the server did not confirm revocation', async () => {
    const h = await signedIn(noRevocation);
    const r = await h.ok(['server', 'logout', 'secure']);
    assert.match(r.stdout, /signed out of secure: its tokens and client registration are deleted locally; the server did not confirm revocation \(its authorization server advertises no revocation_endpoint\)/);
    assert.deepEqual(noRevocation.revocations, []);
    assert.ok(!signInFile(h));
  });
});
