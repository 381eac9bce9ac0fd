// Sign-in end to end: the demo server behind a real OAuth 2.1 authorization server
// (oidc-provider), reached through `server add` → `server login` (a scripted browser via
// $BROWSER) → calls. Covers refresh by itself after the access token is gone, a revoked
// refresh token → exit 8 naming `server login`, logout, and that no token is ever in a file
// of the home, in an argv, or in any output (-v included).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder, newHome, parseJsonDoc, tempDir, type CliResult } from '../helpers/cli.js';
import { browserEnv as scriptedBrowser, signedInHome, useAuthWorld } from '../helpers/signed-in.js';

describe('sign-in (OAuth 2.1 through the SDK)', () => {
  const suite = useAuthWorld();

  test('login, call, refresh by itself, revoked refresh → exit 8, logout; no token in files, argv or output', async () => {
    const { world } = suite;
    const h = newHome();
    const argvLog = join(tempDir('mcp-tasks-browser-'), 'argv.log');
    const browserEnv = scriptedBrowser({ BROWSER_ARGV_LOG: argvLog });
    const outputs: CliResult[] = [];
    const keep = (r: CliResult) => (outputs.push(r), r);

    const added = keep(await h.ok(['server', 'add', 'secure', '--url', world.url]));
    assert.match(added.stdout, /mcp-tasks server login secure/, 'server add says the server requires sign-in');

    const unsigned = keep(await h.run(['tools', 'secure']));
    assert.equal(unsigned.code, 8, unsigned.stderr);

    const login = keep(await h.run(['-v', 'server', 'login', 'secure'], { env: browserEnv }));
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, new RegExp(`signed in to secure at ${world.issuer.replace(/[.:/]/g, '\\$&')}`));
    assert.equal(world.issued.access.length, 1, 'one access token issued');
    assert.ok(world.issued.refresh.length >= 1, 'a refresh token issued');

    const show = parseJsonDoc(keep(await h.ok(['--json', 'server', 'show', 'secure'])).stdout);
    assert.equal(show.signIn.signedIn, true);
    assert.equal(show.signIn.issuer, world.issuer);
    assert.ok(Date.parse(show.signIn.expiresAt) > Date.now(), 'shows until when');

    const call = keep(await h.run(['-v', '--json', 'call', 'secure', 'slow_compute', 'seconds=1']));
    assert.equal(call.code, 0, call.stderr);
    assert.equal(parseJsonDoc(call.stdout).status, 'completed');

    // The access token is gone: the SDK refreshes by itself (no browser in this shell) and retries.
    await world.expireAccessTokens();
    const refusedBefore = world.refused();
    const refreshed = keep(await h.run(['-v', 'tools', 'secure']));
    assert.equal(refreshed.code, 0, refreshed.stderr);
    assert.ok(world.refused() > refusedBefore, 'the old token was refused first');
    assert.equal(world.issued.access.length, 2, 'a new access token came from the refresh token');

    // Refresh token revoked as well: no browser here, so exit 8 and the next step is login.
    await world.revokeRefreshTokens();
    const revoked = keep(await h.run(['-v', 'tools', 'secure']));
    assert.equal(revoked.code, 8, revoked.stderr);
    assert.match(revoked.stderr, /next: .*mcp-tasks server login secure/);

    // --stored-auth-only never starts a sign-in, even where a browser could be used.
    const storedOnly = keep(await h.run(['--stored-auth-only', 'tools', 'secure'], { env: browserEnv }));
    assert.equal(storedOnly.code, 8, storedOnly.stderr);
    assert.equal(world.issued.access.length, 2, '--stored-auth-only got no new token');

    // With a browser at hand, the same 401 re-authorizes in place and the command goes on.
    const inPlace = keep(await h.run(['-v', 'tools', 'secure'], { env: browserEnv }));
    assert.equal(inPlace.code, 0, inPlace.stderr);
    assert.equal(world.issued.access.length, 3);

    const file = join(h.dir, 'sign-in', 'secure.json');
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the sign-in file is 0600');

    const secrets = [...world.issued.access, ...world.issued.refresh];
    for (const t of world.presented) assert.ok(world.issued.access.includes(t), 'the gate saw only issued tokens (so the list below is the real secrets)');
    assert.ok(secrets.every((s) => s.length >= 20));
    for (const { path, bytes } of filesUnder(h.dir)) {
      for (const s of secrets) assert.ok(!bytes.includes(Buffer.from(s)), `a token is in ${path} in clear`);
    }
    const argvs = readFileSync(argvLog, 'utf8');
    assert.equal(argvs.trim().split('\n').length, 2, 'the browser was opened for the login and the in-place sign-in');
    for (const r of outputs) for (const s of secrets) {
      assert.ok(!r.stdout.includes(s) && !r.stderr.includes(s), 'a token reached the output');
      assert.ok(!argvs.includes(s), 'a token was in the browser argv');
    }

    const logout = await h.ok(['server', 'logout', 'secure']);
    assert.match(logout.stdout, /signed out of secure/);
    assert.equal(parseJsonDoc((await h.ok(['--json', 'server', 'show', 'secure'])).stdout).signIn, undefined);
    assert.equal((await h.run(['tools', 'secure'])).code, 8);
  });

  test('a server that asks for no sign-in is said so; remove forgets a sign-in with the server', async () => {
    const { demo, world } = suite;
    const h = newHome();
    const added = await h.ok(['server', 'add', 'open', '--url', demo.url]);
    assert.doesNotMatch(added.stdout, /server login/);
    const r = await h.run(['server', 'login', 'open'], { env: scriptedBrowser() });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /does not ask for a sign-in/);

    await signedInHome(world, { home: h });
    assert.ok(filesUnder(h.dir).some((f) => f.path.endsWith(join('sign-in', 'secure.json'))));
    await h.ok(['server', 'remove', 'secure']);
    assert.ok(!filesUnder(h.dir).some((f) => f.path.endsWith(join('sign-in', 'secure.json'))), 'removing the server removes its sign-in');
  });
});
