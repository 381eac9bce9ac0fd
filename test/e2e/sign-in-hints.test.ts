// A sign-in that fails names the server in its next step: the hint is a command that runs as
// printed (`server login <that server>`), never a `<name>` placeholder. Against the demo server
// behind a real authorization server (oidc-provider); no browser, so the sign-in times out.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newHome, parseJsonDoc } from '../helpers/cli.js';
import { useAuthWorld } from '../helpers/signed-in.js';

describe('sign-in failures name their server in the next step', () => {
  const suite = useAuthWorld();

  test('server login that times out: exit 8, next: `server login gate` again', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'gate', '--url', suite.world.url]);
    const r = await h.run(['server', 'login', 'gate', '--no-browser', '--timeout', '1s']);
    assert.equal(r.code, 8, r.stderr);
    assert.match(r.stderr, /no sign-in arrived within 1 s/);
    assert.match(r.stderr, /next: Run `[^`]*server login gate` again and finish the sign-in in the browser/);
    assert.doesNotMatch(r.stderr, /<name>/);
    const j = await h.run(['--json', 'server', 'login', 'gate', '--no-browser', '--timeout', '1s']);
    assert.equal(j.code, 8, j.stderr);
    assert.match(parseJsonDoc(j.stdout).error.next, /server login gate` again/);
  });
});

describe('a 401 names the credential the entry has', () => {
  const suite = useAuthWorld();

  test('no sign-in yet: exit 8, next: `server login gate`, never --bearer-env', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'gate', '--url', suite.world.url]);
    const refused = suite.world.refused();
    for (const args of [['tools', 'gate'], ['call', 'gate', 'slow_compute', 'seconds=1']]) {
      const r = await h.run(args);
      assert.equal(r.code, 8, r.stderr);
      assert.doesNotMatch(r.stderr, /bearer-env/);
      assert.match(r.stderr, /next: .*`[^`]*server login gate`/);
      const j = await h.run(['--json', ...args]);
      assert.equal(j.code, 8, j.stderr);
      assert.match(parseJsonDoc(j.stdout).error.next, /server login gate`/);
    }
    assert.ok(suite.world.refused() > refused, 'the gate refused the requests (401)');
    assert.deepEqual(parseJsonDoc((await h.ok(['--json', 'recover'])).stdout), [], 'a refused call leaves nothing in doubt');
  });

  test('a bearer token the server refuses: the hint is about that token', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'gate', '--url', suite.world.url, '--bearer-env', 'GATE_TOKEN']);
    const r = await h.run(['tools', 'gate'], { env: { GATE_TOKEN: 'not-a-token-the-server-issued' } });
    assert.equal(r.code, 8, r.stderr);
    assert.match(r.stderr, /next: .*\$GATE_TOKEN/);
    assert.doesNotMatch(r.stderr, /server login/);
  });
});
