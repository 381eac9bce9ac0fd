// Atomic file replacement and a cross-process lock, shared by the demo server's task store
// and the CLI's vault. Both must never be seen half-written, even if a writer is killed.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, basename, join } from 'node:path';

/** Write `data` to `path` via a temp file in the same directory, fsync, then rename over. */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
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
  // Make the rename itself durable where the platform allows a directory fsync.
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

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Run `fn` while holding an exclusive lock file beside `path`.
 * The lock file holds the holder's pid; a lock whose holder is dead (a crashed or killed
 * writer) or older than `staleMs` is taken over, so a crash never wedges the store.
 */
export function withFileLock<T>(path: string, fn: () => T, opts: { timeoutMs?: number; staleMs?: number } = {}): T {
  const lockPath = `${path}.lock`;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const staleMs = opts.staleMs ?? 30_000;
  const started = Date.now();
  ensureDir(dirname(path));
  let delay = 2;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder = 'unknown';
      try {
        holder = readFileSync(lockPath, 'utf8').trim();
        const pid = Number(holder);
        const age = Date.now() - statSync(lockPath).mtimeMs;
        // An empty file is a holder caught between create and write: only stale by age.
        if ((Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) || age > staleMs) {
          // Re-read just before removing, so a lock a peer has just re-taken is left alone.
          if (readFileSync(lockPath, 'utf8').trim() === holder) unlinkSync(lockPath);
          continue;
        }
      } catch { continue; /* vanished between calls: retry at once */ }
      if (Date.now() - started > timeoutMs) throw new LockTimeoutError(lockPath, `pid ${holder}`);
      sleepSync(delay);
      delay = Math.min(delay * 2, 50);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lockPath, { force: true });
  }
}
