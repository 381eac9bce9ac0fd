// The bundled driver's crypto helpers (src/vault/postgres/pg-node-crypto.cjs, swapped in for pg's
// Web Crypto ones by scripts/build.mjs) give pg's own results, byte for byte, for everything a
// SCRAM-SHA-256 login (with and without channel binding) and an MD5 login compute. The team-store
// tests then log in through them against a real PostgreSQL that asks for SCRAM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

type Helpers = {
  randomBytes(n: number): Buffer;
  deriveKey(password: string, salt: Uint8Array, iterations: number): Promise<ArrayBuffer | Buffer>;
  sha256(data: ArrayBuffer | Buffer): Promise<ArrayBuffer | Buffer>;
  hashByName(name: string, data: Buffer): Promise<ArrayBuffer | Buffer>;
  hmacSha256(key: ArrayBuffer | Buffer, msg: string): Promise<ArrayBuffer | Buffer>;
  postgresMd5PasswordHash(user: string, password: string, salt: Buffer): Promise<string>;
};

const require = createRequire(import.meta.url);
const pgOwn = require('pg/lib/crypto/utils.js') as Helpers;
const ours = require(fileURLToPath(new URL('../../../../src/vault/postgres/pg-node-crypto.cjs', import.meta.url))) as Helpers;
const hex = (b: ArrayBuffer | Buffer) => Buffer.from(b as ArrayBuffer).toString('hex');

test('the node:crypto helpers give what pg computes with Web Crypto, for a SCRAM and an MD5 login', async () => {
  assert.deepEqual(Object.keys(ours).sort(), Object.keys(pgOwn).sort(), 'the same exports');
  const salt = Buffer.from('c2FsdHNhbHRzYWx0c2FsdA==', 'base64');
  for (const password of ['test-only-password', 'pässwörd ☃ with spaces']) {
    const mine = await ours.deriveKey(password, salt, 4096);
    const theirs = await pgOwn.deriveKey(password, salt, 4096);
    assert.equal(hex(mine), hex(theirs), 'the salted password');
    const authMessage = 'n=*,r=abc,r=abcdef,s=c2FsdA==,i=4096,c=biws,r=abcdef';
    const clientKey = await ours.hmacSha256(mine, 'Client Key');
    assert.equal(hex(clientKey), hex(await pgOwn.hmacSha256(theirs, 'Client Key')));
    assert.equal(hex(await ours.sha256(clientKey)), hex(await pgOwn.sha256(await pgOwn.hmacSha256(theirs, 'Client Key'))));
    assert.equal(hex(await ours.hmacSha256(mine, authMessage)), hex(await pgOwn.hmacSha256(theirs, authMessage)));
  }
  const cert = Buffer.from('a certificate, as bytes');
  for (const name of ['SHA-256', 'SHA-384', 'SHA-512']) assert.equal(hex(await ours.hashByName(name, cert)), hex(await pgOwn.hashByName(name, cert)), name);
  assert.equal(await ours.postgresMd5PasswordHash('ann', 'pw', Buffer.from([1, 2, 3, 4])), await pgOwn.postgresMd5PasswordHash('ann', 'pw', Buffer.from([1, 2, 3, 4])));
  const nonce = ours.randomBytes(18);
  assert.ok(Buffer.isBuffer(nonce) && nonce.length === 18 && !nonce.equals(ours.randomBytes(18)), 'random bytes of the length asked');
});
