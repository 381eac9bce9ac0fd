// When a task's handle may go out under the stored sign-in: the principal rules, one case each.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { comparePrincipals, type Principal } from '../../../src/tasks/principal.js';

const ISS = 'https://auth.example.com';
const alice: Principal = { issuer: ISS, kind: 'subject', subject: 'alice' };
const grantA: Principal = { issuer: ISS, kind: 'grant', grant: 'g-aaaaaaaa' };
const ci: Principal = { issuer: ISS, kind: 'client', clientId: 'ci-runner' };

describe('comparePrincipals', () => {
  test('same subject, client or grant at the same issuer (one trailing slash tolerated) is the same', () => {
    assert.equal(comparePrincipals(alice, { ...alice, issuer: `${ISS}/` }), 'same');
    assert.equal(comparePrincipals(ci, { ...ci }), 'same');
    assert.equal(comparePrincipals(grantA, { ...grantA }), 'same');
  });
  test('another subject, client or issuer, a machine for a person, or no sign-in is different', () => {
    assert.equal(comparePrincipals(alice, { ...alice, subject: 'bob' }), 'different');
    assert.equal(comparePrincipals(ci, { ...ci, clientId: 'other' }), 'different');
    assert.equal(comparePrincipals(alice, { ...alice, issuer: 'https://other.example.com' }), 'different');
    assert.equal(comparePrincipals(alice, ci), 'different');
    assert.equal(comparePrincipals(grantA, ci), 'different');
    assert.equal(comparePrincipals(alice, undefined), 'different');
  });
  test('two grants, or a grant and a subject, cannot be told apart', () => {
    assert.equal(comparePrincipals(grantA, { ...grantA, grant: 'g-bbbbbbbb' }), 'unknown');
    assert.equal(comparePrincipals(grantA, alice), 'unknown');
    assert.equal(comparePrincipals(alice, grantA), 'unknown');
  });
});
