// `vault check [--repair]` on a real vault with real damage: a record file overwritten with other
// bytes, and one moved aside by hand (`mv … .bad`, the old hint) while the listing still shows it.
// Without --repair nothing changes (bytes compared); --repair moves files aside, never deletes
// them, and rebuilds the listing, after which `list`, `get` and a new check agree. `list` marks a
// row whose record file a read found damaged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { homeWithServer, parseJsonDoc, startDemo, type DemoServer, type TestHome } from '../helpers/cli.js';

function recordDir(h: TestHome): string {
  const store = readdirSync(h.dir).find((n) => /^vault-.*\.d$/.test(n));
  assert.ok(store, 'the vault has a record store');
  return join(h.dir, store, 'r');
}

/** Call a tool to its end and return the name of the record file the call added. */
async function recordOf(h: TestHome, label: string): Promise<string> {
  const dir = existsSync(h.dir) && readdirSync(h.dir).some((n) => /^vault-.*\.d$/.test(n)) ? recordDir(h) : undefined;
  const before = new Set(dir ? readdirSync(dir) : []);
  await h.ok(['call', 'web', 'greet', `name=${label}`, '--label', `job=${label}`]);
  const added = readdirSync(recordDir(h)).filter((n) => !before.has(n));
  assert.equal(added.length, 1, `one record file for ${label}`);
  return added[0]!;
}

const jobs = (stdout: string) => (parseJsonDoc(stdout) as Array<{ labels: { job: string }; status: string }>).map((r) => `${r.labels.job}:${r.status === 'damaged' ? 'damaged' : 'listed'}`).sort();

describe('vault check', () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo.stop();
  });

  test('a damaged record file: reported with what to do, nothing changed; list marks it once read; --repair moves it aside and rebuilds the listing', async () => {
    const h = await homeWithServer('web', demo.url);
    await recordOf(h, 'a');
    const b = await recordOf(h, 'b');
    await recordOf(h, 'c');
    const clean = await h.run(['vault', 'check']);
    assert.equal(clean.code, 0, clean.stderr);
    assert.match(clean.stdout, /3 record\(s\) read, all sound/);

    const path = join(recordDir(h), b);
    const garbage = randomBytes(readFileSync(path).length);
    writeFileSync(path, garbage);

    const found = await h.run(['vault', 'check']);
    assert.equal(found.code, 9, found.stderr);
    assert.ok(found.stdout.includes(path), found.stdout);
    assert.match(found.stdout, /next: Restore that file from a backup .*`[^`]*vault check --repair`/);
    const json = await h.run(['--json', 'vault', 'check']);
    assert.equal(json.code, 9, json.stderr);
    const doc = parseJsonDoc(json.stdout);
    assert.equal(doc.sound, 2);
    assert.deepEqual(doc.damaged.map((d: { path?: string }) => d.path), [path]);
    assert.ok(readFileSync(path).equals(garbage), 'vault check without --repair changed nothing');
    assert.ok(!readdirSync(join(recordDir(h), '..')).includes('damaged'), 'not even a note');

    // A read finds it damaged (exit 9, the next step is vault check --repair); list then marks the row.
    const get = await h.run(['get', 'b']);
    assert.equal(get.code, 9, get.stderr);
    assert.match(get.stderr, /vault check --repair/);
    assert.deepEqual(jobs((await h.ok(['--json', 'list', '--all'])).stdout), ['a:listed', 'b:damaged', 'c:listed']);
    assert.match((await h.ok(['list', '--all'])).stdout, /\tdamaged\t/);

    const repaired = await h.run(['vault', 'check', '--repair']);
    assert.equal(repaired.code, 0, repaired.stdout + repaired.stderr);
    const moved = /moved (\S+) to (\S+) \(kept, not deleted\)/.exec(repaired.stdout);
    assert.ok(moved, repaired.stdout);
    assert.equal(moved[1], path);
    assert.ok(readFileSync(moved[2]!).equals(garbage), 'the damaged file is kept, byte for byte');
    assert.ok(!existsSync(path));
    assert.deepEqual(jobs((await h.ok(['--json', 'list', '--all'])).stdout), ['a:listed', 'c:listed']);
    assert.equal((await h.run(['show', 'a'])).code, 0, 'a sound record is still read');
    assert.equal((await h.run(['vault', 'check'])).code, 0);
  });

  test('a record file moved aside by hand: list no longer shows a row get cannot find, once repaired', async () => {
    const h = await homeWithServer('web', demo.url);
    await recordOf(h, 'a');
    const b = await recordOf(h, 'b');
    const path = join(recordDir(h), b);
    renameSync(path, `${path}.bad`);
    // The listing still has the row: the inconsistency vault check reports.
    assert.deepEqual(jobs((await h.ok(['--json', 'list', '--all'])).stdout), ['a:listed', 'b:listed']);
    const found = await h.run(['--json', 'vault', 'check']);
    assert.equal(found.code, 9, found.stderr);
    const problems = parseJsonDoc(found.stdout).damaged.map((d: { problem: string }) => d.problem).join('\n');
    assert.match(problems, /set aside by hand/);
    assert.match(problems, /listing shows a record whose file is gone/);
    const repaired = await h.run(['vault', 'check', '--repair']);
    assert.equal(repaired.code, 0, repaired.stdout + repaired.stderr);
    assert.match(repaired.stdout, /the listing was rebuilt from the record files/);
    assert.deepEqual(jobs((await h.ok(['--json', 'list', '--all'])).stdout), ['a:listed']);
    assert.equal((await h.run(['vault', 'check'])).code, 0);
  });
});
