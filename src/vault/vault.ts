// The encrypted handle vault. <home>/vault.json is a small sealed manifest (AES-256-GCM; its
// header names the key source) naming the record store beside it, vault-<id>.d/, where each
// record is a file of its own (see record-files.ts). get, put and update touch one record, so
// their cost does not grow with the vault; there is no lock across records, only a per-record
// lock for a read-modify-write of that record. vault.json is written once, when the vault is
// created or upgraded from the single-document format, and otherwise only read: a vault we cannot
// open is left byte for byte as it was and reported (exit 9) with the safe next step.
import { chmodSync, fsync, fsyncSync, readFileSync } from 'node:fs';
import { createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ensureDir, LockTimeoutError, LockUnusableError, withFileLock, withLockAt, writeFileAtomic } from '../fs/atomic-file.js';
import { AmbiguousRefError, VaultError, type VaultFailure } from './vault-errors.js';
import { decodeSealed, encodeSealed, keyFilePath, loadKey, newKeySource, seal, unseal, VAULT_FORMAT_VERSION, VaultKeyError, type KeySource, type SealedVault } from './vault-crypto.js';
import { byCreatedAt, intentOf, isUnsettled, STALE_HINTS_DROPPED, typeableRef, UNKNOWN_OPERATION, type ListingMeta, type IntentOf, type VaultRecord } from './vault-record.js';
import { deriveStoreKeys, listedByDefault, RecordCorruptError, RecordFiles, type StoreCheck, type StoreProblem } from './record-files.js';
import { currentWriter, systemProcessProbe } from './writer.js';
import { COMPACT_LOG_BYTES, type ListingRow, type ListingRows } from './listing-index.js';
import { monotonicMs } from '../fs/own-process.js';

export const vaultPath = (home: string) => join(home, 'vault.json');

/** Time spent in vault reads and writes by this process (reported with MCP_TASKS_TIMING=1). */
export const vaultTiming = { ms: 0 };
function timed<T>(fn: () => T): T {
  const t = monotonicMs();
  try {
    return fn();
  } finally {
    vaultTiming.ms += monotonicMs() - t;
  }
}

/** Shortest prefix shown for a taskId in human output; refs must give at least this much. */
export const MIN_REF_PREFIX = 6;

/** What vault.json seals since the record store: which store, in which layout. */
interface Manifest {
  layout: 'record-files';
  store: string;
}
/** What vault.json sealed before (format 1): every record in one document. */
interface LegacyDocument {
  records: Record<string, VaultRecord>;
}

/**
 * What every record `match` keeps is known to carry, so a store with indexes may read only those
 * (the team store reads candidates through its hints); `match` still decides. The file vault
 * reads its listing whole either way.
 */
export interface QueryNarrowing {
  /** Values each kept record has among its label values. */
  labelValues?: string[];
  /** The server name each kept record has. */
  server?: string;
}

export interface VaultQuery {
  /** Only records `list` shows without --all (active, submitting, in doubt, lost): read from their own hints. */
  listedByDefault?: boolean;
  /** Keep records for which this is true. */
  match?: (r: VaultRecord) => boolean;
  narrow?: QueryNarrowing;
  /** At most this many: the most recently created ones. */
  limit?: number;
}

export interface ListingQuery {
  /** Only records `list` shows without --all (active, submitting, in doubt, lost). */
  listedByDefault?: boolean;
  match?: (r: ListingMeta) => boolean;
  narrow?: QueryNarrowing;
  /** At most this many: the most recently created ones. */
  limit?: number;
}

const alive = (pid: number) => systemProcessProbe(pid) !== undefined;

/** Records per batch of a bulk insert: written, then synced together, then linked. */
const BULK_BATCH = 512;

/** fsync many files at once on the thread pool: the file system commits them together. */
const fsyncAll = (fds: number[]) => Promise.all(fds.map((fd) => new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve()))))).then(() => undefined);

export class Vault {
  private files?: RecordFiles;
  private cleaned = false;

  /**
   * `rows` renders the listing's `list --json` rows (app/ hands in output's renderer: the vault
   * stores them, it does not decide their form); KEY_ONLY_ROWS for a vault opened only to exist.
   */
  constructor(
    readonly home: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly rows: ListingRows,
    private readonly notice: (text: string) => void = () => {},
  ) {}

  get path(): string {
    return vaultPath(this.home);
  }

  private fail(message: string, failure: VaultFailure): never {
    throw new VaultError(failure, message);
  }

  private readSealed(): SealedVault | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      this.fail(`cannot read the vault ${this.path}: ${(err as Error).message}`, { reason: 'unreadable' });
    }
    const sealed = decodeSealed(bytes);
    if (!sealed) {
      this.fail(`the vault ${this.path} is corrupt, truncated or not an mcp-tasks vault; it was left untouched`, { reason: 'corrupt' });
    }
    if (!Number.isInteger(sealed.version) || sealed.version > VAULT_FORMAT_VERSION) {
      this.fail(`the vault ${this.path} was written by a newer mcp-tasks (format ${String(sealed.version)}); it was left untouched`, { reason: 'newer-format' });
    }
    return sealed;
  }

  /** Key and content of vault.json: a manifest, or a format-1 document still to be upgraded. */
  private decode(sealed: SealedVault): { key: Buffer; content: Manifest | LegacyDocument } {
    try {
      const { key } = loadKey(sealed.key, this.home, this.env, false);
      this.noticeIgnoredPassphrase(sealed.key);
      const content = JSON.parse(unseal(sealed, key).toString('utf8')) as Manifest | LegacyDocument;
      const isManifest = content && (content as Manifest).layout === 'record-files' && typeof (content as Manifest).store === 'string' && /^[0-9a-f]{16}$/.test((content as Manifest).store);
      if (!isManifest && (!content || typeof (content as LegacyDocument).records !== 'object' || (content as LegacyDocument).records === null)) {
        throw new VaultKeyError('the vault content is malformed', 'Restore it from a backup.');
      }
      return { key, content };
    } catch (err) {
      if (err instanceof VaultKeyError) this.fail(`${err.message} (${this.path}); nothing was changed`, { reason: 'key', key: err });
      if (err instanceof VaultError) throw err;
      this.fail(`the vault ${this.path} cannot be opened (${(err as Error).message}); it was left untouched`, { reason: 'unopenable' });
    }
  }

  /**
   * A vault keeps the key source it was created with: MCP_TASKS_VAULT_KEY set for a vault keyed by
   * its key file or the keychain is not used, and the person setting it should know (once a command).
   */
  private ignoredPassphraseSaid = false;
  private noticeIgnoredPassphrase(source: KeySource): void {
    if (source.kind === 'passphrase' || !this.env.MCP_TASKS_VAULT_KEY || this.ignoredPassphraseSaid) return;
    this.ignoredPassphraseSaid = true;
    const where = source.kind === 'keychain' ? `the OS keychain (${source.service}/${source.account})` : `its key file ${keyFilePath(this.home)}`;
    this.notice(`note: MCP_TASKS_VAULT_KEY is set but ignored: this vault is keyed by ${where} (a vault keeps the key source it was created with; the variable keys only a new vault).`);
  }

  private storeOf(key: Buffer, manifest: Manifest): RecordFiles {
    return new RecordFiles(join(this.home, `vault-${manifest.store}.d`), deriveStoreKeys(key, manifest.store), this.rows);
  }

  /**
   * The record store, opened once per instance. Undefined when there is no vault yet and
   * `create` is not set (reading never creates a vault). A format-1 vault is upgraded here.
   */
  private store(create: boolean): RecordFiles | undefined {
    if (this.files) return this.files;
    const sealed = this.readSealed();
    if (sealed) {
      const { key, content } = this.decode(sealed);
      if ('layout' in content) return (this.files = this.storeOf(key, content));
      return (this.files = this.lockedSetup(() => this.upgrade()));
    }
    if (!create) return undefined;
    return (this.files = this.lockedSetup(() => this.createVault()));
  }

  /** Creating or upgrading the vault is the one thing done under the vault-wide lock. */
  private lockedSetup(fn: () => RecordFiles): RecordFiles {
    ensureDir(this.home);
    return this.guard(() => withFileLock(this.path, fn, { timeoutMs: 60_000 }));
  }

  private writeManifest(key: Buffer, source: KeySource, manifest: Manifest): void {
    writeFileAtomic(this.path, encodeSealed(seal(Buffer.from(JSON.stringify(manifest), 'utf8'), key, source)), 0o600);
    try { chmodSync(this.home, 0o700); } catch { /* not ours to fix */ }
  }

  private createVault(): RecordFiles {
    const sealed = this.readSealed();
    if (sealed) return this.openOrUpgrade(sealed); // a peer created it while we waited
    const source = newKeySource(this.env, this.home);
    const { key, createdKeyFile } = loadKey(source, this.home, this.env, true);
    if (createdKeyFile) {
      this.notice(
        `created a vault key at ${createdKeyFile} (mode 0600). It keeps task handles unreadable to other users and out of backups or sync that skip it; it does not protect against anyone who can read files as you. Set MCP_TASKS_VAULT_KEY to use a passphrase instead.`,
      );
    }
    const manifest: Manifest = { layout: 'record-files', store: randomBytes(8).toString('hex') };
    const files = this.storeOf(key, manifest);
    files.init();
    files.listing.createEmpty();
    this.writeManifest(key, source, manifest);
    return files;
  }

  private openOrUpgrade(sealed: SealedVault): RecordFiles {
    const { key, content } = this.decode(sealed);
    return 'layout' in content ? this.storeOf(key, content) : this.upgrade();
  }

  /**
   * Format 1 to the record store, once. The old vault.json stays in place, untouched, until every
   * record has been written, fsynced and read back equal; only then does the new manifest replace
   * it (one atomic rename). A process killed before that leaves the old vault as it was, and the
   * next run upgrades again into the same store (its id is derived from the old file).
   */
  private upgrade(): RecordFiles {
    const sealed = this.readSealed()!;
    const { key, content } = this.decode(sealed);
    if ('layout' in content) return this.storeOf(key, content); // a peer upgraded it while we waited
    const manifest: Manifest = { layout: 'record-files', store: createHmac('sha256', key).update(`upgrade:${sealed.iv}`).digest('hex').slice(0, 16) };
    const files = this.storeOf(key, manifest);
    files.init();
    const records = Object.values(content.records);
    files.bulk(() => {
      for (const r of records) files.write(r);
    });
    for (const r of records) {
      if (!isDeepStrictEqual(files.read(files.hop(r.opId)), r)) throw new Error(`the upgraded copy of record ${r.opId.slice(0, 8)} does not read back equal`);
    }
    files.compact(true, true);
    this.writeManifest(key, sealed.key, manifest);
    return files;
  }

  private async guardAsync<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      return this.guard(() => {
        throw err;
      });
    }
  }

  /** Turn lock, key and file-system failures into one-line vault errors. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof VaultError || err instanceof AmbiguousRefError) throw err;
      if (err instanceof LockUnusableError) {
        this.fail(`${err.message}; no mcp-tasks process would leave that`, { reason: 'lock-unusable', lockPath: err.lockPath });
      }
      if (err instanceof LockTimeoutError) {
        this.fail(`the vault is locked by another mcp-tasks process (${err.holder}, lock ${err.lockPath})`, { reason: 'locked', lockPath: err.lockPath });
      }
      if (err instanceof RecordCorruptError) {
        this.fail(`${err.message}; it was left untouched`, { reason: 'record-corrupt', path: err.path });
      }
      if (err instanceof VaultKeyError) this.fail(err.message, { reason: 'key', key: err });
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM' || code === 'ENOSPC' || code === 'EDQUOT') {
        this.fail(`cannot write the vault in ${this.home}: ${(err as Error).message}`, { reason: code === 'ENOSPC' || code === 'EDQUOT' ? 'no-space' : 'not-writable' });
      }
      // A home that cannot hold a vault at all (a path under a file, /proc, a dangling link).
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ELOOP' || code === 'ENAMETOOLONG') {
        this.fail(`the mcp-tasks home ${this.home} cannot hold a vault: ${(err as Error).message}`, { reason: 'home-unusable' });
      }
      throw err;
    }
  }

  /** Run `fn` on one record under its own lock (nothing else is locked). */
  private withRecord<T>(files: RecordFiles, opId: string, fn: (hop: string) => T): T {
    this.cleanOnce(files);
    const hop = files.hop(opId);
    return withLockAt(files.lockPath(hop), () => fn(hop));
  }

  /** Once per process, before its first write: leftovers of killed writers. */
  private cleanOnce(files: RecordFiles): void {
    if (this.cleaned) return;
    this.cleaned = true;
    files.removeDeadTemps(alive);
    files.repairIntents(alive);
  }

  /** A submitting record names the process sending it, so recover can tell when it is gone. */
  private stamp(rec: VaultRecord): void {
    if (rec.phase === 'submitting') rec.writer = currentWriter();
    else delete rec.writer;
  }

  /** Open the vault (checking its key) without reading any record; never creates it. */
  check(): void {
    timed(() => this.guard(() => this.store(false)));
  }

  /**
   * Open the vault, creating it if there is none, for a command about to write to it. Done
   * before a connection opens: creating takes the vault-wide lock, and a wait for it must not
   * fall between requests on a live connection (the server may close the idle socket).
   */
  prepare(): void {
    timed(() => this.guard(() => this.store(true)));
  }

  /** Every record, oldest first. O(records): `list --all` and `export` only; see query. */
  list(): VaultRecord[] {
    return this.query({});
  }

  /** Records by creation (oldest first), reading only what the query needs. */
  query(q: VaultQuery): VaultRecord[] {
    return timed(() =>
      this.guard(() => {
        const files = this.store(false);
        if (!files) return [];
        const keep = (r: VaultRecord | undefined): r is VaultRecord => r !== undefined && (!q.listedByDefault || listedByDefault(r.phase)) && (!q.match || q.match(r));
        const out: VaultRecord[] = [];
        if (q.listedByDefault && q.limit === undefined) return files.defaultHops().map((h) => files.read(h)).filter(keep).sort(byCreatedAt);
        if (q.limit !== undefined) {
          if (q.limit <= 0) return [];
          // Newest first, stopping at the limit: the cost is the rows printed (plus those filtered out).
          for (const hop of q.listedByDefault ? files.defaultHops().reverse() : files.orderedHops(true)) {
            const r = files.read(hop);
            if (keep(r)) out.push(r);
            if (out.length >= q.limit) break;
          }
          return out.reverse().sort(byCreatedAt);
        }
        for (const hop of files.orderedHops()) {
          const r = files.read(hop);
          if (keep(r)) out.push(r);
        }
        return out;
      }),
    );
  }

  /** The row filter of a listing query; undefined when it keeps every row (nothing to parse). */
  private rowFilter(q: Omit<ListingQuery, 'limit'>): ((r: ListingRow) => boolean) | undefined {
    const { listedByDefault: byDefault, match } = q;
    if (!byDefault && !match) return undefined;
    return (r) => (!byDefault || listedByDefault(r.phase)) && (!match || match(r.meta()));
  }

  /**
   * What `list` shows, from the sealed listing (listing-index.ts): a few large reads instead of
   * one file per record. For display only, never to decide a write (those read the record).
   */
  listing(q: ListingQuery): ListingRow[] {
    return timed(() =>
      this.guard(() => {
        const files = this.store(false);
        if (!files) return [];
        const keep = this.rowFilter(q);
        if (q.limit !== undefined) return q.limit <= 0 ? [] : files.listNewest(q.limit, keep);
        return files.listAll(keep);
      }),
    );
  }

  /**
   * listing() without --limit, one row at a time, oldest first (nothing is held: `list --all
   * --json` at 100,000 records); with `eachChunk`, runs of rows as their stored JSON joined by commas.
   */
  eachListed(q: Omit<ListingQuery, 'limit'>, each: (r: ListingRow) => void, eachChunk?: (rows: Buffer, count: number) => void): void {
    timed(() =>
      this.guard(() => {
        const files = this.store(false);
        if (!files) return;
        files.eachListed(this.rowFilter(q), each, eachChunk);
      }),
    );
  }

  /** `vault check`: every record file read, the listing compared with them; nothing changed. Undefined: no vault yet. */
  checkStore(): (StoreCheck & { dir: string }) | undefined {
    return this.guard(() => {
      const files = this.store(false);
      return files ? { ...files.check(), dir: files.dir } : undefined;
    });
  }

  /** `vault check --repair`: damaged record files moved aside (never deleted), the listing rebuilt from the record files. */
  repairStore(problems: readonly StoreProblem[], at: Date): Array<{ from: string; to: string }> {
    return this.guard(() => {
      const files = this.store(false);
      return files ? files.repair(problems, at) : [];
    });
  }

  /** Hops of record files a read found damaged (list marks their rows); empty without a vault. */
  damagedHops(): Set<string> {
    return this.guard(() => this.store(false)?.damagedHops() ?? new Set<string>());
  }

  get(opId: string): VaultRecord | undefined {
    return timed(() =>
      this.guard(() => {
        const files = this.store(false);
        return files?.read(files.hop(opId));
      }),
    );
  }

  put(record: VaultRecord): void {
    timed(() =>
      this.guard(() => {
        const files = this.store(true)!;
        this.withRecord(files, record.opId, (hop) => {
          this.stamp(record);
          files.write(record, hop);
        });
      }),
    );
  }

  /** put(), only when no record has this opId yet (checked under its lock): false when one had. */
  create(record: VaultRecord): boolean {
    return timed(() =>
      this.guard(() => {
        const files = this.store(true)!;
        return this.withRecord(files, record.opId, (hop) => {
          if (files.read(hop)) return false;
          this.stamp(record);
          files.write(record, hop);
          return true;
        });
      }),
    );
  }

  /**
   * Records of the same intent as `rec` (server, tool, arguments) still without a handle, through
   * their hints: the cost is the matches. Only such records are hinted; a settled one hinted by an
   * earlier version loses its hint here, under its lock (a few hundred a call), so the check stops
   * reading identical calls made before.
   */
  unsettledSameIntent(rec: IntentOf): VaultRecord[] {
    return timed(() =>
      this.guard(() => {
        const files = this.store(false);
        if (!files) return [];
        const intent = intentOf(rec);
        const same = files.lookup('intent', intent, (r) => r.operation.name !== UNKNOWN_OPERATION && intentOf(r) === intent);
        for (const r of same.filter((x) => !isUnsettled(x)).slice(0, STALE_HINTS_DROPPED)) {
          try {
            const hop = files.hop(r.opId);
            // Never waits: a record another process holds keeps its hint until a later call.
            withLockAt(files.lockPath(hop), () => {
              const now = files.read(hop);
              if (now && !isUnsettled(now)) files.dropIntentHint(now, hop);
            }, { timeoutMs: 0 });
          } catch { /* only slower next time (a vault this process may not write, a busy lock) */ }
        }
        return same.filter(isUnsettled).sort(byCreatedAt);
      }),
    );
  }

  /** Apply `change` to the stored record (re-read under its lock); returns the new record. */
  update(opId: string, change: (rec: VaultRecord) => void): VaultRecord | undefined {
    return timed(() =>
      this.guard(() => {
        const files = this.store(false);
        if (!files) return undefined;
        return this.withRecord(files, opId, (hop) => {
          const rec = files.read(hop);
          if (!rec) return undefined;
          change(rec);
          this.stamp(rec);
          files.write(rec, hop);
          return rec;
        });
      }),
    );
  }

  /** Records of `records` to insert: not present yet by opId, nor by (server, taskId). */
  private fresh(files: RecordFiles, records: VaultRecord[], handles: Set<string>): VaultRecord[] {
    const out: VaultRecord[] = [];
    const ops = new Set<string>();
    for (const r of records) {
      const handle = r.taskId ? `${r.server.name}\0${r.taskId}` : undefined;
      if ((handle && handles.has(handle)) || ops.has(r.opId)) continue;
      if (r.taskId && files.lookup('task6', r.taskId, (x) => x.taskId === r.taskId && x.server.name === r.server.name).length) continue;
      if (handle) handles.add(handle);
      ops.add(r.opId);
      out.push(r);
    }
    return out;
  }

  /** Insert records whose opId, and (server, taskId), are not present yet; returns how many were added. */
  merge(records: VaultRecord[]): number {
    return timed(() =>
      this.guard(() => {
        const files = this.store(true)!;
        this.cleanOnce(files);
        const handles = new Set<string>();
        let added = 0;
        files.bulk(() => {
          for (let i = 0; i < records.length; i += BULK_BATCH) {
            // Create-if-absent is atomic on its own (a hard link): no lock needed.
            const batch = this.fresh(files, records.slice(i, i + BULK_BATCH), handles);
            added += files.createMany(batch, (fds) => fds.forEach((fd) => fsyncSync(fd))).filter(Boolean).length;
          }
        });
        return added;
      }),
    );
  }

  /**
   * merge() for many records (`import`, `node scripts/bench.mjs seed`): the same checks and the
   * same files, but each batch's record files are synced in parallel (one journal commit serves
   * many) and the listing gets one frame per batch, then is folded once at the end if it grew long.
   */
  async bulkInsert(records: VaultRecord[]): Promise<number> {
    const t = monotonicMs();
    try {
      return await this.guardAsync(async () => {
        const files = this.store(true)!;
        this.cleanOnce(files);
        const handles = new Set<string>();
        let added = 0;
        await files.bulkAsync(async () => {
          for (let i = 0; i < records.length; i += BULK_BATCH) {
            const batch = this.fresh(files, records.slice(i, i + BULK_BATCH), handles);
            added += (await files.createMany(batch, fsyncAll)).filter(Boolean).length;
          }
        });
        if (files.listing.logBytes() > COMPACT_LOG_BYTES) files.compact(false, true);
        return added;
      });
    } finally {
      vaultTiming.ms += monotonicMs() - t;
    }
  }

  remove(opIds: string[]): number {
    return timed(() =>
      this.guard(() => {
        const files = this.store(false);
        if (!files) return 0;
        let n = 0;
        for (const id of opIds) {
          n += this.withRecord(files, id, (hop) => {
            const rec = files.read(hop);
            if (!rec) return 0;
            files.delete(rec, hop);
            return 1;
          });
        }
        return n;
      }),
    );
  }

  /**
   * A ref is a taskId, a unique taskId prefix of at least 6 characters, an operation id,
   * or the value of a label. Undefined when nothing matches; an error when several do.
   * Each kind is found through its keyed-hash hints: the cost is the records that match.
   */
  resolve(ref: string): VaultRecord | undefined {
    return timed(() =>
      this.guard(() => {
        const files = this.store(false);
        if (!files) return undefined;
        const unique = (recs: VaultRecord[]) => [...new Map(recs.map((r) => [r.opId, r])).values()].sort(byCreatedAt);
        const byOp = files.read(files.hop(ref));
        const exact = unique([...(byOp ? [byOp] : []), ...files.lookup('task6', ref, (r) => r.taskId === ref)]);
        if (exact.length === 1) return exact[0];
        if (exact.length > 1) throw ambiguous(ref, exact);
        const byLabel = unique(files.lookup('label', ref, (r) => Object.values(r.labels).includes(ref)));
        if (byLabel.length === 1) return byLabel[0];
        if (byLabel.length > 1) throw ambiguous(ref, byLabel);
        if (ref.length >= MIN_REF_PREFIX) {
          const byPrefix = unique([...files.lookup('task6', ref, (r) => r.taskId?.startsWith(ref) === true), ...files.lookup('op6', ref, (r) => r.opId.startsWith(ref))]);
          if (byPrefix.length === 1) return byPrefix[0];
          if (byPrefix.length > 1) throw ambiguous(ref, byPrefix);
        }
        return undefined;
      }),
    );
  }
}

function ambiguous(ref: string, recs: VaultRecord[]): AmbiguousRefError {
  const list = recs.slice(0, 5).map((r) => `${typeableRef(r, 10)} (${r.server.name} ${r.operation.name})`).join(', ');
  return new AmbiguousRefError(ref, recs.length, `"${ref}" matches ${recs.length} vault records: ${list}${recs.length > 5 ? ', …' : ''}`);
}
