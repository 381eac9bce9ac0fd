// When the cross-process refresh lock is released, against a real authorization server
// (oidc-provider) that rotates refresh tokens and revokes the grant when a rotated one is used
// again (test/helpers/auth-server.ts). The lock is taken when the SDK reads the tokens before a
// refresh; it must be held until the refresh's outcome is saved, and no longer.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signedInHome, useAuthWorld } from '../helpers/signed-in.js';
import { existsSync } from 'node:fs';
import { readSignIn, signInPath, writeSignIn } from '../../src/connection/oauth-store.js';
import { signInTransportFor } from '../../src/connection/oauth-provider.js';

/** The environment the spawned CLI reads its key with (test/helpers/cli.ts: no keychain). */
const CHILD_KEY_ENV = { MCP_TASKS_NO_KEYCHAIN: '1' };
const WAITS = /another mcp-tasks process is refreshing the sign-in for secure; waiting for it/;

describe('refresh lock release', () => {
  const suite = useAuthWorld();

  test('an older sign-in file (tokens without an issuer stamp): the SDK stamps them before it refreshes, and the refresh still runs under the lock', async () => {
    const { world } = suite;
    const h = await signedInHome(world);
    // As an mcp-tasks from before the SDK's SEP-2352 stamps wrote it: no `issuer` in the tokens
    // or the client registration. The SDK then saves the same tokens stamped before it refreshes.
    const record = readSignIn(h.dir, 'secure', CHILD_KEY_ENV)!;
    assert.equal(typeof record.tokens?.issuer, 'string', 'the SDK stamps what it saves (precondition)');
    delete record.tokens!.issuer;
    delete record.clientInformation?.issuer;
    writeSignIn(h.dir, record, CHILD_KEY_ENV);
    await world.expireAccessTokens();
    const before = world.tokenRequests.length;

    // The first refresh is held at the token endpoint until the second process has either sent
    // its own (with the same refresh token: the race) or said that it waits (the lock).
    let firstArrived!: () => void;
    const arrived = new Promise<void>((r) => (firstArrived = r));
    let openFirst!: () => void;
    const firstHeld = new Promise<void>((r) => (openFirst = r));
    let refreshes = 0;
    world.tokenGate = async () => {
      if (++refreshes === 1) {
        firstArrived();
        await firstHeld;
      } else openFirst();
    };
    const a = h.spawn(['-v', 'tools', 'secure']);
    void a.done.then(firstArrived, firstArrived);
    await arrived;
    // The first process's refresh is in flight, after it saved the stamped tokens: the second starts now.
    const b = h.spawn(['-v', 'tools', 'secure']);
    void b.waitFor(WAITS).then(openFirst, openFirst);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    world.tokenGate = undefined;
    const requests = world.tokenRequests.slice(before);
    assert.deepEqual(requests, ['refresh_token', 'refresh_token'], `two refreshes, one after the other, none refused\n${ra.stderr}\n---\n${rb.stderr}`);
    assert.equal(ra.code, 0, `first process: ${ra.stderr}`);
    assert.equal(rb.code, 0, `second process: ${rb.stderr}`);
    assert.match(rb.stderr, WAITS, 'the second process waited for the first one\'s refresh');
    // The sign-in survived: a third process uses it without a browser.
    const later = await h.run(['tools', 'secure']);
    assert.equal(later.code, 0, later.stderr);
  });

  test('a refresh the SDK gives up on and rethrows releases the lock where the failed send returns, not when the connection closes', async () => {
    const { world } = suite;
    const h = await signedInHome(world);
    await world.expireAccessTokens();
    const lockFile = `${signInPath(h.dir, 'secure')}.lock`;

    // This test process is the first mcp-tasks: its connection stays open after a send whose
    // refresh the authorization server answers with an error the SDK rethrows from auth().
    const debug: string[] = [];
    const io = { env: CHILD_KEY_ENV, platform: process.platform, home: h.dir, say: () => {}, debug: (l: string) => debug.push(l), redact: () => {} };
    const signIn = (await signInTransportFor(io, { name: 'secure', url: world.url }, { tty: false, storedAuthOnly: true }))!;
    const transport = signIn.factory(new URL(world.url), { requestInit: {} });
    await transport.start();
    try {
      world.refuseTokenRequests = 'temporarily_unavailable';
      const before = world.tokenRequests.length;
      await assert.rejects(
        transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'lock-test', version: '0' } } }),
        /temporarily_unavailable|unavailable/i,
      );
      assert.deepEqual(world.tokenRequests.slice(before), ['temporarily_unavailable answered'], 'the refresh was tried under the lock and failed');
      world.refuseTokenRequests = undefined;
      assert.equal(existsSync(lockFile), false, 'the refresh lock is released once the failed send returns, with the connection still open');

      // A second process refreshes at once: it does not wait for a refresh that is over.
      const b = await h.run(['-v', 'tools', 'secure']);
      assert.equal(b.code, 0, b.stderr);
      assert.doesNotMatch(b.stderr, WAITS);
      assert.equal(world.tokenRequests.at(-1), 'refresh_token');
    } finally {
      world.refuseTokenRequests = undefined;
      await transport.close();
    }
  });

  test('a refresh the SDK starts for its standalone GET stream, refused by the authorization server, releases the lock when the refusal comes, not when the connection closes', async () => {
    const { world } = suite;
    const h = await signedInHome(world);
    const lockFile = `${signInPath(h.dir, 'secure')}.lock`;

    // This test process is the first mcp-tasks, speaking 2025-11-25: after notifications/initialized
    // the SDK opens its standalone GET stream by itself. The access token expires just before that
    // GET goes out, so the SDK refreshes for it, outside any send; the refresh is refused.
    const io = { env: CHILD_KEY_ENV, platform: process.platform, home: h.dir, say: () => {}, debug: () => {}, redact: () => {} };
    const signIn = (await signInTransportFor(io, { name: 'secure', url: world.url }, { tty: false, storedAuthOnly: true }))!;
    const transport = signIn.factory(new URL(world.url), { requestInit: {} });
    const streamFailed = new Promise<Error>((r) => (transport.onerror = r));
    await transport.start();
    try {
      await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'lock-test', version: '0' } } });
      const before = world.tokenRequests.length;
      world.beforeAnswer = async (method) => {
        if (method !== 'notifications/initialized') return;
        await world.expireAccessTokens();
        world.refuseTokenRequests = 'temporarily_unavailable';
      };
      await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      world.beforeAnswer = undefined;
      const failure = await streamFailed;
      assert.match(String(failure), /temporarily_unavailable|unavailable/i);
      assert.deepEqual(world.tokenRequests.slice(before), ['temporarily_unavailable answered'], 'the GET stream\'s refresh was tried under the lock and refused');
      world.refuseTokenRequests = undefined;
      assert.equal(existsSync(lockFile), false, 'the refresh lock is released once the refusal came, with the connection still open');

      // A second process refreshes at once: it does not wait for a refresh that is over.
      const b = await h.run(['-v', 'tools', 'secure']);
      assert.equal(b.code, 0, b.stderr);
      assert.doesNotMatch(b.stderr, WAITS);
      assert.equal(world.tokenRequests.at(-1), 'refresh_token');
    } finally {
      world.beforeAnswer = undefined;
      world.refuseTokenRequests = undefined;
      await transport.close();
    }
  });
});
