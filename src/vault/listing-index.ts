// The sealed listing: a row for every record that `list` reads in a few large sequential reads
// instead of opening and decrypting one file per record. Each row holds what `list` orders and
// filters by and its `list --json` row already rendered (at write time, by the renderer the layer
// that opens the vault hands in: vault/ stores the rows, output/ decides their form), so
// `list --all --json` copies stored bytes: no parse, no object, no serialising per row.
// It is a cache of the record files, never trusted over them for anything that writes, and holds
// no credentials. The base names the renderer of its rows (its fingerprint, see listingRows): rows
// another renderer wrote are rebuilt from the record files rather than printed in an old shape.
//
//   <store>/x/base         sealed chunks of entries in creation order, written whole (tmp + rename)
//   <store>/x/log          sealed frames appended by every record write (O_APPEND), newest last
//   <store>/x/log.frozen   the log being folded into a new base by a compaction
//   <store>/x/compact.lock one compaction or rebuild at a time
//   <store>/p/<hop>.<pid>.<r> intents: "this record may be ahead of the listing"
//   <store>/p/bulk.<pid>.<r>  the same for a batch of a bulk insert (its hops, one a line)
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
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { ownPid } from '../fs/own-process.js';
import { syncDirectory, writeFileAtomic } from '../fs/atomic-file.js';
import type { ListingMeta, VaultPhase, VaultRecord } from './vault-record.js';

/**
 * One row of the listing: what `list` orders by (creation time, opId), filters on and shows
 * (`meta`, parsed only when asked for), and its `list --json` row, already in its output form
 * (rendered by the ListingRows the vault was opened with), so `list --all --json` copies bytes instead of
 * parsing and re-serialising 100,000 objects.
 */
export class ListingRow {
  private parsed?: ListingMeta;
  constructor(
    readonly hop: string,
    readonly opId: string,
    readonly createdAt: string,
    readonly phase: VaultPhase,
    /** Holds the meta JSON at [metaAt, metaAt + metaLen) and the row at [rowAt, rowAt + rowLen). */
    private readonly buf: Buffer,
    private readonly metaAt: number,
    private readonly metaLen: number,
    readonly rowAt: number,
    readonly rowLen: number,
  ) {}

  /** The row of a record as `list --json` prints it. */
  static of(hop: string, rec: VaultRecord, rows: ListingRows): ListingRow {
    const meta = Buffer.from(JSON.stringify(listingMeta(rec)), 'utf8');
    const row = Buffer.from(rows.row(rec), 'utf8');
    return new ListingRow(hop, rec.opId, rec.createdAt, rec.phase, Buffer.concat([meta, row]), 0, meta.length, meta.length, row.length);
  }

  /** The `list --json` row (UTF-8 JSON, sanitized). */
  get json(): Buffer {
    return this.buf.subarray(this.rowAt, this.rowAt + this.rowLen);
  }

  get metaBytes(): Buffer {
    return this.buf.subarray(this.metaAt, this.metaAt + this.metaLen);
  }

  meta(): ListingMeta {
    return (this.parsed ??= JSON.parse(this.buf.toString('utf8', this.metaAt, this.metaAt + this.metaLen)) as ListingMeta);
  }
}

/**
 * The one order of the listing: creation time, then opId. The base is written in it and readers
 * merge log rows into it and resume after a rebuild by it, so all of them must use this one (rows
 * created in the same millisecond, as an import's are, were skipped when two orders disagreed).
 */
export const listingOrder = (a: { createdAt: string; opId: string }, b: { createdAt: string; opId: string }): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.opId < b.opId ? -1 : a.opId > b.opId ? 1 : 0;

/** One listing entry: a record's row under its hop, or null when the record was removed. */
export type ListingEntry = [hop: string, row: ListingRow | null];

/** A base chunk: its entries, and the bytes of all its rows joined by commas (for a chunk printed whole). */
export interface ListingChunk {
  entries: ListingEntry[];
  rows: Buffer;
}

/** What `list` shows or filters on of a record (never credentials): see ListingMeta. */
export function listingMeta(rec: VaultRecord): ListingMeta {
  const out: ListingMeta = { opId: rec.opId, server: { name: rec.server.name }, operation: { name: rec.operation.name }, phase: rec.phase, labels: rec.labels, createdAt: rec.createdAt, updatedAt: rec.updatedAt };
  if (rec.taskId !== undefined) out.taskId = rec.taskId;
  if (rec.last !== undefined) out.last = { status: rec.last.status };
  if (rec.result !== undefined) out.result = rec.result.isError === true ? { isError: true } : {};
  if (rec.resolution !== undefined) out.resolution = { outcome: rec.resolution.outcome };
  // Whether a `submitting` row is in doubt depends on its writer being alive, asked when it is shown.
  if (rec.writer !== undefined) out.writer = rec.writer;
  if (rec.origin !== undefined) out.origin = rec.origin;
  return out;
}

/**
 * How the listing's rows are rendered: a record's `list --json` row, given by the layer that opens
 * the vault (app/), and the fingerprint that names that renderer in every base and log frame.
 */
export interface ListingRows {
  /** The record's `list --json` row: UTF-8 JSON, already through the one sanitizer. */
  row(rec: VaultRecord): string;
  /** 16 bytes naming the renderer (listingRows computes it): a listing of another is rebuilt. */
  readonly fingerprint: Buffer;
}

/** The ListingRows of a row renderer, its fingerprint computed on first use (once a process). */
export function listingRows(row: (rec: VaultRecord) => string): ListingRows {
  let fingerprint: Buffer | undefined;
  return {
    row,
    get fingerprint() {
      return (fingerprint ??= rowFingerprint(row));
    },
  };
}

/**
 * For a vault opened only to be created (a sign-in's key source, before any record): it renders
 * nothing, and its fingerprint is no renderer's, so whatever it wrote into the listing is rebuilt
 * from the record files by the first opener that lists.
 */
export const KEY_ONLY_ROWS: ListingRows = { row: () => '{}', fingerprint: Buffer.alloc(16) };

const PHASES: readonly VaultPhase[] = ['submitting', 'active', 'terminal', 'lost', 'in-doubt'];

/**
 * Which row renderer wrote a listing: a hash of the rows it renders for a few fixed records. A
 * listing written by another version (taskJson or the sanitizer changed) is rebuilt from the
 * record files, so stored rows never show an old output shape.
 */
function rowFingerprint(listingRowJson: (rec: VaultRecord) => string): Buffer {
  const at = '2026-01-01T00:00:00.000Z';
  const base = { opId: 'op', server: { name: 's', identity: { kind: 'http', url: 'http://x' } }, auth: { kind: 'none' }, operation: { method: 'tools/call', name: 't', arguments: { a: 1 }, submittedAt: at }, history: [], inputKeysSeen: [], inputKeysAnswered: [], labels: { k: 'v' }, origin: { user: 'u', host: 'h', ci: 'c' }, createdAt: at, updatedAt: at } as unknown as VaultRecord;
  const last = { taskId: 'id', status: 'working', statusMessage: 'm\u009b\u202e', createdAt: at, lastUpdatedAt: at, ttlMs: 1, pollIntervalMs: 2, inputRequests: { q: { method: 'elicitation/create', params: {} } } } as NonNullable<VaultRecord['last']>;
  const samples: VaultRecord[] = [
    { ...base, phase: 'submitting' },
    { ...base, phase: 'active', taskId: 'id', last },
    { ...base, phase: 'terminal', taskId: 'id', last: { ...last, status: 'completed' }, result: { content: [{ type: 'text', text: 'r' }], isError: true } },
    { ...base, phase: 'terminal', taskId: 'id', last: { ...last, status: 'failed' }, error: { code: -1, message: 'e', data: 1 } },
    { ...base, phase: 'lost', taskId: 'id', last, reason: 'gone' },
    { ...base, phase: 'in-doubt', reason: 'unsure' },
    { ...base, phase: 'terminal', operation: { ...base.operation, name: '(unknown operation)' }, resolution: { outcome: 'completed', at, was: 'in-doubt' } },
  ];
  // The order is part of what a base is: a base written in another order is rebuilt too.
  const h = createHash('sha256').update('order: createdAt, opId\n');
  for (const s of samples) h.update(listingRowJson(s)).update('\n').update(JSON.stringify(listingMeta(s))).update('\n');
  return h.digest().subarray(0, 16);
}

// -- the payload of a frame: entry headers, then metas, then rows joined by commas ---------------
//   [u32 n] n × ( [u8 0][u8 len][hop]                       a removed record
//               | [u8 1][u8 phase][u8 len][hop][u8 len][createdAt][u16 len][opId][u32 meta][u32 row] )
//   [metas][row,row,...]

function encodeEntries(entries: ListingEntry[]): Buffer {
  let head = 4;
  let data = 0;
  let rows = 0;
  for (const [hop, row] of entries) {
    head += 2 + Buffer.byteLength(hop, 'latin1');
    if (!row) continue;
    head += 1 + 1 + Buffer.byteLength(row.createdAt, 'latin1') + 2 + Buffer.byteLength(row.opId, 'utf8') + 8;
    data += row.metaBytes.length + row.rowLen;
    rows++;
  }
  const out = Buffer.allocUnsafe(head + data + Math.max(0, rows - 1));
  let h = out.writeUInt32BE(entries.length, 0);
  let d = head;
  for (const [hop, row] of entries) {
    out[h++] = row ? 1 : 0;
    if (row) out[h++] = PHASES.indexOf(row.phase);
    out[h] = out.write(hop, h + 1, 'latin1');
    h += 1 + out[h]!;
    if (!row) continue;
    out[h] = out.write(row.createdAt, h + 1, 'latin1');
    h += 1 + out[h]!;
    const opLen = out.write(row.opId, h + 2, 'utf8');
    out.writeUInt16BE(opLen, h);
    h += 2 + opLen;
    h = out.writeUInt32BE(row.metaBytes.length, h);
    h = out.writeUInt32BE(row.rowLen, h);
    d += row.metaBytes.copy(out, d);
  }
  let first = true;
  for (const [, row] of entries) {
    if (!row) continue;
    if (!first) out[d++] = 0x2c; // ','
    first = false;
    d += row.json.copy(out, d);
  }
  return out;
}

/** The entries of a payload, and its joined rows; undefined when it does not parse. */
function decodeEntries(buf: Buffer): ListingChunk | undefined {
  try {
    const n = buf.readUInt32BE(0);
    let h = 4;
    const heads: Array<{ hop: string; phase?: VaultPhase; createdAt?: string; opId?: string; metaLen?: number; rowLen?: number }> = [];
    let metaBytes = 0;
    let rowBytes = 0;
    for (let i = 0; i < n; i++) {
      const present = buf[h++];
      const phase = present ? PHASES[buf[h++]!] : undefined;
      const hopLen = buf[h]!;
      const hop = buf.toString('latin1', h + 1, h + 1 + hopLen);
      h += 1 + hopLen;
      if (!present) {
        heads.push({ hop });
        continue;
      }
      if (!phase) return undefined;
      const cLen = buf[h]!;
      const createdAt = buf.toString('latin1', h + 1, h + 1 + cLen);
      h += 1 + cLen;
      const opLen = buf.readUInt16BE(h);
      const opId = buf.toString('utf8', h + 2, h + 2 + opLen);
      h += 2 + opLen;
      const metaLen = buf.readUInt32BE(h);
      const rowLen = buf.readUInt32BE(h + 4);
      h += 8;
      heads.push({ hop, phase, createdAt, opId, metaLen, rowLen });
      metaBytes += metaLen;
      rowBytes += rowLen;
    }
    let m = h;
    let r = h + metaBytes;
    const rowsStart = r;
    const entries: ListingEntry[] = [];
    for (const e of heads) {
      if (e.phase === undefined) {
        entries.push([e.hop, null]);
        continue;
      }
      entries.push([e.hop, new ListingRow(e.hop, e.opId!, e.createdAt!, e.phase, buf, m, e.metaLen!, r, e.rowLen!)]);
      m += e.metaLen!;
      r += e.rowLen! + 1;
    }
    const rowsEnd = rowsStart + rowBytes + Math.max(0, entries.filter((e) => e[1]).length - 1);
    if (h > buf.length || rowsEnd > buf.length) return undefined;
    return { entries, rows: buf.subarray(rowsStart, rowsEnd) };
  } catch {
    return undefined;
  }
}

/** The base file's first bytes: the format, then the row fingerprint (ListingRows.fingerprint). */
const MAGIC = Buffer.from('MTX2');
const HEADER = MAGIC.length + 16;
const IV = 12;
const TAG = 16;
const MIN_FRAME = IV + TAG;
/** Entries per base chunk: `list --limit 50` decrypts one or two chunks. */
const CHUNK_ENTRIES = 256;
/** The log is folded into the base once it is this large (bounds what `list --limit` reads). */
export const COMPACT_LOG_BYTES = 2 * 1024 * 1024;

interface Snapshot {
  /** The base, open. */
  fd: number;
  size: number;
  frozen?: Buffer;
  log?: Buffer;
}

export interface ListingView {
  log: Map<string, ListingRow | null>;
  /** Hops whose log rows were rendered by another version: read them from their record files. */
  stale: Set<string>;
  logBytes: number;
  oldestFirst(): Generator<ListingChunk | undefined>;
  newestFirst(): Generator<ListingChunk | undefined>;
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
    private readonly rows: ListingRows,
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
    writeFileAtomic(this.basePath, Buffer.concat([MAGIC, this.rows.fingerprint]), 0o600);
  }

  // -- frames: [u32 len][iv][tag][ciphertext][u32 len] ------------------------------------------

  private frame(kind: 'base' | 'log', payload: Buffer): Buffer {
    const iv = randomBytes(IV);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(`mcp-tasks-listing-v2:${kind}`));
    const data = Buffer.concat([c.update(payload), c.final()]);
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
  private unframe(kind: 'base' | 'log', buf: Buffer, off: number): Buffer | undefined {
    if (off + 8 + MIN_FRAME > buf.length) return undefined;
    const len = buf.readUInt32BE(off);
    if (len < MIN_FRAME || off + 8 + len > buf.length || buf.readUInt32BE(off + 4 + len) !== len) return undefined;
    try {
      const d = createDecipheriv('aes-256-gcm', this.key, buf.subarray(off + 4, off + 4 + IV));
      d.setAAD(Buffer.from(`mcp-tasks-listing-v2:${kind}`));
      d.setAuthTag(buf.subarray(off + 4 + IV, off + 4 + IV + TAG));
      const plain = d.update(buf.subarray(off + 4 + IV + TAG, off + 4 + len));
      d.final(); // checks the tag; GCM holds nothing back
      return plain;
    } catch {
      return undefined;
    }
  }

  /** Every intact frame from `start`; a damaged stretch is skipped up to the next intact frame. */
  private *frames(kind: 'base' | 'log', buf: Buffer, start: number): Generator<Buffer> {
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
    const path = join(this.intentsDir, `${hop}.${ownPid}.${randomBytes(4).toString('hex')}`);
    this.createIntent(path, (p) => closeSync(openSync(p, 'wx', 0o600)));
    return path;
  }

  /**
   * begin() for a batch of records (a bulk insert): one intent file naming them all, so a batch
   * costs one file instead of one per record. It appears whole (written aside, then renamed).
   */
  beginMany(hops: string[]): string {
    const name = `bulk.${ownPid}.${randomBytes(4).toString('hex')}`;
    const path = join(this.intentsDir, name);
    this.createIntent(path, (p) => {
      const tmp = `${p}.tmp`;
      closeSync(openSync(tmp, 'wx', 0o600));
      try {
        const fd = openSync(tmp, 'w');
        try {
          writeSync(fd, hops.join('\n'));
        } finally {
          closeSync(fd);
        }
        renameSync(tmp, p);
      } catch (err) {
        rmSync(tmp, { force: true });
        throw err;
      }
    });
    return path;
  }

  private createIntent(path: string, create: (path: string) => void): void {
    try {
      create(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(this.intentsDir, { recursive: true, mode: 0o700 });
      create(path);
    }
  }

  end(intent: string): void {
    rmSync(intent, { force: true });
  }

  /**
   * Append entries as one frame. Returns the log's size after the append, or undefined when the
   * frame could not be written whole (the caller then keeps its intents: the record files win).
   */
  append(entries: ListingEntry[]): number | undefined {
    // A log frame names the renderer of its rows: a reader of another version re-reads those records.
    const frame = this.frame('log', Buffer.concat([this.rows.fingerprint, encodeEntries(entries)]));
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

  /** Hops with an intent (their writer may be live or dead); `name` is the intent file (one for a bulk batch). */
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
      if (!m) continue;
      const path = join(this.intentsDir, name);
      if (m[1] !== 'bulk') {
        out.push({ hop: m[1]!, pid: Number(m[2]), name: path });
        continue;
      }
      let hops: string[];
      try {
        hops = readFileSync(path, 'utf8').split('\n');
      } catch {
        continue; // ended meanwhile
      }
      for (const hop of hops) if (/^[A-Za-z0-9_-]+$/.test(hop)) out.push({ hop, pid: Number(m[2]), name: path });
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
          // Another format, or rows rendered by another version: rebuilt from the record files.
          const head = Buffer.alloc(HEADER);
          if (readSync(fdB, head, 0, HEADER, 0) !== HEADER || !head.equals(Buffer.concat([MAGIC, this.rows.fingerprint]))) return undefined;
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

  /** Log entries (frozen first), latest last; `stale` gets the hops of rows another version rendered. */
  private logEntries(bufs: Array<Buffer | undefined>, stale: Set<string>): ListingEntry[] {
    const out: ListingEntry[] = [];
    const mine = this.rows.fingerprint;
    for (const buf of bufs) {
      if (!buf) continue;
      for (const p of this.frames('log', buf, 0)) {
        const chunk = p.length >= 16 ? decodeEntries(p.subarray(16)) : undefined;
        if (!chunk) continue;
        if (p.subarray(0, 16).equals(mine)) out.push(...chunk.entries);
        else for (const [hop] of chunk.entries) stale.add(hop);
      }
    }
    return out;
  }

  /** The base chunk framed at [start, start + 8 + len), read from the open base. */
  private chunkAt(snap: Snapshot, start: number, len: number): ListingChunk | undefined {
    if (start < HEADER || start + 8 + len > snap.size || len < MIN_FRAME) return undefined;
    const buf = Buffer.allocUnsafe(len + 8);
    if (readSync(snap.fd, buf, 0, buf.length, start) !== buf.length) return undefined;
    const p = this.unframe('base', buf, 0);
    return p && decodeEntries(p);
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
    const log = new Map<string, ListingRow | null>();
    const stale = new Set<string>();
    for (const [hop, row] of this.logEntries([snap.frozen, snap.log], stale)) log.set(hop, row);
    const u32At = (pos: number) => this.u32At(snap, pos);
    const chunkAt = (start: number, len: number) => this.chunkAt(snap, start, len);
    return {
      log,
      stale,
      logBytes: (snap.log?.length ?? 0) + (snap.frozen?.length ?? 0),
      *oldestFirst() {
        let off = HEADER;
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
        while (end > HEADER) {
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
  rebuild(source: (fromIndex: () => Map<string, ListingRow> | undefined) => Iterable<ListingEntry>): void {
    this.init();
    // A frozen log left by a killed compactor is still unfolded: keep it and leave the log alone.
    if (!statOrUndefined(this.frozenPath) && statOrUndefined(this.logPath)) renameSync(this.logPath, this.frozenPath);
    const fromIndex = () => {
      const view = this.open();
      if (!view) return undefined;
      try {
        // Rows another version rendered cannot be copied: the caller rebuilds from the records.
        if (view.stale.size) return undefined;
        const entries = new Map<string, ListingRow>();
        for (const chunk of view.oldestFirst()) {
          if (!chunk) return undefined;
          for (const [hop, row] of chunk.entries) if (row) entries.set(hop, row);
        }
        // Frozen and live log: entries appended since the freeze are applied again by readers.
        for (const [hop, row] of view.log) {
          if (row) entries.set(hop, row);
          else entries.delete(hop);
        }
        return entries;
      } finally {
        view.close();
      }
    };
    const live: ListingEntry[] = [];
    for (const [hop, row] of source(fromIndex)) if (row) live.push([hop, row]);
    live.sort((a, b) => listingOrder(a[1]!, b[1]!));
    const parts: Buffer[] = [MAGIC, this.rows.fingerprint];
    for (let i = 0; i < live.length; i += CHUNK_ENTRIES) parts.push(this.frame('base', encodeEntries(live.slice(i, i + CHUNK_ENTRIES))));
    writeFileAtomic(this.basePath, Buffer.concat(parts), 0o600);
    rmSync(this.frozenPath, { force: true });
    syncDirectory(this.dir);
  }
}
