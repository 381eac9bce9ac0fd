// A ref that begins with "-" as main reads it, against the real program's options: refused with the
// "--" hint when it stands as an operand; passed on as given when it is an option's value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonDoc, tempHome } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

test('a value beginning with "-" after an option that takes one is that option\'s value, not a pasted ref', async () => {
  const home = tempHome();
  const r = await runInProcess(['recover', 'abcdefgh', '--resolve', 'completed', '--note', '-no_ticket_yet'], { home });
  assert.doesNotMatch(r.stderr, /was read as an option/, r.stderr);
  assert.match(r.stderr, /no record in the vault matches "abcdefgh"/, r.stderr);
});

test('a pasted ref beginning with "-V": exit 1, the same hint on stderr as commander\'s, and the error document with --json', async () => {
  const home = tempHome();
  const ref = '-VAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const r = await runInProcess(['get', ref], { home });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^error: "-VAAAA…" begins with "-" and was read as an option\. .*mcp-tasks get \[options\] -- <ref>\n  next: `\S*mcp-tasks\S* get --help` shows the usage\n$/);
  const j = await runInProcess(['--json', 'get', ref], { home });
  assert.equal(j.code, 1, j.stderr);
  assert.equal(j.stderr, r.stderr);
  assert.equal(parseJsonDoc(j.stdout).error.kind, 'usage');
  assert.ok(!(j.stdout + j.stderr).includes(ref), 'the whole handle is not echoed');
});
