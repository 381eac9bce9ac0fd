import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sanitize, safeJson, shortenIdsIn, shortTaskId } from '../../../src/output/sanitize.js';
import { typeableRef } from '../../../src/vault/vault-record.js';

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

test('a task id is never shown whole: long ones keep 10 characters, short ones at most half', () => {
  assert.equal(shortTaskId('abcdefghijklmnopqrstuvwxyz'), 'abcdefghij…');
  assert.equal(shortTaskId('abcdefghijklm'), 'abcdefghij…');
  assert.equal(shortTaskId('abcdefghijkl'), 'abcdef…');
  assert.equal(shortTaskId('k7Qx2mPz'), 'k7Qx…');
  assert.equal(shortTaskId('7'), '…');
});

test('shortenIdsIn: a short id is replaced where it stands alone, not inside other words or numbers', () => {
  assert.equal(shortenIdsIn('Task k7Qx2mPz not found ("k7Qx2mPz")', ['k7Qx2mPz']), 'Task k7Qx… not found ("k7Qx…")');
  assert.equal(shortenIdsIn('task 4242 failed with -32603 after 14242 ms', ['4242']), 'task 42… failed with -32603 after 14242 ms');
  assert.equal(shortenIdsIn('id abcdefghijklmnop, again abcdefghijklmnopq', ['abcdefghijklmnop']), 'id abcdefghij…, again abcdefghij…q');
});

test('typeableRef: a taskId of 12 characters or fewer is stood for by the operation id', () => {
  const opId = '3f2a9c1e-0000-4000-8000-000000000000';
  assert.equal(typeableRef({ opId, taskId: 'k7Qx2mPz' }), '3f2a9c1e');
  assert.equal(typeableRef({ opId, taskId: 'abcdefghijkl' }), '3f2a9c1e');
  assert.equal(typeableRef({ opId, taskId: 'abcdefghijklm' }), 'abcdefghijkl');
  assert.equal(typeableRef({ opId, taskId: 'abcdefghijklm' }, 10), 'abcdefghij');
});
