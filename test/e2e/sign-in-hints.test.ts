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
