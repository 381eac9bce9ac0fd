// The sealed listing: a copy of every record (minus stored credentials) that `list` reads in a
// few large sequential reads instead of opening and decrypting one file per record. It is a
// cache of the record files, never trusted over them for anything that writes.
//
//   <store>/x/base         sealed chunks of entries in creation order, written whole (tmp + rename)
//   <store>/x/log          sealed frames appended by every record write (O_APPEND), newest last
//   <store>/x/log.frozen   the log being folded into a new base by a compaction
//   <store>/x/compact.lock one compaction or rebuild at a time
//   <store>/p/<hop>.<pid>.<r> intents: "this record may be ahead of the listing"
//
// Why this shape: writers never lock anything but their own record (as before): an append is one
// write() on an O_APPEND file, and each frame is sealed on its own, so concurrent writers do not
// need to agree on anything. A writer creates its intent before writing the record and removes it
// only after its frame is appended; a reader reads every record that has an intent from its file.
// So a writer killed at any point leaves the listing behind for that record, never lying about it:
// the intent stays and the record file wins. A torn frame (kill -9 inside write()) fails its tag
// and is skipped; the next frame is found again by its length marks. The base holds the entries in
// creation order in chunks, each sealed and framed with its length at both ends, so `list --limit`
// reads the log and then the base from its end, chunk by chunk, until it has enough rows.
//
// Compaction folds the log into a new base: rename log to log.frozen (writers then append to a
// fresh log), read base + frozen, write the new base, remove frozen. A writer that appended to the
// old log checks afterwards that its file is still the log (same inode); if not, it appends again
// to the new one, so nothing appended after the compactor read is lost. Readers open base, frozen,
// log, read them, and retry when base or frozen changed meanwhile (a compaction step fell inside
// their reads). A missing or damaged base is rebuilt from the record files the same way.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory, writeFileAtomic } from '../fs/atomic-file.js';
import type { ListedRecord, VaultRecord } from './vault-record.js';

/** One listing entry: a record under its hop, or null when the record was removed. */
export type ListingEntry = [hop: string, rec: ListedRecord | null];

const MAGIC = Buffer.from('MTX1');
const IV = 12;
const TAG = 16;
const MIN_FRAME = IV + TAG;
/** Entries per base chunk: `list --limit 50` decrypts one or two chunks. */
const CHUNK_ENTRIES = 256;
/** The log is folded into the base once it is this large (bounds what `list --limit` reads). */
export const COMPACT_LOG_BYTES = 2 * 1024 * 1024;

/**
 * What the listing keeps of a record: what `list` prints or filters on, never credentials. Half
 * the size of the record, and size is what `list --all` pays for at 100,000 records.
 */
export function listingCopy(rec: VaultRecord | ListedRecord): ListedRecord {
  const out: ListedRecord = {
    opId: rec.opId,
    server: { name: rec.server.name },
    operation: { method: rec.operation.method, name: rec.operation.name, arguments: rec.operation.arguments },
    phase: rec.phase,
    labels: rec.labels,
    createdAt: rec.createdAt,
    updatedAt: rec.updatedAt,
  };
  if (rec.taskId !== undefined) out.taskId = rec.taskId;
  if (rec.last !== undefined) out.last = rec.last;
  if (rec.result !== undefined) out.result = rec.result;
  if (rec.error !== undefined) out.error = rec.error;
  if (rec.reason !== undefined) out.reason = rec.reason;
  if (rec.resolution !== undefined) out.resolution = rec.resolution;
  return out;
}

interface Snapshot {
  /** The base, open. */
  fd: number;
  size: number;
  frozen?: Buffer;
  log?: Buffer;
}

export interface ListingView {
  log: Map<string, ListedRecord | null>;
  logBytes: number;
  oldestFirst(): Generator<ListingEntry[] | undefined>;
  newestFirst(): Generator<ListingEntry[] | undefined>;
  close(): void;
}

const sameFile = (a: Stats | undefined, b: Stats | undefined) => (a === undefined) === (b === undefined) && (a === undefined || (a.ino === b!.ino && a.dev === b!.dev));

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function openOrUndefined(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function readAll(fd: number): Buffer {
  const size = fstatSync(fd).size;
  const buf = Buffer.allocUnsafe(size);
  let off = 0;
  while (off < size) {
    const n = readSync(fd, buf, off, size - off, off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

export class ListingIndex {
  constructor(
    private readonly dir: string,
    private readonly intentsDir: string,
    private readonly key: Buffer,
  ) {}

  private get basePath() {
    return join(this.dir, 'base');
  }
  private get logPath() {
    return join(this.dir, 'log');
  }
  private get frozenPath() {
    return join(this.dir, 'log.frozen');
  }
  get lockPath() {
    return join(this.dir, 'compact.lock');
  }

  init(): void {
    for (const d of [this.dir, this.intentsDir]) mkdirSync(d, { recursive: true, mode: 0o700 });
  }

  /** A new store's listing: an empty, complete base. */
  createEmpty(): void {
    this.init();
    writeFileAtomic(this.basePath, MAGIC, 0o600);
  }

  // -- frames: [u32 len][iv][tag][ciphertext][u32 len] ------------------------------------------

  private frame(kind: 'base' | 'log', payload: unknown): Buffer {
    const iv = randomBytes(IV);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(`mcp-tasks-listing-v1:${kind}`));
    const data = Buffer.concat([c.update(JSON.stringify(payload), 'utf8'), c.final()]);
    const len = IV + TAG + data.length;
    const out = Buffer.allocUnsafe(len + 8);
    out.writeUInt32BE(len, 0);
    iv.copy(out, 4);
    c.getAuthTag().copy(out, 4 + IV);
    data.copy(out, 4 + IV + TAG);
    out.writeUInt32BE(len, 4 + len);
    return out;
  }

  /** The frame's payload, or undefined when it is torn, altered or not a frame at all. */
  private unframe(kind: 'base' | 'log', buf: Buffer, off: number): unknown {
    if (off + 8 + MIN_FRAME > buf.length) return undefined;
    const len = buf.readUInt32BE(off);
    if (len < MIN_FRAME || off + 8 + len > buf.length || buf.readUInt32BE(off + 4 + len) !== len) return undefined;
    try {
      const d = createDecipheriv('aes-256-gcm', this.key, buf.subarray(off + 4, off + 4 + IV));
      d.setAAD(Buffer.from(`mcp-tasks-listing-v1:${kind}`));
      d.setAuthTag(buf.subarray(off + 4 + IV, off + 4 + IV + TAG));
      return JSON.parse(Buffer.concat([d.update(buf.subarray(off + 4 + IV + TAG, off + 4 + len)), d.final()]).toString('utf8'));
    } catch {
      return undefined;
    }
  }

  /** Every intact frame from `start`; a damaged stretch is skipped up to the next intact frame. */
  private *frames(kind: 'base' | 'log', buf: Buffer, start: number): Generator<unknown> {
    let off = start;
    while (off + 8 + MIN_FRAME <= buf.length) {
      const payload = this.unframe(kind, buf, off);
      if (payload !== undefined) {
        yield payload;
        off += 8 + buf.readUInt32BE(off);
        continue;
      }
      // Torn by a writer killed inside write(): that writer's intent is still there (it is removed
      // only after a complete append), so its record is read from its file. Find the next frame.
      off++;
    }
  }

  // -- writers --------------------------------------------------------------------------------

  /** Before a record write: readers read this record from its file until `end`. */
  begin(hop: string): string {
    const path = join(this.intentsDir, `${hop}.${process.pid}.${randomBytes(4).toString('hex')}`);
    try {
      closeSync(openSync(path, 'wx', 0o600));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(this.intentsDir, { recursive: true, mode: 0o700 });
      closeSync(openSync(path, 'wx', 0o600));
    }
    return path;
  }

  end(intent: string): void {
    rmSync(intent, { force: true });
  }

  /**
   * Append entries as one frame. Returns the log's size after the append, or undefined when the
   * frame could not be written whole (the caller then keeps its intents: the record files win).
   */
  append(entries: ListingEntry[]): number | undefined {
    const frame = this.frame('log', entries.map(([hop, rec]) => [hop, rec && listingCopy(rec)]));
    for (let attempt = 0; attempt < 8; attempt++) {
      let fd: number;
      try {
        fd = openSync(this.logPath, 'a', 0o600);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        continue;
      }
      try {
        // One write() on an O_APPEND file: frames of concurrent writers never interleave. A short
        // write could be followed by a peer's frame, so it is not completed: the frame is torn.
        if (writeSync(fd, frame) !== frame.length) return undefined;
        const mine = fstatSync(fd);
        // Still the log? If a compaction renamed it meanwhile, it may have read it before this
        // frame: append again to the new log (a duplicate of the same entries is harmless).
        if (sameFile(mine, statOrUndefined(this.logPath))) return mine.size;
      } finally {
        closeSync(fd);
      }
    }
    return undefined;
  }

  /** The log's size now (0 when there is none). */
  logBytes(): number {
    return statOrUndefined(this.logPath)?.size ?? 0;
  }

  /** Hops with an intent (their writer may be live or dead). */
  intents(): Array<{ hop: string; pid: number; name: string }> {
    let names: string[];
    try {
      names = readdirSync(this.intentsDir);
    } catch {
      return [];
    }
    const out = [];
    for (const name of names) {
      const m = /^([A-Za-z0-9_-]+)\.(\d+)\.[0-9a-f]+$/.exec(name);
      if (m) out.push({ hop: m[1]!, pid: Number(m[2]), name: join(this.intentsDir, name) });
    }
    return out;
  }

  // -- readers --------------------------------------------------------------------------------

  /**
   * Base (kept open: its content never changes under an inode, it is only ever replaced whole),
   * frozen log and log as one consistent view, or undefined when there is no usable base (never
   * built, or damaged): then the caller rebuilds it from the record files.
   */
  private snapshot(): Snapshot | undefined {
    for (let attempt = 0; ; attempt++) {
      const fdB = openOrUndefined(this.basePath);
      if (fdB === undefined) return undefined;
      const fdF = openOrUndefined(this.frozenPath);
      const fdL = openOrUndefined(this.logPath);
      let keep = false;
      try {
        const statB = fstatSync(fdB);
        const statF = fdF === undefined ? undefined : fstatSync(fdF);
        const snap: Snapshot = { fd: fdB, size: statB.size, ...(fdF !== undefined ? { frozen: readAll(fdF) } : {}), ...(fdL !== undefined ? { log: readAll(fdL) } : {}) };
        // A compaction step (freeze, new base, unfreeze) between the opens and now changes one of
        // these two: read again, or the view could lack the frozen entries.
        if ((sameFile(statB, statOrUndefined(this.basePath)) && sameFile(statF, statOrUndefined(this.frozenPath))) || attempt >= 20) {
          const magic = Buffer.alloc(MAGIC.length);
          if (readSync(fdB, magic, 0, MAGIC.length, 0) !== MAGIC.length || !magic.equals(MAGIC)) return undefined;
          keep = true;
          return snap;
        }
      } finally {
        if (!keep) closeSync(fdB);
        if (fdF !== undefined) closeSync(fdF);
        if (fdL !== undefined) closeSync(fdL);
      }
    }
  }

  /** Log entries (frozen first), latest last. */
  private logEntries(bufs: Array<Buffer | undefined>): ListingEntry[] {
    const out: ListingEntry[] = [];
    for (const buf of bufs) {
      if (!buf) continue;
      for (const p of this.frames('log', buf, 0)) if (Array.isArray(p)) out.push(...(p as ListingEntry[]));
    }
    return out;
  }

  /** The base chunk framed at [start, start + 8 + len), read from the open base. */
  private chunkAt(snap: Snapshot, start: number, len: number): ListingEntry[] | undefined {
    if (start < MAGIC.length || start + 8 + len > snap.size || len < MIN_FRAME) return undefined;
    const buf = Buffer.allocUnsafe(len + 8);
    if (readSync(snap.fd, buf, 0, buf.length, start) !== buf.length) return undefined;
    const p = this.unframe('base', buf, 0);
    return Array.isArray(p) ? (p as ListingEntry[]) : undefined;
  }

  private u32At(snap: Snapshot, pos: number): number | undefined {
    const b = Buffer.alloc(4);
    return pos >= 0 && pos + 4 <= snap.size && readSync(snap.fd, b, 0, 4, pos) === 4 ? b.readUInt32BE(0) : undefined;
  }

  /**
   * Open the listing: the logs' entries (latest per hop, null for removed) and readers of the
   * base's chunks, oldest first or newest first, each chunk read only when asked for (`list
   * --limit` reads no more of the base than it prints). A damaged chunk reads as undefined.
   * Undefined when there is no usable base. Close it when done.
   */
  open(): ListingView | undefined {
    const snap = this.snapshot();
    if (!snap) return undefined;
    const log = new Map<string, ListedRecord | null>();
    for (const [hop, rec] of this.logEntries([snap.frozen, snap.log])) log.set(hop, rec);
    const u32At = (pos: number) => this.u32At(snap, pos);
    const chunkAt = (start: number, len: number) => this.chunkAt(snap, start, len);
    return {
      log,
      logBytes: (snap.log?.length ?? 0) + (snap.frozen?.length ?? 0),
      *oldestFirst() {
        let off = MAGIC.length;
        while (off < snap.size) {
          const len = u32At(off);
          const chunk = len === undefined ? undefined : chunkAt(off, len);
          if (!chunk) return yield undefined;
          yield chunk;
          off += 8 + len!;
        }
      },
      *newestFirst() {
        let end = snap.size;
        while (end > MAGIC.length) {
          const len = u32At(end - 4);
          const chunk = len === undefined ? undefined : chunkAt(end - 8 - len, len);
          if (!chunk) return yield undefined;
          yield chunk;
          end -= 8 + len!;
        }
      },
      close: () => closeSync(snap.fd),
    };
  }

  // -- compaction -----------------------------------------------------------------------------

  /**
   * Write a new base. `source` gives every live record: from the old base and the frozen log
   * (compaction), or from the record files (rebuild). Call under lockPath.
   */
  rebuild(source: (fromIndex: () => Map<string, ListedRecord> | undefined) => Iterable<ListingEntry>): void {
    this.init();
    // A frozen log left by a killed compactor is still unfolded: keep it and leave the log alone.
    if (!statOrUndefined(this.frozenPath) && statOrUndefined(this.logPath)) renameSync(this.logPath, this.frozenPath);
    const fromIndex = () => {
      const view = this.open();
      if (!view) return undefined;
      try {
        const entries = new Map<string, ListedRecord>();
        for (const chunk of view.oldestFirst()) {
          if (!chunk) return undefined;
          for (const [hop, rec] of chunk) if (rec) entries.set(hop, rec);
        }
        // Frozen and live log: entries appended since the freeze are applied again by readers.
        for (const [hop, rec] of view.log) {
          if (rec) entries.set(hop, rec);
          else entries.delete(hop);
        }
        return entries;
      } finally {
        view.close();
      }
    };
    const live: Array<[string, ListedRecord]> = [];
    for (const [hop, rec] of source(fromIndex)) if (rec) live.push([hop, listingCopy(rec)]);
    live.sort((a, b) => (a[1].createdAt < b[1].createdAt ? -1 : a[1].createdAt > b[1].createdAt ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const parts: Buffer[] = [MAGIC];
    for (let i = 0; i < live.length; i += CHUNK_ENTRIES) parts.push(this.frame('base', live.slice(i, i + CHUNK_ENTRIES)));
    writeFileAtomic(this.basePath, Buffer.concat(parts), 0o600);
    rmSync(this.frozenPath, { force: true });
    syncDirectory(this.dir);
  }
}
