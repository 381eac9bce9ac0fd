// A pasted task id that begins with "-" (or "--") is explained, shown shortened, never echoed whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainOptionLikeRef, optionLikeRefBeforeParse } from '../../../src/cli/option-like-ref.js';

test('an id beginning with "-", "--" or more dashes is explained and shortened; a mistyped long option is left alone', () => {
  for (const id of ['-AbCdEfGhIjKlMnOpQrStUv', '--H8jVD2FiS0UQ8t-VMpQy90zBG6IJx8', '---766p56RFuD1MOdJZsEPrLqLFxdilA', '----AbCdEfGhIjKlMnOpQrStUvWxYz']) {
    const out = explainOptionLikeRef(`error: unknown option '${id}'\n`, ['get', id]);
    assert.match(out, /begins with "-" and was read as an option/);
    assert.ok(!out.includes(id), 'the whole handle is not echoed');
  }
  const typo = "error: unknown option '--stored-auth-onlyy'\n";
  assert.equal(explainOptionLikeRef(typo, ['get', '--stored-auth-onlyy']), typo);
});

test('before parsing: a long single-dash word after a ref command is a pasted ref, unless it is the value of the option before it', () => {
  const takesValue = (flag: string) => flag === '--note' || flag === '--server';
  const ref = '-VAbCdEfGhIjKlMnOpQr';
  assert.match(optionLikeRefBeforeParse(['get', ref], takesValue) ?? '', /"-VAbCd…" begins with "-" and was read as an option\. .*mcp-tasks get \[options\] -- <ref>/);
  assert.match(optionLikeRefBeforeParse(['--json', 'watch', '--active', ref], takesValue) ?? '', /mcp-tasks watch/);
  // A value commander would take as given, a ref after "--", a short flag, or no ref command: left to commander.
  assert.equal(optionLikeRefBeforeParse(['recover', 'abc', '--resolve', 'completed', '--note', '-no_ticket_yet'], takesValue), undefined);
  assert.equal(optionLikeRefBeforeParse(['get', '--', ref], takesValue), undefined);
  assert.equal(optionLikeRefBeforeParse(['get', '-v', 'abcdefgh'], takesValue), undefined);
  assert.equal(optionLikeRefBeforeParse(['list', ref], takesValue), undefined);
});
