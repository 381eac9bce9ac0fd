// The vault's record store on disk: one AES-256-GCM sealed file per record, named by a keyed hash
// of its operation id, plus empty "hint" files whose names are keyed hashes too:
//
//   <store>/r/<hop>                    the record (sealed; the name is bound as associated data)
//   <store>/i/<kh:2>/<kh>.<hop>        lookup hints: taskId, label value, 6-character prefixes
//   <store>/o/<bucket>/<created>.<hop> creation order, bucketed by time, for list and list --limit
//   <store>/a/<created>.<hop>          the record is listed by default (active, in doubt, lost)
//   <store>/l/<hop>.lock               per-record lock for read-modify-write of that record
//   <store>/t/                         temp files of atomic writes
//
// Hints are a superset: written before the record, removed after it, and every hit is checked
// against the decrypted record, so a writer killed between the two steps leaves at most a stale
// hint (ignored), never a record that cannot be found. No file holds a taskId, token, argument
// or result in clear; file names are keyed hashes (HMAC with a key derived from the vault key)
// and times, which the file system's own timestamps show anyway.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, renameSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory, writeFileAtomic } from '../fs/atomic-file.js';
import { isActivePhase, type VaultPhase, type VaultRecord } from './vault-record.js';

export interface StoreKeys {
  record: Buffer;
  index: Buffer;
}

/** Both keys come from the vault key; the store id makes them differ per store. */
export function deriveStoreKeys(vaultKey: Buffer, storeId: string): StoreKeys {
  const k = (info: string) => Buffer.from(hkdfSync('sha256', vaultKey, Buffer.from(`mcp-tasks-vault-store:${storeId}`), info, 32));
  return { record: k('record-v2'), index: k('index-v2') };
}

const MAGIC = Buffer.from('MTR2');
const PREFIX_LEN = 6;
const BUCKET_SHIFT = 2 ** 22; // ~70 minutes of creation time per order directory

/** Listed by `list` without --all: everything but finished records. */
export const listedByDefault = (p: VaultPhase) => isActivePhase(p) || p === 'lost';

export class RecordCorruptError extends Error {
  constructor(readonly path: string) {
    super(`the vault record ${path} is corrupt, or was sealed with another key`);
    this.name = 'RecordCorruptError';
  }
}

export class RecordFiles {
  /** Directories created or changed by a bulk write, synced once at its end. */
  private pending?: Set<string>;

  constructor(readonly dir: string, private readonly keys: StoreKeys) {}

  private hash(kind: string, value: string, len: number): string {
    return createHmac('sha256', this.keys.index).update(`${kind}\0${value}`).digest('base64url').slice(0, len);
  }

  /** The record's file name: a keyed hash of its operation id. */
  hop(opId: string): string {
    return this.hash('op', opId, 32);
  }

  recordPath(hop: string): string {
    return join(this.dir, 'r', hop);
  }

  lockPath(hop: string): string {
    return join(this.dir, 'l', `${hop}.lock`);
  }

  /** Create the store's directories (0700). */
  init(): void {
    for (const d of ['', 'r', 'i', 'o', 'a', 'l', 't']) mkdirSync(join(this.dir, d), { recursive: true, mode: 0o700 });
  }

  // -- sealing ------------------------------------------------------------------------------

  private seal(rec: VaultRecord, hop: string): Buffer {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.keys.record, iv);
    c.setAAD(Buffer.from(hop));
    const data = Buffer.concat([c.update(JSON.stringify(rec), 'utf8'), c.final()]);
    return Buffer.concat([MAGIC, iv, c.getAuthTag(), data]);
  }

  private open(bytes: Buffer, hop: string): VaultRecord {
    const path = this.recordPath(hop);
    if (bytes.length < 32 || !bytes.subarray(0, 4).equals(MAGIC)) throw new RecordCorruptError(path);
    let rec: VaultRecord;
    try {
      const d = createDecipheriv('aes-256-gcm', this.keys.record, bytes.subarray(4, 16));
      d.setAAD(Buffer.from(hop));
      d.setAuthTag(bytes.subarray(16, 32));
      rec = JSON.parse(Buffer.concat([d.update(bytes.subarray(32)), d.final()]).toString('utf8')) as VaultRecord;
    } catch {
      throw new RecordCorruptError(path);
    }
    // The name is bound as associated data, so a file copied over another record's name fails
    // the tag above: no need to hash the opId again here (it was a sixth of list's time).
    if (!rec || typeof rec.opId !== 'string') throw new RecordCorruptError(path);
    return rec;
  }

  // -- hints ----------------------------------------------------------------------------------

  private hintKeys(rec: VaultRecord): string[] {
    const keys = new Set<string>([this.hash('op6', rec.opId.slice(0, PREFIX_LEN), 22)]);
    if (rec.taskId) {
      keys.add(this.hash('task', rec.taskId, 22));
      keys.add(this.hash('task6', rec.taskId.slice(0, PREFIX_LEN), 22));
    }
    for (const v of Object.values(rec.labels ?? {})) keys.add(this.hash('label', v, 22));
    return [...keys];
  }

  private orderName(rec: VaultRecord, hop: string): [string, string] {
    const ms = Math.max(0, Date.parse(rec.createdAt) || 0);
    return [Math.floor(ms / BUCKET_SHIFT).toString(36).padStart(6, '0'), `${ms.toString(36).padStart(9, '0')}.${hop}`];
  }

  /** Create an empty file (and its directory); an existing one is fine. */
  private touch(dir: string, name: string): void {
    const path = join(dir, name);
    for (let attempt = 0; ; attempt++) {
      try {
        closeSync(openSync(path, 'a', 0o600));
        this.pending?.add(dir);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0) throw err;
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        this.pending?.add(join(dir, '..'));
      }
    }
  }

  private writeHints(rec: VaultRecord, hop: string): void {
    for (const kh of this.hintKeys(rec)) this.touch(join(this.dir, 'i', kh.slice(0, 2)), `${kh}.${hop}`);
    const [bucket, name] = this.orderName(rec, hop);
    this.touch(join(this.dir, 'o', bucket), name);
    if (listedByDefault(rec.phase)) this.touch(join(this.dir, 'a'), name);
  }

  /** Record hops a hint points at (unverified). */
  private hinted(kind: string, value: string): string[] {
    const kh = this.hash(kind, value, 22);
    let names: string[];
    try {
      names = readdirSync(join(this.dir, 'i', kh.slice(0, 2)));
    } catch {
      return [];
    }
    const pre = `${kh}.`;
    return names.filter((n) => n.startsWith(pre)).map((n) => n.slice(pre.length));
  }

  // -- records --------------------------------------------------------------------------------

  read(hop: string): VaultRecord | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.recordPath(hop));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return this.open(bytes, hop);
  }

  /** Hints first, then the record (atomic replace), then hints it no longer needs. */
  write(rec: VaultRecord, hop = this.hop(rec.opId)): void {
    this.writeHints(rec, hop);
    writeFileAtomic(this.recordPath(hop), this.seal(rec, hop), 0o600, { tmpDir: join(this.dir, 't'), syncDir: this.pending === undefined });
    this.pending?.add(join(this.dir, 'r'));
    if (!listedByDefault(rec.phase)) rmSync(join(this.dir, 'a', this.orderName(rec, hop)[1]), { force: true });
  }

  /**
   * Create the record only if there is none under its name, without a lock: the sealed bytes go
   * to a temp file (fsynced) that is hard-linked into place, which fails if the name exists.
   * False when a record was already there (its hints may now include this one's: harmless).
   */
  create(rec: VaultRecord, hop = this.hop(rec.opId)): boolean {
    this.writeHints(rec, hop);
    const tmp = join(this.dir, 't', `.${hop}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    const bytes = this.seal(rec, hop);
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, this.recordPath(hop));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
      // No hard links on this file system: check, then rename (a concurrent import of the same
      // record could write it twice, with the same content).
      if (existsSync(this.recordPath(hop))) return false;
      renameSync(tmp, this.recordPath(hop));
    } finally {
      rmSync(tmp, { force: true });
    }
    if (this.pending) this.pending.add(join(this.dir, 'r'));
    else syncDirectory(join(this.dir, 'r'));
    return true;
  }

  /** The record first, then its hints (a stale hint is harmless, a missing one is not). */
  delete(rec: VaultRecord, hop = this.hop(rec.opId)): void {
    unlinkSync(this.recordPath(hop));
    syncDirectory(join(this.dir, 'r'));
    const [bucket, name] = this.orderName(rec, hop);
    rmSync(join(this.dir, 'a', name), { force: true });
    rmSync(join(this.dir, 'o', bucket, name), { force: true });
    for (const kh of this.hintKeys(rec)) rmSync(join(this.dir, 'i', kh.slice(0, 2), `${kh}.${hop}`), { force: true });
  }

  /** Many writes, each file fsynced, each touched directory synced once at the end. */
  bulk<T>(fn: () => T): T {
    this.pending = new Set();
    try {
      return fn();
    } finally {
      const dirs = this.pending;
      this.pending = undefined;
      for (const d of dirs) syncDirectory(d);
    }
  }

  /** Records a hint of `kind` for `value` points at, read and checked by `accept`. */
  lookup(kind: 'task' | 'task6' | 'op6' | 'label', value: string, accept: (r: VaultRecord) => boolean): VaultRecord[] {
    const out: VaultRecord[] = [];
    for (const hop of new Set(this.hinted(kind, kind.endsWith('6') ? value.slice(0, PREFIX_LEN) : value))) {
      const r = this.read(hop);
      if (r && accept(r)) out.push(r);
    }
    return out;
  }

  /** Hops in creation order (oldest first), bucket by bucket; newest first with `reverse`. */
  *orderedHops(reverse = false): Generator<string> {
    let buckets: string[];
    try {
      buckets = readdirSync(join(this.dir, 'o')).sort();
    } catch {
      return;
    }
    if (reverse) buckets.reverse();
    const seen = new Set<string>();
    for (const b of buckets) {
      let names: string[];
      try {
        names = readdirSync(join(this.dir, 'o', b)).sort();
      } catch {
        continue;
      }
      if (reverse) names.reverse();
      for (const n of names) {
        const hop = n.slice(n.indexOf('.') + 1);
        if (seen.has(hop)) continue;
        seen.add(hop);
        yield hop;
      }
    }
  }

  /** Hops of records listed by default (a superset: check the phase), oldest first. */
  defaultHops(): string[] {
    let names: string[];
    try {
      names = readdirSync(join(this.dir, 'a')).sort();
    } catch {
      return [];
    }
    return [...new Set(names.map((n) => n.slice(n.indexOf('.') + 1)))];
  }

  /** Temp files and lock candidates of writers that were killed. */
  removeDeadTemps(alive: (pid: number) => boolean): void {
    for (const sub of ['t', 'l']) {
      let names: string[];
      try {
        names = readdirSync(join(this.dir, sub));
      } catch {
        continue;
      }
      for (const name of names) {
        const m = /\.(\d+)\.[0-9a-f]+(?:\.tmp)?$/.exec(name);
        if (m && !name.endsWith('.lock') && Number(m[1]) !== process.pid && !alive(Number(m[1]))) rmSync(join(this.dir, sub, name), { force: true });
      }
    }
  }
}
