// Sealing: AES-256-GCM with the header bound as associated data, the on-disk framing
// (magic line, JSON header line, raw ciphertext), and decodeSealed on bytes that are not a vault.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  decodeSealed,
  encodeSealed,
  seal,
  sealWithPassphrase,
  unseal,
  unsealWithPassphrase,
  VAULT_FORMAT_VERSION,
  VaultKeyError,
  type KeySource,
} from '../../../src/vault/vault-crypto.js';

const keyfile: KeySource = { kind: 'keyfile' };
const plain = Buffer.from(JSON.stringify({ records: { a: { taskId: 'secret-handle' } } }));

describe('seal / unseal', () => {
  test('round trip; the plaintext is not in the sealed bytes', () => {
    const key = randomBytes(32);
    const sealed = seal(plain, key, keyfile);
    assert.equal(sealed.version, VAULT_FORMAT_VERSION);
    assert.deepEqual(unseal(sealed, key), plain);
    const bytes = encodeSealed(sealed);
    assert.ok(!bytes.includes('secret-handle'));
    const back = decodeSealed(bytes);
    assert.ok(back);
    assert.deepEqual(unseal(back, key), plain);
    assert.equal(bytes.subarray(0, 16).toString(), 'mcp-tasks-vault\n', 'the magic line');
    const header = JSON.parse(bytes.subarray(16, bytes.indexOf(0x0a, 16)).toString()) as Record<string, unknown>;
    assert.equal(header.version, VAULT_FORMAT_VERSION);
  });

  test('two seals of the same plaintext differ (fresh IV)', () => {
    const key = randomBytes(32);
    const a = seal(plain, key, keyfile);
    const b = seal(plain, key, keyfile);
    assert.notEqual(a.iv, b.iv);
    assert.notDeepEqual(a.data, b.data);
  });

  test('a wrong key throws VaultKeyError', () => {
    const sealed = seal(plain, randomBytes(32), keyfile);
    assert.throws(() => unseal(sealed, randomBytes(32)), (err: unknown) => {
      assert.ok(err instanceof VaultKeyError);
      assert.match(err.message, /cannot be decrypted with vault\.key/);
      assert.match(err.next, /Restore the vault\.key/);
      return true;
    });
    const pass = seal(plain, randomBytes(32), { kind: 'passphrase', salt: randomBytes(16).toString('base64'), N: 2 ** 14 });
    assert.throws(() => unseal(pass, randomBytes(32)), /wrong MCP_TASKS_VAULT_KEY/);
  });

  test('altered ciphertext, tag, IV, version or key source throws (the header is authenticated)', () => {
    const key = randomBytes(32);
    const sealed = seal(plain, key, keyfile);
    const flipped = Buffer.from(sealed.data);
    flipped.writeUInt8(flipped.readUInt8(0) ^ 0x80, 0);
    const tag = Buffer.from(sealed.tag, 'base64');
    tag.writeUInt8(tag.readUInt8(0) ^ 0x01, 0);
    const cases = {
      data: { ...sealed, data: flipped },
      truncated: { ...sealed, data: sealed.data.subarray(0, sealed.data.length - 1) },
      tag: { ...sealed, tag: tag.toString('base64') },
      iv: { ...sealed, iv: randomBytes(12).toString('base64') },
      version: { ...sealed, version: 2 },
      keySource: { ...sealed, key: { kind: 'passphrase', salt: 'AAAA', N: 16384 } as KeySource },
    };
    for (const [name, s] of Object.entries(cases)) assert.throws(() => unseal(s, key), VaultKeyError, name);
  });

  test('passphrase sealing (export bundles)', () => {
    const sealed = sealWithPassphrase(plain, 'a long export passphrase');
    assert.equal(sealed.key.kind, 'passphrase');
    assert.deepEqual(unsealWithPassphrase(decodeSealed(encodeSealed(sealed))!, 'a long export passphrase'), plain);
    assert.throws(() => unsealWithPassphrase(sealed, 'another long passphrase'), VaultKeyError);
    assert.throws(() => unsealWithPassphrase(seal(plain, randomBytes(32), keyfile), 'a long export passphrase'), /not passphrase-sealed/);
  });
});

describe('decodeSealed on bytes that are not a sealed vault', () => {
  const good = encodeSealed(seal(plain, randomBytes(32), keyfile));
  const cases: Record<string, Buffer> = {
    empty: Buffer.alloc(0),
    'random bytes': randomBytes(4096),
    'JSON document': Buffer.from('{"records":{}}'),
    'magic without newline': Buffer.from('mcp-tasks-vault'),
    'magic only': Buffer.from('mcp-tasks-vault\n'),
    'wrong magic': Buffer.concat([Buffer.from('mcp-tasks-vauLt\n'), good.subarray(16)]),
    'header without newline': good.subarray(0, good.indexOf(0x0a, 16)),
    'header not JSON': Buffer.from('mcp-tasks-vault\n{"version":1,\nxxxx'),
    'header without iv': Buffer.from('mcp-tasks-vault\n{"version":1,"key":{"kind":"keyfile"},"tag":"AAAA"}\nxxxx'),
    'header without tag': Buffer.from('mcp-tasks-vault\n{"version":1,"key":{"kind":"keyfile"},"iv":"AAAA"}\nxxxx'),
    'header without key': Buffer.from('mcp-tasks-vault\n{"version":1,"iv":"AAAA","tag":"AAAA"}\nxxxx'),
    'key is a string': Buffer.from('mcp-tasks-vault\n{"version":1,"key":"keyfile","iv":"AAAA","tag":"AAAA"}\nxxxx'),
    'header is a number': Buffer.from('mcp-tasks-vault\n42\nxxxx'),
    'header is an array': Buffer.from('mcp-tasks-vault\n[1,2]\nxxxx'),
    'first 20 bytes of a vault': good.subarray(0, 20),
  };
  for (const [name, bytes] of Object.entries(cases)) {
    test(name, () => {
      assert.equal(decodeSealed(bytes), undefined);
    });
  }

  test(
    'header is JSON null',
    {
    },
    () => {
      assert.equal(decodeSealed(Buffer.from('mcp-tasks-vault\nnull\nxxxx')), undefined);
    },
  );

  test('a version that is not a number decodes as NaN (the Vault then refuses it)', () => {
    const s = decodeSealed(Buffer.from('mcp-tasks-vault\n{"version":"2","key":{"kind":"keyfile"},"iv":"AAAA","tag":"AAAA"}\nxxxx'));
    assert.ok(s);
    assert.ok(Number.isNaN(s.version));
  });
});
