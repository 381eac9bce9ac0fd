// The sign-in store and the provider's small decisions: sealed with the vault's key (a passphrase
// or vault.key), 0600, unreadable with another key (exit 9, file untouched), shown without
// tokens; where the authorization URL goes; which JWS algorithm a machine key signs with.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode } from '../../../src/errors.js';
import { toCliError } from '../../../src/app/remote-error.js';
import { describeSignIn, readSignIn, removeSignIn, signInPath, writeSignIn, type SignInRecord } from '../../../src/connection/oauth-store.js';
import { browserPlan, canSignInInPlace, LoopbackRedirect, signingAlgorithm } from '../../../src/connection/oauth-provider.js';
import { tempDir } from '../../helpers/temp-dirs.js';

const home = () => tempDir('mcp-tasks-sign-in-');

const ACCESS = 'access-token-value-0123456789abcdef';
const REFRESH = 'refresh-token-value-0123456789abcdef';
const record = (): SignInRecord => ({
  server: 's',
  serverUrl: 'https://mcp.example.com/mcp',
  kind: 'authorization_code',
  tokens: { access_token: ACCESS, refresh_token: REFRESH, token_type: 'Bearer', expires_in: 3600, scope: 'mcp:tasks' },
  tokensSavedAt: Date.parse('2026-12-01T10:00:00Z'),
  issuer: 'https://auth.example.com',
  updatedAt: '',
});

describe('sign-in store', () => {
  test('round-trips sealed with vault.key, 0600, no token in the file', () => {
    const h = home();
    const { createdKeyFile } = writeSignIn(h, record(), {});
    assert.equal(createdKeyFile, join(h, 'vault.key'));
    const bytes = readFileSync(signInPath(h, 's'));
    assert.ok(!bytes.includes(ACCESS) && !bytes.includes(REFRESH));
    assert.equal(statSync(signInPath(h, 's')).mode & 0o777, 0o600);
    assert.equal(readSignIn(h, 's', {})?.tokens?.access_token, ACCESS);
    assert.equal(writeSignIn(h, record(), {}).createdKeyFile, undefined, 'the key is made once');
  });

  test('a passphrase vault key seals it too; the wrong one is a vault error and the file stays', () => {
    const h = home();
    writeSignIn(h, record(), { MCP_TASKS_VAULT_KEY: 'right horse battery' });
    const before = readFileSync(signInPath(h, 's'));
    assert.equal(readSignIn(h, 's', { MCP_TASKS_VAULT_KEY: 'right horse battery' })?.tokens?.refresh_token, REFRESH);
    assert.throws(() => readSignIn(h, 's', { MCP_TASKS_VAULT_KEY: 'wrong' }), (e: unknown) => toCliError(e)?.exitCode === ExitCode.VaultError);
    assert.throws(() => readSignIn(h, 's', {}), (e: unknown) => toCliError(e)?.exitCode === ExitCode.VaultError);
    assert.deepEqual(readFileSync(signInPath(h, 's')), before);
  });

  test('show says whether and until when, never a token; logout removes it', () => {
    const h = home();
    writeSignIn(h, record(), {});
    const view = describeSignIn(readSignIn(h, 's', {}), Date.parse('2026-12-01T10:30:00Z'));
    assert.deepEqual(view, { signedIn: true, kind: 'authorization_code', issuer: 'https://auth.example.com', scope: 'mcp:tasks', expiresAt: '2026-12-01T11:00:00.000Z', expired: false, refreshable: true });
    assert.ok(!JSON.stringify(view).includes(ACCESS));
    assert.equal(removeSignIn(h, 's'), true);
    assert.equal(readSignIn(h, 's', {}), undefined);
    assert.equal(removeSignIn(h, 's'), false);
  });
});

describe('sign-in decisions', () => {
  test('the URL goes to $BROWSER when set (even without a TTY), the platform opener in a TTY, else it is printed', () => {
    assert.equal(browserPlan({ BROWSER: 'firefox' }, false, false).mode, 'browser-env');
    assert.equal(browserPlan({}, true, false).mode, 'platform');
    assert.equal(browserPlan({}, false, false).mode, 'print');
    assert.equal(browserPlan({ BROWSER: 'firefox' }, true, true).mode, 'print', '--no-browser');
    assert.equal(canSignInInPlace({}, false), false);
    assert.equal(canSignInInPlace({ BROWSER: 'x' }, false), true);
    assert.equal(canSignInInPlace({}, true), true);
  });

  test('machine keys sign with the algorithm of their type', () => {
    const pem = (k: ReturnType<typeof generateKeyPairSync>) => k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    assert.equal(signingAlgorithm(pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }))), 'ES256');
    assert.equal(signingAlgorithm(pem(generateKeyPairSync('ec', { namedCurve: 'P-384' }))), 'ES384');
    assert.equal(signingAlgorithm(pem(generateKeyPairSync('rsa', { modulusLength: 2048 }))), 'RS256');
    assert.equal(signingAlgorithm(pem(generateKeyPairSync('ed25519'))), 'EdDSA');
  });

  test('the loopback refuses a callback with another state and takes the right one', async () => {
    const loop = new LoopbackRedirect();
    await loop.listen();
    try {
      assert.match(loop.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      loop.expectedState = 'expected-state';
      const waiting = loop.wait('ai', 60_000);
      const forged = await fetch(`${loop.redirectUri}?code=evil&state=other`);
      assert.equal(forged.status, 400);
      const ok = await fetch(`${loop.redirectUri}?code=good&state=expected-state&iss=https%3A%2F%2Fauth.example.com`);
      assert.equal(ok.status, 200);
      const params = await waiting;
      assert.equal(params.get('code'), 'good');
      assert.equal(params.get('iss'), 'https://auth.example.com');
    } finally {
      loop.close();
    }
  });
});
