// Atomic file replacement and a cross-process lock, shared by the demo server's task store
// and the CLI's vault. Both must never be seen half-written, even if a writer is killed.
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, basename, join } from 'node:path';
import { ownPid, pidAlive } from './own-process.js';

export interface AtomicWriteOptions {
  /** Where the temp file goes (same file system as `path`); default: beside it. */
  tmpDir?: string;
  /** fsync the directory after the rename (default true). Bulk writers sync each directory once at the end. */
  syncDir?: boolean;
}

/** Write `data` to `path` via a temp file in the same directory, fsync, then rename over. */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600, opts: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  const tmp = join(opts.tmpDir ?? dir, `.${basename(path)}.${ownPid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  if (opts.syncDir !== false) syncDirectory(dir);
}

/** Make renames and creations in `dir` durable where the platform allows a directory fsync. */
export function syncDirectory(dir: string): void {
  try {
    const dfd = openSync(dir, 'r');
    try { fsyncSync(dfd); } finally { closeSync(dfd); }
  } catch { /* not supported everywhere; the rename is still atomic */ }
}

/**
 * mkdir -p that cannot spin: Node's recursive mkdir loops forever on paths such as /proc/x
 * (ENOENT for a directory it was just told to create). Each level is tried at most twice.
 */
export function ensureDir(dir: string, mode = 0o700): void {
  try {
    mkdirSync(dir, { mode });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (statSync(dir).isDirectory()) return;
      throw err;
    }
    if (code !== 'ENOENT') throw err;
  }
  const parent = dirname(dir);
  if (parent === dir) throw new Error(`cannot create ${dir}`);
  ensureDir(parent, mode);
  try {
    mkdirSync(dir, { mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

export class LockTimeoutError extends Error {
  constructor(readonly lockPath: string, readonly holder: string) {
    super(`could not lock ${lockPath} (held by ${holder})`);
    this.name = 'LockTimeoutError';
  }
}

/**
 * Something at the lock path that no mcp-tasks process put there: a directory, a file we cannot
 * read. Waiting cannot help, so it is reported at once (a lock holder never leaves such a thing).
 */
export class LockUnusableError extends Error {
  constructor(readonly lockPath: string, readonly problem: string) {
    super(`the lock ${lockPath} is ${problem}`);
    this.name = 'LockUnusableError';
  }
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);


/**
 * Run `fn` while holding an exclusive lock file beside `path`.
 * The lock file holds the holder's pid; a lock whose holder is dead (a crashed or killed
 * writer) or older than `staleMs` is taken over, so a crash never wedges the store.
 */
export function withFileLock<T>(path: string, fn: () => T, opts: { timeoutMs?: number; staleMs?: number } = {}): T {
  const lockPath = `${path}.lock`;
  ensureDir(dirname(path));
  acquireLock(lockPath, opts.timeoutMs ?? 10_000, opts.staleMs ?? 30_000);
  try {
    removeDeadTemps(path);
    return fn();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

/**
 * Like withFileLock, for a lock file at an explicit path in a directory of locks (one per
 * record): no scan of the directory, so its cost does not grow with the number of records.
 */
export function withLockAt<T>(lockPath: string, fn: () => T, opts: { timeoutMs?: number; staleMs?: number } = {}): T {
  acquireLock(lockPath, opts.timeoutMs ?? 10_000, opts.staleMs ?? 30_000);
  try {
    return fn();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

/**
 * withFileLock for async callers: the wait for a peer's lock sleeps on a timer instead of
 * blocking the thread, so a live connection's sockets and timers keep being served meanwhile
 * (a blocked event loop misses the server closing an idle keep-alive socket, and the next
 * request on it fails). `fn` itself runs synchronously under the lock, as with withFileLock.
 */
export async function withFileLockAsync<T>(path: string, fn: () => T, opts: { timeoutMs?: number; staleMs?: number } = {}): Promise<T> {
  const release = await holdFileLockAsync(path, opts);
  try {
    removeDeadTemps(path);
    return fn();
  } finally {
    release();
  }
}

/**
 * The lock of withFileLockAsync held across awaits (an async critical section, e.g. a token
 * refresh over the network): resolves with the function that releases it. `onWait` is told once
 * when a peer holds the lock and we wait for it.
 */
export async function holdFileLockAsync(path: string, opts: { timeoutMs?: number; staleMs?: number; onWait?: () => void } = {}): Promise<() => void> {
  const lockPath = `${path}.lock`;
  ensureDir(dirname(path));
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const staleMs = opts.staleMs ?? 30_000;
  const started = Date.now();
  let delay = 2;
  let told = false;
  for (;;) {
    try {
      acquireLock(lockPath, 0, staleMs);
      break;
    } catch (err) {
      if (!(err instanceof LockTimeoutError) || Date.now() - started > timeoutMs) throw err;
    }
    if (!told) {
      told = true;
      opts.onWait?.();
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 50);
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    rmSync(lockPath, { force: true });
  };
}

/** Create the lock file exclusively, only ever with its holder's pid in it. */
function placeLock(lockPath: string): boolean {
  // Born complete: the pid goes into a private file which is hard-linked into place, so a holder
  // killed at any moment never leaves an empty, anonymous lock behind.
  const mine = `${lockPath}.${ownPid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(mine, `${ownPid}\n`, { mode: 0o600 });
  try {
    linkSync(mine, lockPath);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
    // No hard links on this file system: exclusive create, then write.
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, `${ownPid}\n`);
      closeSync(fd);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } finally {
    rmSync(mine, { force: true });
  }
}

function acquireLock(lockPath: string, timeoutMs: number, staleMs: number): void {
  const started = Date.now();
  let delay = 2;
  for (;;) {
    if (placeLock(lockPath)) return;
    let holder: string;
    try {
      holder = readFileSync(lockPath, 'utf8').trim();
      const pid = Number(holder);
      const age = Date.now() - statSync(lockPath).mtimeMs;
      // A dead holder's lock is taken over at once; an unreadable or empty one only by age.
      if ((holder !== '' && Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) || age > (holder === '' ? 2000 : staleMs)) {
        // Re-read just before removing, so a lock a peer has just re-taken is left alone.
        if (readFileSync(lockPath, 'utf8').trim() === holder) unlinkSync(lockPath);
        continue;
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Vanished between calls: retry at once. Anything else (a directory, a file we may not
      // read) is not a lock a peer holds: waiting would spin until the timeout for nothing.
      if (code !== 'ENOENT') throw new LockUnusableError(lockPath, code === 'EISDIR' ? 'a directory, not a lock file' : `unreadable (${code ?? (err as Error).message})`);
      if (Date.now() - started > timeoutMs) throw new LockTimeoutError(lockPath, 'pid unknown');
      continue;
    }
    if (Date.now() - started >= timeoutMs) throw new LockTimeoutError(lockPath, `pid ${holder || 'unknown'}`);
    sleepSync(delay);
    delay = Math.min(delay * 2, 50);
  }
}

/** Temp and lock-candidate files left beside `path` by writers that were killed. */
function removeDeadTemps(path: string): void {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(`.${base}.`) ? /^\.[^]*\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name) : name.startsWith(`${base}.lock.`) ? /\.lock\.(\d+)\.[0-9a-f]+$/.exec(name) : null;
    const pid = m ? Number(m[1]) : NaN;
    if (Number.isInteger(pid) && pid !== ownPid && !pidAlive(pid)) rmSync(join(dir, name), { force: true });
  }
}
