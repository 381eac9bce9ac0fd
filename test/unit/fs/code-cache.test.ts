// fs/code-cache.ts: a CommonJS file run with a V8 code cache, each run in a process of its own
// (the cache is written as a process exits): written once, then used; a cache for other source of
// the same length is never taken (V8 checks only the length); a damaged cache or one that cannot
// be written costs speed, never the module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../../helpers/temp-dirs.js';

const codeCache = pathToFileURL(join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../../../src/fs/code-cache.js')).href;

/** Run `file` through requireWithCodeCache in a new process; what its export `answer()` returns, and whether V8 took a cache. */
function runIn(file: string, cacheDir: string): { answer: string; stderr: string } {
  const script = `import { requireWithCodeCache } from ${JSON.stringify(codeCache)};
const m = requireWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(cacheDir)}, 'probe');
process.stdout.write(String(m.answer()));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { answer: r.stdout, stderr: r.stderr };
}

const cacheFiles = (dir: string) => {
  try {
    return readdirSync(dir).filter((f) => f.startsWith('probe-') && f.endsWith('.v8'));
  } catch {
    return [];
  }
};

test('the cache is written by the first process and kept by the next; the module works both times', () => {
  const dir = tempDir();
  const file = join(dir, 'probe.cjs');
  writeFileSync(file, "const os = require('node:os'); exports.answer = () => 'forty-two:' + typeof os.cpus;\n");
  const cache = join(dir, 'cache');
  assert.equal(runIn(file, cache).answer, 'forty-two:function');
  const written = cacheFiles(cache);
  assert.equal(written.length, 1, 'one cache file after the first run');
  const stamp = statSync(join(cache, written[0]!)).mtimeMs;
  assert.ok(statSync(join(cache, written[0]!)).size > 0);
  assert.equal(statSync(join(cache, written[0]!)).mode & 0o077, 0, 'the cache is private to its user');
  assert.equal(runIn(file, cache).answer, 'forty-two:function');
  // Taken as it was: a cache V8 accepted is not written again.
  assert.deepEqual(cacheFiles(cache), written);
  assert.equal(statSync(join(cache, written[0]!)).mtimeMs, stamp);
});

test('other source of the same length is never run from the old cache', () => {
  const dir = tempDir();
  const file = join(dir, 'probe.cjs');
  const cache = join(dir, 'cache');
  writeFileSync(file, "exports.answer = () => 'first-version';\n");
  assert.equal(runIn(file, cache).answer, 'first-version');
  const before = readFileSync(file, 'utf8');
  writeFileSync(file, "exports.answer = () => 'other-version';\n");
  assert.equal(readFileSync(file, 'utf8').length, before.length);
  assert.equal(runIn(file, cache).answer, 'other-version');
  assert.equal(cacheFiles(cache).length, 2, 'each source has a cache of its own');
});

test('a damaged cache is rejected and replaced; a cache directory that cannot be written changes nothing but speed', () => {
  const dir = tempDir();
  const file = join(dir, 'probe.cjs');
  const cache = join(dir, 'cache');
  writeFileSync(file, "exports.answer = () => 'sound';\n");
  runIn(file, cache);
  const [name] = cacheFiles(cache);
  const damaged = Buffer.alloc(statSync(join(cache, name!)).size, 0x5a);
  writeFileSync(join(cache, name!), damaged);
  assert.equal(runIn(file, cache).answer, 'sound');
  assert.ok(!readFileSync(join(cache, name!)).equals(damaged), 'the damaged cache was written anew');

  // A cache directory that cannot be made (its path is a file, which stops root too): the module still runs, silently.
  const notADir = join(dir, 'not-a-directory');
  writeFileSync(notADir, 'a file\n');
  const r = runIn(file, join(notADir, 'cache'));
  assert.equal(r.answer, 'sound');
  assert.equal(r.stderr, '');
});
