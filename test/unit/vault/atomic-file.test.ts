// writeFileAtomic and withFileLock with real processes: a writer SIGKILLed at random moments
// never leaves a partial file, a lock left by a dead process is taken over, a live holder is
// waited for, and the lock really excludes concurrent read-modify-write across processes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LockTimeoutError, withFileLock, writeFileAtomic } from '../../../src/fs/atomic-file.js';
import { deadPid, fileMode, killHard, modUrl, octal, randInt, runNodeScript, sleep } from '../../helpers/vault-helpers.js';
import { tempDir } from '../../helpers/temp-dirs.js';

const dir = () => tempDir('mcp-tasks-atomic-');

describe('writeFileAtomic', () => {
  test('writes with the requested mode and leaves no temp file', () => {
    const d = dir();
    const p = join(d, 'f.json');
    writeFileAtomic(p, '{"a":1}', 0o600);
    writeFileAtomic(p, '{"a":2}', 0o600);
    assert.equal(readFileSync(p, 'utf8'), '{"a":2}');
    assert.equal(octal(fileMode(p)), '0600');
    assert.deepEqual(readdirSync(d), ['f.json']);
  });

  test('a writer killed with SIGKILL at random moments never leaves a partial file', { timeout: 60_000 }, async () => {
    const d = dir();
    const target = join(d, 'doc.json');
    // ~1 MB per write: long enough that many kills land in the middle of one.
    const script = `
      import { writeFileAtomic } from ${JSON.stringify(modUrl('fs/atomic-file.js'))};
      const [target] = process.argv.slice(1).filter((a) => a !== '--');
      const pad = 'x'.repeat(1 << 20);
      for (let n = 0; ; n++) {
        writeFileAtomic(target, JSON.stringify({ pid: process.pid, n, pad, end: 'END' }));
        if (n === 0) process.stdout.write('ready\\n');
      }`;
    writeFileSync(target, JSON.stringify({ pid: 0, n: -1, pad: 'x'.repeat(1 << 20), end: 'END' }));
    let writes = 0;
    for (let i = 0; i < 12; i++) {
      const w = runNodeScript(script, [target]);
      await w.waitFor('ready');
      await sleep(randInt(0, 60));
      await killHard(w);
      const text = readFileSync(target, 'utf8');
      let doc: { pid: number; n: number; pad: string; end: string };
      assert.doesNotThrow(() => (doc = JSON.parse(text) as typeof doc), `iteration ${i}: the file is not valid JSON (${text.length} bytes)`);
      assert.equal(doc!.end, 'END');
      assert.equal(doc!.pad.length, 1 << 20);
      assert.equal(doc!.pid, w.child.pid, 'the file holds a complete write of the writer just killed');
      writes += doc!.n + 1;
    }
    assert.ok(writes >= 12, `complete writes observed: ${writes}`);
    // Killed writers may leave their own temp files beside the target, never a torn target.
    for (const name of readdirSync(d)) assert.ok(name === 'doc.json' || /^\.doc\.json\.\d+\.[0-9a-f]+\.tmp$/.test(name), name);
  });
});

describe('withFileLock', () => {
  test('takes over a lock file left by a dead process', async () => {
    const d = dir();
    const p = join(d, 'store.json');
    const pid = await deadPid();
    writeFileSync(`${p}.lock`, `${pid}\n`);
    const out = withFileLock(p, () => {
      assert.equal(readFileSync(`${p}.lock`, 'utf8').trim(), String(process.pid), 'the lock now names us');
      return 42;
      // A timeout this long would fail the test as a hang: the dead holder's lock is taken over, not waited out.
    }, { timeoutMs: 120_000 });
    assert.equal(out, 42);
    assert.equal(existsSync(`${p}.lock`), false, 'released afterwards');
  });

  test('takes over an empty lock file only once it is stale by age', () => {
    const d = dir();
    const p = join(d, 'store.json');
    writeFileSync(`${p}.lock`, '');
    assert.throws(() => withFileLock(p, () => 1, { timeoutMs: 150, staleMs: 60_000 }), LockTimeoutError, 'a fresh empty lock is a holder between create and write');
    const old = new Date(Date.now() - 120_000);
    utimesSync(`${p}.lock`, old, old);
    assert.equal(withFileLock(p, () => 2, { timeoutMs: 1000, staleMs: 60_000 }), 2);
  });

  test('waits for a live holder and times out with LockTimeoutError naming it', async () => {
    const d = dir();
    const p = join(d, 'store.json');
    const holder = runNodeScript(
      `import { withFileLock } from ${JSON.stringify(modUrl('fs/atomic-file.js'))};
       const p = process.argv.filter((a) => a !== '--')[1];
       withFileLock(p, () => { process.stdout.write('locked\\n'); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600); });
       process.stdout.write('released\\n');`,
      [p],
    );
    try {
      await holder.waitFor('locked');
      assert.throws(
        () => withFileLock(p, () => assert.fail('ran while another process held the lock'), { timeoutMs: 100 }),
        (err: unknown) => err instanceof LockTimeoutError && err.holder === `pid ${holder.child.pid}`,
      );
      // Given time, the lock is acquired once the holder lets go.
      assert.equal(withFileLock(p, () => 'mine', { timeoutMs: 5000 }), 'mine');
      await holder.done;
      assert.match(holder.stdout(), /released/);
    } finally {
      await killHard(holder);
    }
  });

  test('excludes concurrent read-modify-write across processes (no lost update)', { timeout: 60_000 }, async () => {
    const d = dir();
    const p = join(d, 'counter.txt');
    writeFileSync(p, '0');
    const N = 4;
    const EACH = 60;
    const script = `
      import { readFileSync, writeFileSync } from 'node:fs';
      import { withFileLock } from ${JSON.stringify(modUrl('fs/atomic-file.js'))};
      const p = process.argv.filter((a) => a !== '--')[1];
      for (let i = 0; i < ${EACH}; i++) {
        withFileLock(p, () => {
          const n = Number(readFileSync(p, 'utf8'));
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
          writeFileSync(p, String(n + 1));
        }, { timeoutMs: 30000 });
      }`;
    const workers = Array.from({ length: N }, () => runNodeScript(script, [p]));
    try {
      const ends = await Promise.all(workers.map((w) => w.done));
      for (const [i, e] of ends.entries()) assert.equal(e.code, 0, `worker ${i}: ${workers[i]!.stderr()}`);
      assert.equal(Number(readFileSync(p, 'utf8')), N * EACH);
      assert.equal(existsSync(`${p}.lock`), false);
    } finally {
      await Promise.all(workers.map(killHard));
    }
  });
});
