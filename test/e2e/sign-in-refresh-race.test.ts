// Two mcp-tasks processes refreshing the same stored sign-in at once, against a real
// authorization server (oidc-provider) that rotates refresh tokens and revokes the whole grant
// when a rotated one is used again. The first refresh is held at the token endpoint until the
// second process has either sent its own refresh (the race: both would use the same refresh
// token) or said that it waits for the first (the lock). Both must succeed and the sign-in
// must survive.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signedInHome, useAuthWorld } from '../helpers/signed-in.js';

describe('refresh across processes', () => {
  const suite = useAuthWorld();

  test('two processes refreshing at once: one refresh at a time, on the newest refresh token; both succeed, the sign-in survives', async () => {
    const { world } = suite;
    const h = await signedInHome(world);
    assert.deepEqual(world.tokenRequests, ['authorization_code']);

    // Both processes start with the same stored tokens, whose access token is gone: both must refresh.
    await world.expireAccessTokens();
    let openFirst!: () => void;
    const firstHeld = new Promise<void>((r) => (openFirst = r));
    let refreshes = 0;
    world.tokenGate = async () => {
      if (++refreshes === 1) await firstHeld;
      else openFirst();
    };
    const waits = /another mcp-tasks process is refreshing the sign-in for secure; waiting for it/;
    const a = h.spawn(['-v', 'tools', 'secure']);
    const b = h.spawn(['-v', 'tools', 'secure']);
    void Promise.any([a.waitFor(waits), b.waitFor(waits)]).then(openFirst, () => {});
    const [ra, rb] = await Promise.all([a.done, b.done]);
    world.tokenGate = undefined;
    assert.equal(ra.code, 0, `first process: ${ra.stderr}`);
    assert.equal(rb.code, 0, `second process: ${rb.stderr}`);
    assert.ok(waits.test(ra.stderr + rb.stderr), `one process waited for the other\n${ra.stderr}\n---\n${rb.stderr}\n${JSON.stringify(world.tokenRequests)}`);
    assert.deepEqual(world.tokenRequests, ['authorization_code', 'refresh_token', 'refresh_token'], 'two refreshes, one after the other, none refused');

    // The sign-in survived: a third process uses it without a browser.
    const after = await h.run(['tools', 'secure']);
    assert.equal(after.code, 0, after.stderr);
  });
});
