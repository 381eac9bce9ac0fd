// Sign-ins are sealed with the vault's own key, wherever the vault keeps it: the OS keychain
// where the vault uses it (macOS, Windows), else vault.key. This machine has no usable keychain,
// so a vault whose header names one is written by hand: the sign-in then goes to that keychain
// (and fails here as the vault would) instead of quietly creating a key file the vault never uses.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { CliError, ExitCode } from '../../../src/errors.js';
import { toCliError } from '../../../src/app/remote-error.js';
import { signInPath, writeSignIn, type SignInRecord } from '../../../src/connection/oauth-store.js';
import { decodeSealed, encodeSealed, keyFilePath, seal } from '../../../src/vault/vault-crypto.js';
import { vaultPath } from '../../../src/vault/vault.js';
import { vaultAt } from '../../../src/app/open-vault.js';
import { tempDir } from '../../helpers/temp-dirs.js';

const home = () => tempDir('mcp-tasks-sign-in-key-');

const record = (): SignInRecord => ({
  server: 's',
  serverUrl: 'https://mcp.example.com/mcp',
  kind: 'authorization_code',
  tokens: { access_token: 'access-token-value-0123456789abcdef' },
  tokensSavedAt: 0,
  updatedAt: '',
});

describe('the sign-in key follows the vault', () => {
  test('a vault keyed in the OS keychain: the sign-in uses that keychain entry, never a new key file', () => {
    const h = home();
    const source = { kind: 'keychain' as const, service: 'mcp-tasks-test', account: `vault-${randomBytes(6).toString('hex')}` };
    writeFileSync(vaultPath(h), encodeSealed(seal(Buffer.from('{}'), randomBytes(32), source)), { mode: 0o600 });
    assert.throws(
      () => writeSignIn(h, record(), {}),
      (thrown: unknown) => { const err = toCliError(thrown); return err instanceof CliError && err.exitCode === ExitCode.VaultError && /OS keychain/.test(err.message); },
      'the keychain the vault uses is asked for the key',
    );
    assert.ok(!existsSync(keyFilePath(h)), 'no vault.key beside a keychain vault');
    assert.ok(!existsSync(signInPath(h, 's')), 'nothing written');
  });

  test('no vault yet: it is created first, and the sign-in is sealed with the same key source', () => {
    const h = home();
    const { createdKeyFile } = writeSignIn(h, record(), {});
    assert.equal(createdKeyFile, keyFilePath(h), 'the one key file is announced once');
    const vaultHeader = decodeSealed(readFileSync(vaultPath(h)));
    const signIn = JSON.parse(readFileSync(signInPath(h, 's'), 'utf8')) as { key: unknown };
    assert.ok(vaultHeader, 'the vault exists');
    assert.deepEqual(signIn.key, vaultHeader.key);
    vaultAt(h, {}).check();
  });
});
