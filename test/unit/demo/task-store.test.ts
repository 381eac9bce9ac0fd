// FileTaskStore and the atomic-write / cross-process lock it stands on: never half-written,
// never silently replaced when unreadable, never wedged by a dead writer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileTaskStore, StoreError, type StoredTask } from '../../../src/demo/task-store.js';
import { LockTimeoutError, withFileLock } from '../../../src/fs/atomic-file.js';
import { makeTempDir, readStore, sha256File, tempStorePath } from '../../helpers/demo-server.js';
import { seededWord } from '../../helpers/seeded.js';

const STORE_MODULE = fileURLToPath(new URL('../../../src/demo/task-store.js', import.meta.url));

let n = 0;
function task(overrides: Partial<StoredTask> = {}): StoredTask {
  n++;
  return {
    taskId: `task-${n}-${seededWord()}`,
    tool: 'slow_compute',
    args: { seconds: 1 },
    createdAtMs: Date.now(),
    ttlMs: 60_000,
    answers: {},
    answeredAtMs: {},
    ...overrides,
  };
}

/** Files in the store's directory other than the store itself (temp files, locks). */
const leftovers = (path: string) => readdirSync(join(path, '..')).filter((f) => f !== 'tasks.json');

test('open() creates an empty store (and its directory) with private permissions', (t) => {
  const dir = makeTempDir(t);
  const path = join(dir, 'nested', 'deeper', 'tasks.json');
  new FileTaskStore(path).open();
  assert.deepEqual(readStore(path).tasks, {});
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'nested', 'deeper')).mode & 0o777, 0o700);
  assert.deepEqual(leftovers(path), [], 'no temp or lock file left behind');
});

test('open() on an existing store keeps its tasks and bytes', (t) => {
  const path = tempStorePath(t);
  const s1 = new FileTaskStore(path).open();
  const a = task();
  s1.insert(a);
  const before = sha256File(path);
  const s2 = new FileTaskStore(path).open();
  assert.equal(sha256File(path), before, 'opening does not rewrite');
  assert.deepEqual(s2.get(a.taskId), a);
});

test('insert / get / update / all round-trip through the file', (t) => {
  const path = tempStorePath(t);
  const store = new FileTaskStore(path).open();
  const a = task();
  const b = task({ tool: 'multi_input', args: {} });
  assert.deepEqual(store.insert(a), { task: a, created: true });
  store.insert(b);
  assert.deepEqual(store.get(a.taskId), a);
  assert.equal(store.get('missing'), undefined);
  assert.equal(store.get('__proto__'), undefined);
  assert.deepEqual(store.get(b.taskId), b);

  const updated = store.update(b.taskId, (x) => {
    x.answers.name = { action: 'accept', content: { name: 'Ada' } };
    x.answeredAtMs.name = 123;
  });
  assert.deepEqual(updated?.answers, { name: { action: 'accept', content: { name: 'Ada' } } });
  assert.equal(store.update('missing', () => assert.fail('change must not run for an unknown task')), undefined);
  // What is on disk is what get() returns: a fresh store object sees the update.
  assert.deepEqual(new FileTaskStore(path).get(b.taskId)?.answeredAtMs, { name: 123 });
  assert.equal(Object.keys(readStore(path).tasks).length, 2);
  assert.deepEqual(store.summaries().map((s) => s.tool).sort(), ['multi_input', 'slow_compute']);
});

test('the file keeps no bearer handles: ids, arguments, answers and idempotency keys are not in it', (t) => {
  const path = tempStorePath(t);
  const store = new FileTaskStore(path).open();
  const a = task({ tool: 'send_payment', args: { to: 'secret-recipient', amount: 12345 }, idempotencyKey: 'idem-secret-key' });
  store.insert(a);
  assert.equal(store.insert(task({ tool: 'send_payment', idempotencyKey: 'idem-secret-key' })).task.taskId, a.taskId);
  store.update(a.taskId, (x) => {
    x.answers.confirm = { action: 'accept', content: { note: 'answer-secret' } };
  });
  const bytes = readFileSync(path, 'utf8');
  for (const secret of [a.taskId, 'secret-recipient', '12345', 'idem-secret-key', 'answer-secret']) {
    assert.ok(!bytes.includes(secret), `${secret} is readable in the store file`);
  }
  // Yet the holder of the handle gets everything back.
  assert.deepEqual(store.get(a.taskId)?.args, { to: 'secret-recipient', amount: 12345 });
  assert.deepEqual(store.get(a.taskId)?.answers, { confirm: { action: 'accept', content: { note: 'answer-secret' } } });
  assert.deepEqual(store.summaries().map((s) => s.tool), ['send_payment']);
});

test('update() keeps a task reachable by its idempotency key', (t) => {
  const store = new FileTaskStore(tempStorePath(t)).open();
  const a = task({ tool: 'send_payment', idempotencyKey: 'k-upd' });
  store.insert(a);
  store.update(a.taskId, (x) => {
    x.cancelRequestedAtMs = Date.now();
  });
  const again = store.insert(task({ tool: 'send_payment', idempotencyKey: 'k-upd' }));
  assert.equal(again.created, false, 'a repeated key after an update created a second task');
  assert.equal(again.task.taskId, a.taskId);
});

test('insert with an idempotency key returns the existing task for the same tool only', (t) => {
  const store = new FileTaskStore(tempStorePath(t)).open();
  const first = task({ tool: 'send_payment', idempotencyKey: 'k1' });
  assert.equal(store.insert(first).created, true);
  const dup = store.insert(task({ tool: 'send_payment', idempotencyKey: 'k1', args: { amount: 99 } }));
  assert.equal(dup.created, false);
  assert.equal(dup.task.taskId, first.taskId);
  assert.deepEqual(dup.task.args, first.args, 'the first task, not the repeat');
  assert.equal(dup.task.createdAtMs, first.createdAtMs);
  assert.equal(store.insert(task({ tool: 'slow_compute', idempotencyKey: 'k1' })).created, true);
  assert.equal(store.summaries().length, 2);
});

test('atomic writes: a concurrent reader in another process never sees a partial file', async (t) => {
  const path = tempStorePath(t);
  const store = new FileTaskStore(path).open();
  // The reader parses the file in a tight loop until told to stop, then reports what it saw.
  const reader = spawn(
    process.execPath,
    [
      '-e',
      `const fs = require('fs'); let reads = 0, bad = 0, maxTasks = 0, stop = false;
       process.stdin.on('data', () => { stop = true; });
       (function loop() {
         for (let i = 0; i < 50; i++) {
           try { const d = JSON.parse(fs.readFileSync(${JSON.stringify(path)}, 'utf8')); reads++; maxTasks = Math.max(maxTasks, Object.keys(d.tasks).length); }
           catch (e) { if (e.code !== 'ENOENT') bad++; }
         }
         if (stop) { process.stdout.write(JSON.stringify({ reads, bad, maxTasks })); process.exit(0); }
         setImmediate(loop);
       })();`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  t.after(() => reader.kill('SIGKILL'));
  let out = '';
  reader.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const closed = new Promise<void>((r) => reader.once('close', () => r()));
  // Big enough tasks that a torn write would be visible.
  const filler = 'x'.repeat(2000);
  for (let i = 0; i < 150; i++) store.insert(task({ args: { seconds: 1, filler } }));
  await new Promise((r) => setTimeout(r, 50));
  reader.stdin.end('stop');
  await closed;
  const seen = JSON.parse(out) as { reads: number; bad: number; maxTasks: number };
  assert.ok(seen.reads > 0, 'the reader read the store');
  assert.equal(seen.bad, 0, `${seen.bad} of ${seen.reads + seen.bad} reads saw invalid JSON`);
  assert.equal(Object.keys(readStore(path).tasks).length, 150);
  assert.deepEqual(leftovers(path), [], 'no temp or lock file left behind');
});

test('the lock serializes writers in different processes: no insert is lost', async (t) => {
  const path = tempStorePath(t);
  new FileTaskStore(path).open();
  const script = `
    const { FileTaskStore } = await import(${JSON.stringify(STORE_MODULE)});
    const store = new FileTaskStore(${JSON.stringify(path)}).open();
    for (let i = 0; i < 40; i++) store.insert({ taskId: 'p' + process.pid + '-' + i, tool: 'slow_compute', args: {}, createdAtMs: Date.now(), ttlMs: null, answers: {}, answeredAtMs: {} });
  `;
  const run = () =>
    new Promise<number | null>((resolve) => {
      const c = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'inherit'] });
      t.after(() => c.kill('SIGKILL'));
      c.once('exit', (code) => resolve(code));
    });
  const codes = await Promise.all([run(), run(), run()]);
  assert.deepEqual(codes, [0, 0, 0]);
  assert.equal(Object.keys(readStore(path).tasks).length, 120);
  assert.deepEqual(leftovers(path), []);
});

for (const [label, bytes, pattern] of [
  ['truncated JSON', '{"format":"mcp-tasks-demo-store","version":1,"tasks":{"abc":{"taskId":"a', /not valid JSON/],
  ['an empty file', '', /not valid JSON/],
  ['JSON that is not a store', '{"hello":"world"}', /not an mcp-tasks demo store/],
  ['JSON null', 'null', /not an mcp-tasks demo store/],
  ['a store with tasks: null', '{"format":"mcp-tasks-demo-store","version":1,"tasks":null}', /not an mcp-tasks demo store/],
  ['a future store version', '{"format":"mcp-tasks-demo-store","version":99,"tasks":{}}', /unsupported format version 99/],
] as const) {
  test(`a store file holding ${label}: open() throws StoreError and leaves the bytes alone`, (t) => {
    const path = tempStorePath(t);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, bytes);
    const hash = sha256File(path);
    const mtime = statSync(path).mtimeMs;
    const store = new FileTaskStore(path);
    assert.throws(() => store.open(), (err: unknown) => err instanceof StoreError && pattern.test(err.message) && err.message.includes(path));
    // Every other entry point refuses too, rather than "repairing" the file.
    assert.throws(() => store.insert(task()), StoreError);
    assert.throws(() => store.update('abc', () => {}), StoreError);
    assert.throws(() => store.get('abc'), StoreError);
    assert.equal(sha256File(path), hash, 'bytes unchanged');
    assert.equal(statSync(path).mtimeMs, mtime, 'not rewritten');
    assert.deepEqual(leftovers(path), [], 'no lock or temp file left behind');
  });
}

test('a store file corrupted while open: writes refuse and leave the bytes alone', (t) => {
  const path = tempStorePath(t);
  const store = new FileTaskStore(path).open();
  store.insert(task());
  writeFileSync(path, '{"format":"mcp-tasks-demo-store","ver');
  const hash = sha256File(path);
  assert.throws(() => store.insert(task()), StoreError);
  assert.equal(sha256File(path), hash);
});

test('unusable store paths fail open() with a StoreError naming the path', (t) => {
  const dir = makeTempDir(t);
  const file = join(dir, 'plain-file');
  writeFileSync(file, 'not a directory');
  for (const path of [dir /* a directory */, join(file, 'tasks.json') /* under a file */, join(file, 'a', 'tasks.json')]) {
    assert.throws(
      () => new FileTaskStore(path).open(),
      (err: unknown) => err instanceof StoreError && err.message.includes(path),
      path,
    );
  }
  assert.equal(readFileSync(file, 'utf8'), 'not a directory');
});

test('a lock file left by a dead process is taken over at once', async (t) => {
  const path = tempStorePath(t);
  const store = new FileTaskStore(path).open();
  // A pid that certainly belonged to a process that has exited.
  const dead = spawn(process.execPath, ['-e', '0']);
  const deadPid = dead.pid!;
  await new Promise((r) => dead.once('exit', r));
  writeFileSync(`${path}.lock`, `${deadPid}\n`);
  const a = task();
  // Succeeds only by taking the dead holder's lock over (waiting it out would end in a lock timeout).
  store.insert(a);
  assert.deepEqual(store.get(a.taskId), a);
  assert.equal(existsSync(`${path}.lock`), false, 'the lock is released after the write');
});

test('a lock held by a live process is waited for, and only a stale one is taken over', (t) => {
  const path = tempStorePath(t);
  new FileTaskStore(path).open();
  const lock = `${path}.lock`;
  // Held by a live pid (ours), fresh: the lock times out rather than being stolen.
  writeFileSync(lock, `${process.pid}\n`);
  assert.throws(() => withFileLock(path, () => assert.fail('must not run'), { timeoutMs: 150 }), LockTimeoutError);
  assert.equal(readFileSync(lock, 'utf8'), `${process.pid}\n`, 'a live holder keeps its lock');
  // An empty lock (a holder between create and write) is only stale by age.
  writeFileSync(lock, '');
  assert.throws(() => withFileLock(path, () => 1, { timeoutMs: 150 }), LockTimeoutError);
  // The same lock, old enough, is taken over.
  const old = new Date(Date.now() - 60_000);
  utimesSync(lock, old, old);
  assert.equal(withFileLock(path, () => 42), 42);
  assert.equal(existsSync(lock), false);
  // And a live holder's lock older than staleMs too.
  writeFileSync(lock, `${process.pid}\n`);
  utimesSync(lock, old, old);
  assert.equal(withFileLock(path, () => 'taken', { staleMs: 30_000 }), 'taken');
});

test('withFileLock releases the lock when the critical section throws', (t) => {
  const path = tempStorePath(t);
  assert.throws(() => withFileLock(path, () => { throw new Error('boom'); }), /boom/);
  assert.equal(existsSync(`${path}.lock`), false);
  assert.equal(withFileLock(path, () => 'again'), 'again');
});
