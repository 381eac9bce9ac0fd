import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sanitize, safeJson } from '../../../src/output/sanitize.js';

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

test('strips CSI, OSC, C1 and bare control characters', () => {
  const hostile = '\x1b[2J\x1b[H\x1b]0;owned\x07\x1b[31mred\x1b[0m\u009b6n bell\x07 nul\x00 del\x7f \x1bP+q\x1b\\ ok';
  const out = sanitize(hostile);
  assert.doesNotMatch(out, CONTROL);
  assert.match(out, /red/);
  assert.match(out, /ok$/);
  assert.doesNotMatch(out, /owned/);
});

test('keeps newlines and tabs, cuts long lines and long texts', () => {
  assert.equal(sanitize('a\tb\nc'), 'a\tb\nc');
  const long = sanitize('x'.repeat(5000), { maxLineLength: 100 });
  assert.ok(long.length < 200);
  assert.match(long, /4900 more characters/);
  assert.equal(sanitize('a\nb', { singleLine: true }), 'a b');
  assert.match(sanitize('y'.repeat(500), { maxLength: 50, maxLineLength: 1000 }), /cut: 450 more/);
});

test('bidi overrides are removed', () => {
  assert.equal(sanitize('abc\u202edef'), 'abcdef');
});

test('safeJson escapes C1 controls that JSON.stringify leaves raw, and stays parseable', () => {
  const v = { s: 'a\u009b6n\u202eb\x1b[2J' };
  const text = safeJson(v);
  assert.doesNotMatch(text, CONTROL);
  assert.deepEqual(JSON.parse(text), v);
});
