// The two kinds of team key: a generated one is recognised whole and only whole; a passphrase,
// even one that begins with the prefix, is never taken for one (it would skip the stretching).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generatedKeyBytes, generatedMaster, looksGenerated, newTeamKey } from '../../../src/vault/postgres/team-key.js';
import { masterKey, validCost } from '../../../src/vault/postgres/pg-connect.js';

test('a generated key is 256 random bits behind its prefix, new each time', () => {
  const a = newTeamKey();
  const b = newTeamKey();
  assert.match(a, /^mcptk1_[A-Za-z0-9_-]{43}$/);
  assert.notEqual(a, b);
  assert.equal(generatedKeyBytes(a)?.length, 32);
  assert.equal(looksGenerated(a), false);
});

test('only a whole generated key counts as one; a damaged one is told apart from a passphrase', () => {
  const k = newTeamKey();
  for (const damaged of [k.slice(0, -1), `${k}x`, `${k.slice(0, 20)}!${k.slice(21)}`, 'mcptk1_']) {
    assert.equal(generatedKeyBytes(damaged), undefined, damaged);
    assert.equal(looksGenerated(damaged), true, damaged);
  }
  for (const passphrase of ['correct horse battery staple', 'mcptk2_' + k.slice(7), k.slice(7)]) {
    assert.equal(generatedKeyBytes(passphrase), undefined);
    assert.equal(looksGenerated(passphrase), false);
  }
});

test('a cost-0 store derives its master key with HKDF from a generated key and refuses a passphrase', async () => {
  const k = newTeamKey();
  const salt = Buffer.alloc(16, 7).toString('base64');
  assert.ok(validCost(0) && validCost(2 ** 14) && !validCost(1) && !validCost(3) && !validCost(2 ** 21));
  const m = await masterKey(k, salt, 0);
  assert.deepEqual(m, generatedMaster(generatedKeyBytes(k)!, Buffer.from(salt, 'base64')));
  assert.notDeepEqual(m, await masterKey(k, Buffer.alloc(16, 8).toString('base64'), 0), 'the salt makes each store its own keys');
  await assert.rejects(masterKey('a-long-enough-passphrase', salt, 0));
  // The same generated key on a store made with a passphrase's cost is stretched like any passphrase.
  assert.notDeepEqual(await masterKey(k, salt, 2), m);
});
