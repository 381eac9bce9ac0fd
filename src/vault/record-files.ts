// The vault's record store on disk: one AES-256-GCM sealed file per record, named by a keyed hash
// of its operation id, plus empty "hint" files whose names are keyed hashes too:
//
//   <store>/r/<hop>                    the record (sealed; the name is bound as associated data)
//   <store>/i/<kh:2>/<kh>.<hop>        lookup hints: label values, 6-character taskId and opId prefixes
//   <store>/o/<bucket>/<created>.<hop> creation order, bucketed by time, for list and list --limit
//   <store>/a/<created>.<hop>          the record is listed by default (active, in doubt, lost)
//   <store>/l/<hop>.lock               per-record lock for read-modify-write of that record
//   <store>/t/                         temp files of atomic writes
//   <store>/x/, <store>/p/             the sealed listing and its intents (see listing-index.ts)
//   <store>/damaged                    hops of record files found damaged, one a line (list marks them)
//   <store>/set-aside/<hop>.<time>     damaged record files `vault check --repair` moved aside
//
// Hints are a superset: written before the record, removed after it, and every hit is checked
// against the decrypted record, so a writer killed between the two steps leaves at most a stale
// hint (ignored), never a record that cannot be found. No file holds a taskId, token, argument
// or result in clear; file names are keyed hashes (HMAC with a key derived from the vault key)
// and times, which the file system's own timestamps show anyway.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { appendFileSync, closeSync, existsSync, fsync, fsyncSync, linkSync, renameSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ownPid } from '../fs/own-process.js';
import { LockTimeoutError, syncDirectory, withLockAt, writeFileAtomic } from '../fs/atomic-file.js';
import { COMPACT_LOG_BYTES, ListingIndex, ListingRow, listingOrder, type ListingEntry, type ListingRows, type ListingView } from './listing-index.js';
import { intentOf, isActivePhase, isUnsettled, UNKNOWN_OPERATION, type VaultPhase, type VaultRecord } from './vault-record.js';


function syncDirectoryAsync(dir: string): Promise<void> {
  return new Promise((resolve) => {
    let fd: number;
    try {
      fd = openSync(dir, 'r');
    } catch {
      return resolve();
    }
    fsync(fd, () => {
      closeSync(fd);
      resolve();
    });
  });
}

export interface StoreKeys {
  record: Buffer;
  index: Buffer;
  listing: Buffer;
}

/** Both keys come from the vault key; the store id makes them differ per store. */
export function deriveStoreKeys(vaultKey: Buffer, storeId: string): StoreKeys {
  const k = (info: string) => Buffer.from(hkdfSync('sha256', vaultKey, Buffer.from(`mcp-tasks-vault-store:${storeId}`), info, 32));
  return { record: k('record-v2'), index: k('index-v2'), listing: k('listing-v1') };
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

/** One finding of `vault check`. */
export type StoreProblem =
  | { kind: 'record-damaged'; hop: string; path: string }
  | { kind: 'record-unreadable'; hop: string; path: string; code: string }
  | { kind: 'set-aside-by-hand'; path: string }
  | { kind: 'listing-unusable' }
  | { kind: 'listing-row-without-record'; hop: string }
  | { kind: 'listing-missing-record'; hop: string }
  | { kind: 'listing-row-stale'; hop: string };

export interface StoreCheck {
  /** Record files read and found sound. */
  sound: number;
  problems: StoreProblem[];
}

export class RecordFiles {
  /** Directories created or changed by a bulk write, synced once at its end. */
  private pending: Set<string> | undefined;

  readonly listing: ListingIndex;

  constructor(
    readonly dir: string,
    private readonly keys: StoreKeys,
    private readonly rows: ListingRows,
  ) {
    this.listing = new ListingIndex(join(dir, 'x'), join(dir, 'p'), keys.listing, rows);
  }

  /** A record's listing row (null: the record is gone). */
  private listed(hop: string, rec: VaultRecord | undefined | null): ListingRow | null {
    return rec ? ListingRow.of(hop, rec, this.rows) : null;
  }

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
    this.listing.init();
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
    // A whole taskId is found through its prefix's hint (every hit is checked against the record):
    // one file fewer per record than a hint of its own.
    if (rec.taskId) keys.add(this.hash('task6', rec.taskId.slice(0, PREFIX_LEN), 22));
    for (const v of Object.values(rec.labels ?? {})) keys.add(this.hash('label', v, 22));
    // A call's intent (server, tool, arguments) while it holds no handle, so `call` finds an
    // identical one in doubt without reading the vault, nor every identical call made before.
    const intent = isUnsettled(rec) ? this.intentKey(rec) : undefined;
    if (intent) keys.add(intent);
    return [...keys];
  }

  /** The intent hint's key, for a record of a known operation. */
  private intentKey(rec: VaultRecord): string | undefined {
    return rec.operation && rec.operation.name !== UNKNOWN_OPERATION ? this.hash('intent', intentOf(rec), 22) : undefined;
  }

  /**
   * Remove the record's intent hint: it settled (got its handle, ended, was resolved). The caller
   * holds the record's lock and has just read or written it settled, so no writer re-adds it between.
   */
  dropIntentHint(rec: VaultRecord, hop: string): void {
    const kh = this.intentKey(rec);
    if (kh) rmSync(join(this.dir, 'i', kh.slice(0, 2), `${kh}.${hop}`), { force: true });
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
    try {
      return this.open(bytes, hop);
    } catch (err) {
      // Noted for `list`, which marks the row instead of showing it as sound (best effort).
      if (err instanceof RecordCorruptError) this.noteDamaged(hop);
      throw err;
    }
  }

  // -- damage -----------------------------------------------------------------------------------

  private get damagedPath(): string {
    return join(this.dir, 'damaged');
  }

  /** Off while `vault check` reads: without --repair it changes nothing, not even the notes. */
  private noting = true;

  /** Remember that `hop`'s record file could not be opened (a read found it). */
  noteDamaged(hop: string): void {
    if (!this.noting || this.damagedHops().has(hop)) return;
    try {
      appendFileSync(this.damagedPath, `${hop}\n`, { mode: 0o600 });
    } catch { /* only a marker: list shows the row unmarked */ }
  }

  /** Hops noted as damaged: one small read, none when the file is absent (the usual case). */
  damagedHops(): Set<string> {
    try {
      return new Set(readFileSync(this.damagedPath, 'utf8').split('\n').filter(Boolean));
    } catch {
      return new Set();
    }
  }

  /**
   * Read every record file and compare the listing with them; changes nothing (not even the
   * damage notes). Every finding names what is wrong; the caller says what to do.
   */
  check(): StoreCheck {
    this.noting = false;
    try {
      return this.checkQuietly();
    } finally {
      this.noting = true;
    }
  }

  private checkQuietly(): StoreCheck {
    const problems: StoreProblem[] = [];
    const sound = new Map<string, VaultRecord>();
    let names: string[];
    try {
      names = readdirSync(join(this.dir, 'r'));
    } catch {
      names = [];
    }
    for (const name of names.sort()) {
      const path = join(this.dir, 'r', name);
      // A name with a dot is no record's: a file someone moved aside by hand (`mv … .bad`).
      if (name.includes('.')) {
        problems.push({ kind: 'set-aside-by-hand', path });
        continue;
      }
      try {
        const bytes = readFileSync(path);
        sound.set(name, this.open(bytes, name));
      } catch (err) {
        if (err instanceof RecordCorruptError) problems.push({ kind: 'record-damaged', hop: name, path });
        else problems.push({ kind: 'record-unreadable', hop: name, path, code: (err as NodeJS.ErrnoException).code ?? 'error' });
      }
    }
    const damaged = new Set(problems.flatMap((p) => ('hop' in p ? [p.hop] : [])));
    let rows: Map<string, ListingRow> | undefined;
    try {
      const view = this.listing.open();
      if (view) {
        try {
          const intents = this.intentRecords();
          const overrides = this.overridesOf(view, intents);
          rows = new Map();
          for (const chunk of view.oldestFirst()) {
            if (!chunk) {
              rows = undefined;
              break;
            }
            for (const [hop, row] of chunk.entries) if (row && !overrides.has(hop)) rows.set(hop, row);
          }
          if (rows) for (const [hop, row] of overrides) if (row) rows.set(hop, row);
        } finally {
          view.close();
        }
      }
    } catch (err) {
      if (!(err instanceof RecordCorruptError)) throw err;
      rows = undefined;
    }
    if (!rows) problems.push({ kind: 'listing-unusable' });
    else {
      for (const [hop, row] of rows) {
        if (damaged.has(hop)) continue;
        const rec = sound.get(hop);
        if (!rec) problems.push({ kind: 'listing-row-without-record', hop });
        else if (!row.json.equals(ListingRow.of(hop, rec, this.rows).json)) problems.push({ kind: 'listing-row-stale', hop });
      }
      for (const hop of sound.keys()) if (!rows.has(hop)) problems.push({ kind: 'listing-missing-record', hop });
    }
    return { sound: sound.size, problems };
  }

  /**
   * `vault check --repair`: move every damaged record file (and any set aside by hand) into
   * set-aside/, never deleting one, then rebuild the listing from the record files. Returns
   * where each file went.
   */
  repair(problems: readonly StoreProblem[], at: Date): Array<{ from: string; to: string }> {
    const moved: Array<{ from: string; to: string }> = [];
    const aside = join(this.dir, 'set-aside');
    const stamp = at.toISOString().replace(/[:.]/g, '-');
    for (const p of problems) {
      if (p.kind !== 'record-damaged' && p.kind !== 'record-unreadable' && p.kind !== 'set-aside-by-hand') continue;
      mkdirSync(aside, { recursive: true, mode: 0o700 });
      const base = p.path.slice(p.path.lastIndexOf('/') + 1);
      let to = join(aside, `${base}.${stamp}`);
      for (let n = 1; existsSync(to); n++) to = join(aside, `${base}.${stamp}.${n}`);
      renameSync(p.path, to);
      moved.push({ from: p.path, to });
    }
    if (moved.length) {
      syncDirectory(join(this.dir, 'r'));
      syncDirectory(aside);
    }
    this.compact(true, true);
    rmSync(this.damagedPath, { force: true });
    return moved;
  }

  /**
   * Intent, hints, the record (atomic replace), its listing frame, then hints it no longer needs
   * and the intent. Returns the listing log's size when this write should fold it (see compact).
   */
  write(rec: VaultRecord, hop = this.hop(rec.opId)): void {
    const intent = this.listing.begin(hop);
    this.writeHints(rec, hop);
    writeFileAtomic(this.recordPath(hop), this.seal(rec, hop), 0o600, { tmpDir: join(this.dir, 't'), syncDir: false });
    const logBytes = this.listing.append([[hop, ListingRow.of(hop, rec, this.rows)]]);
    // After the append, so the directory sync makes the frame durable with the rename.
    if (this.pending) this.pending.add(join(this.dir, 'r'));
    else syncDirectory(join(this.dir, 'r'));
    if (!listedByDefault(rec.phase)) rmSync(join(this.dir, 'a', this.orderName(rec, hop)[1]), { force: true });
    // After the record: until then it may still be read unsettled, and a stale hint is harmless.
    if (!isUnsettled(rec)) this.dropIntentHint(rec, hop);
    if (logBytes !== undefined) this.listing.end(intent);
    // Fold a long log into the base, but never while a task-creating request is about to go out.
    if (logBytes !== undefined && logBytes > COMPACT_LOG_BYTES && rec.phase !== 'submitting' && !this.pending) this.compact(false);
  }

  /** Seal `rec` into a new temp file (not yet synced): the first half of a create. */
  private stage(rec: VaultRecord, hop: string, sync: boolean): { tmp: string; fd: number } {
    const tmp = join(this.dir, 't', `.${hop}.${ownPid}.${randomBytes(4).toString('hex')}.tmp`);
    const bytes = this.seal(rec, hop);
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      if (sync) fsyncSync(fd);
    } catch (err) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw err;
    }
    return { tmp, fd };
  }

  /** Link a synced temp file into place; false when a record was already there. */
  private commit(tmp: string, hop: string): boolean {
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
    return true;
  }

  /**
   * Create the record only if there is none under its name, without a lock: the sealed bytes go
   * to a temp file (fsynced) that is hard-linked into place, which fails if the name exists.
   * False when a record was already there (its hints may now include this one's: harmless).
   */
  create(rec: VaultRecord): boolean {
    return this.createMany([rec], (fds) => fds.forEach((fd) => fsyncSync(fd)))[0] === true;
  }

  /**
   * create() for many records at once: every temp file is written first, then all are synced by
   * `syncAll` (bulk callers sync them in parallel: one journal commit serves many), then linked;
   * one listing frame carries them all. A linked record is always complete.
   */
  createMany(records: VaultRecord[], syncAll: (fds: number[]) => Promise<void>): Promise<boolean[]>;
  createMany(records: VaultRecord[], syncAll: (fds: number[]) => void): boolean[];
  createMany(records: VaultRecord[], syncAll: (fds: number[]) => void | Promise<void>): boolean[] | Promise<boolean[]> {
    const hops = records.map((r) => this.hop(r.opId));
    let intent: string | undefined;
    const staged: Array<{ tmp: string; fd: number }> = [];
    const abort = () => {
      for (const s of staged) {
        try { closeSync(s.fd); } catch { /* closed already */ }
        rmSync(s.tmp, { force: true });
      }
    };
    try {
      // One intent for the batch: what a reader needs until the listing frame lands.
      if (records.length) intent = records.length === 1 ? this.listing.begin(hops[0]!) : this.listing.beginMany(hops);
      records.forEach((rec, i) => {
        this.writeHints(rec, hops[i]!);
        staged.push(this.stage(rec, hops[i]!, false));
      });
    } catch (err) {
      abort();
      throw err;
    }
    const finish = (): boolean[] => {
      for (const s of staged) closeSync(s.fd);
      const created = staged.map((s, i) => this.commit(s.tmp, hops[i]!));
      const entries: ListingEntry[] = records.flatMap((rec, i): ListingEntry[] => (created[i] ? [[hops[i]!, ListingRow.of(hops[i]!, rec, this.rows)]] : []));
      const appended = entries.length === 0 || this.listing.append(entries) !== undefined;
      if (this.pending) this.pending.add(join(this.dir, 'r'));
      else syncDirectory(join(this.dir, 'r'));
      if (appended && intent) this.listing.end(intent);
      return created;
    };
    let synced: void | Promise<void>;
    try {
      synced = syncAll(staged.map((s) => s.fd));
    } catch (err) {
      abort();
      throw err;
    }
    if (synced instanceof Promise) {
      return synced.then(finish, (err: unknown) => {
        abort();
        throw err;
      });
    }
    return finish();
  }

  /** The record first, then its hints (a stale hint is harmless, a missing one is not). */
  delete(rec: VaultRecord, hop = this.hop(rec.opId)): void {
    const intent = this.listing.begin(hop);
    unlinkSync(this.recordPath(hop));
    const appended = this.listing.append([[hop, null]]) !== undefined;
    syncDirectory(join(this.dir, 'r'));
    if (appended) this.listing.end(intent);
    const [bucket, name] = this.orderName(rec, hop);
    rmSync(join(this.dir, 'a', name), { force: true });
    rmSync(join(this.dir, 'o', bucket, name), { force: true });
    for (const kh of this.hintKeys(rec)) rmSync(join(this.dir, 'i', kh.slice(0, 2), `${kh}.${hop}`), { force: true });
    this.dropIntentHint(rec, hop);
  }

  /** Many writes, each file fsynced, each touched directory synced once at the end. */
  bulk<T>(fn: () => T): T {
    this.pending = new Set();
    try {
      return fn();
    } finally {
      this.flushPending();
    }
  }

  /** bulk() for an async body: directories are synced in parallel at the end. */
  async bulkAsync<T>(fn: () => Promise<T>): Promise<T> {
    this.pending = new Set();
    try {
      return await fn();
    } finally {
      const dirs = this.pending;
      this.pending = undefined;
      await Promise.all([...dirs].map((d) => syncDirectoryAsync(d)));
    }
  }

  private flushPending(): void {
    const dirs = this.pending ?? new Set<string>();
    this.pending = undefined;
    for (const d of dirs) syncDirectory(d);
  }

  // -- the listing ------------------------------------------------------------------------------

  /** Hops of every record file (names only: one directory read). */
  private recordHops(): string[] {
    try {
      return readdirSync(join(this.dir, 'r')).filter((n) => !n.includes('.'));
    } catch {
      return [];
    }
  }

  /**
   * Fold the log into a new base (or, with `fromRecords` or no usable base, rebuild it from the
   * record files). Skipped when another process is at it, unless `wait` (a reader that needs it).
   */
  compact(fromRecords: boolean, wait = false): void {
    const run = () =>
      this.listing.rebuild((fromIndex) => {
        const indexed = fromRecords ? undefined : fromIndex();
        if (indexed) return indexed.entries();
        return this.recordHops().map((hop): ListingEntry => [hop, this.listed(hop, this.readOrNull(hop))]);
      });
    this.listing.init(); // a store from before the listing has no x/ to hold the lock
    try {
      withLockAt(this.listing.lockPath, run, { timeoutMs: wait ? 120_000 : 0, staleMs: 600_000 });
    } catch (err) {
      if (!(err instanceof LockTimeoutError) || wait) throw err;
    }
  }

  private readOrNull(hop: string): VaultRecord | null {
    try {
      return this.read(hop) ?? null;
    } catch (err) {
      if (err instanceof RecordCorruptError) return null; // left for get/show to report
      throw err;
    }
  }

  /** Records with an intent (a write in flight or killed), read from their files: they win. */
  private intentRecords(): Map<string, ListingRow | null> {
    const out = new Map<string, ListingRow | null>();
    for (const { hop } of this.listing.intents()) if (!out.has(hop)) out.set(hop, this.listed(hop, this.read(hop)));
    return out;
  }

  /** What overrides the base: log rows, then rows read from their files (intents, rows another version rendered). */
  private overridesOf(view: ListingView, intents: Map<string, ListingRow | null>): Map<string, ListingRow | null> {
    const overrides = view.log;
    for (const hop of view.stale) if (!intents.has(hop)) overrides.set(hop, this.listed(hop, this.readOrNull(hop)));
    for (const [hop, row] of intents) overrides.set(hop, row);
    return overrides;
  }

  /** Intents of killed writers: fold their records' state into the listing, then drop them. */
  repairIntents(alive: (pid: number) => boolean): void {
    const byFile = new Map<string, { pid: number; hops: string[] }>();
    for (const it of this.listing.intents()) {
      const group = byFile.get(it.name) ?? { pid: it.pid, hops: [] };
      group.hops.push(it.hop);
      byFile.set(it.name, group);
    }
    for (const [name, { pid, hops }] of byFile) {
      if (pid === ownPid || alive(pid)) continue;
      // Under each record's lock (a live writer of one of them goes first), one frame for them all.
      const underLocks = (i: number): void => {
        if (i < hops.length) return withLockAt(this.lockPath(hops[i]!), () => underLocks(i + 1), { timeoutMs: 0 });
        if (this.listing.append(hops.map((hop): ListingEntry => [hop, this.listed(hop, this.readOrNull(hop))])) !== undefined) this.listing.end(name);
      };
      try {
        underLocks(0);
      } catch (err) {
        if (!(err instanceof LockTimeoutError)) throw err;
      }
    }
  }

  /** The listing, open; rebuilt from the record files first when it has no usable base. */
  private openListing(): ListingView {
    let view = this.listing.open();
    if (!view) {
      this.compact(true, true);
      view = this.listing.open();
      if (!view) throw new RecordCorruptError(join(this.dir, 'x', 'base'));
    }
    return view;
  }

  /**
   * Every row `keep` accepts (every row when it is undefined), from the listing, oldest first,
   * handed to `each` one at a time (at 100,000 records, holding them all costs more in GC than
   * reading them). Records with an intent are read from their files and win over the listing.
   * With `eachChunk`, a base chunk whose rows are all printed, in order, is handed over whole: its
   * rows' JSON joined by commas, as stored.
   */
  eachListed(keep: ((r: ListingRow) => boolean) | undefined, each: (r: ListingRow) => void, eachChunk?: (rows: Buffer, count: number) => void): void {
    const intents = this.intentRecords();
    let last: ListingRow | undefined;
    const emit = (r: ListingRow) => {
      last = r;
      each(r);
    };
    for (let attempt = 0; ; attempt++) {
      const view = this.openListing();
      let damaged = false;
      try {
        const overrides = this.overridesOf(view, intents);
        // Log and intent records merge into the base's creation order. After a rebuild, go on
        // after the last row handed out (one attempt hands out rows in order).
        const resumeAfter = last;
        const after = (r: ListingRow) => !resumeAfter || listingOrder(r, resumeAfter) > 0;
        const extra = [...overrides.values()].filter((r): r is ListingRow => r !== null && (!keep || keep(r)) && after(r)).sort(listingOrder);
        let k = 0;
        for (const chunk of view.oldestFirst()) {
          if (!chunk) {
            damaged = true;
            break;
          }
          const rows = chunk.entries;
          const head = rows[0]?.[1];
          const tail = rows[rows.length - 1]?.[1];
          // The common case: nothing overrides or interleaves with this chunk, and every row is printed
          // as stored (a `submitting` row is not: whether it is in doubt is decided when it is shown).
          if (eachChunk && !keep && head && tail && after(head) && (k >= extra.length || listingOrder(extra[k]!, tail) > 0) && rows.every(([hop, row]) => row && row.phase !== 'submitting' && !overrides.has(hop))) {
            eachChunk(chunk.rows, rows.length);
            last = tail;
            continue;
          }
          for (const [hop, row] of rows) {
            if (!row || overrides.has(hop) || (keep && !keep(row)) || !after(row)) continue;
            while (k < extra.length && listingOrder(extra[k]!, row) <= 0) emit(extra[k++]!);
            emit(row);
          }
        }
        if (!damaged) {
          while (k < extra.length) emit(extra[k++]!);
          if (view.logBytes > COMPACT_LOG_BYTES) this.compact(false);
          return;
        }
      } finally {
        view.close();
      }
      // A damaged chunk: rebuild from the record files, then go on after the last row handed out.
      if (attempt > 0) throw new RecordCorruptError(join(this.dir, 'x', 'base'));
      this.compact(true, true);
    }
  }

  /** eachListed, collected. */
  listAll(keep: ((r: ListingRow) => boolean) | undefined): ListingRow[] {
    const out: ListingRow[] = [];
    this.eachListed(keep, (r) => out.push(r));
    return out;
  }

  /** The `limit` most recently created rows `keep` accepts (oldest first): reads the log and the base from its end. */
  listNewest(limit: number, keep: ((r: ListingRow) => boolean) | undefined): ListingRow[] {
    const intents = this.intentRecords();
    const view = this.openListing();
    const picked: ListingRow[] = [];
    const accepts = (r: ListingRow) => !keep || keep(r);
    try {
      const overrides = this.overridesOf(view, intents);
      for (const row of overrides.values()) if (row && accepts(row)) picked.push(row);
      const newerThan = (at: string) => picked.filter((r) => r.createdAt > at).length;
      for (const chunk of view.newestFirst()) {
        if (!chunk) {
          // A damaged base: rebuild it, then answer from the new one.
          view.close();
          this.compact(true, true);
          return this.listNewest(limit, keep);
        }
        for (const [hop, row] of chunk.entries) if (row && !overrides.has(hop) && accepts(row)) picked.push(row);
        // Everything older lies in the chunks still unread: stop once enough rows are newer.
        const first = chunk.entries[0]?.[1];
        if (first && newerThan(first.createdAt) >= limit) break;
      }
    } finally {
      try { view.close(); } catch { /* closed for the rebuild */ }
    }
    // Only rows that still have a record file (a few stats: the rows printed).
    return picked
      .sort(listingOrder)
      .slice(-limit)
      .filter((r) => existsSync(this.recordPath(r.hop)));
  }

  /** Records a hint of `kind` for `value` points at, read and checked by `accept`. */
  lookup(kind: 'task6' | 'op6' | 'label' | 'intent', value: string, accept: (r: VaultRecord) => boolean): VaultRecord[] {
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
        if (m && !name.endsWith('.lock') && Number(m[1]) !== ownPid && !alive(Number(m[1]))) rmSync(join(this.dir, sub, name), { force: true });
      }
    }
  }
}
