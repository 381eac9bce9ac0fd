// A pasted task id that begins with "-" (or "--") is explained, shown shortened, never echoed whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainOptionLikeRef } from '../../../src/cli/option-like-ref.js';

test('an id beginning with "-" or "--" is explained and shortened; a mistyped long option is left alone', () => {
  for (const id of ['-AbCdEfGhIjKlMnOpQrStUv', '--H8jVD2FiS0UQ8t-VMpQy90zBG6IJx8']) {
    const out = explainOptionLikeRef(`error: unknown option '${id}'\n`, ['get', id]);
    assert.match(out, /begins with "-" and was read as an option/);
    assert.ok(!out.includes(id), 'the whole handle is not echoed');
  }
  const typo = "error: unknown option '--stored-auth-onlyy'\n";
  assert.equal(explainOptionLikeRef(typo, ['get', '--stored-auth-onlyy']), typo);
});
