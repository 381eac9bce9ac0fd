// The one storage seam for task handles. Two engines sit behind it: the local file vault
// (vault.ts, the default) and the team store on PostgreSQL (postgres/pg-store.ts, chosen by
// MCP_TASKS_STORE). Commands and use cases see only this interface, so every command works the
// same on both. It is async because a database is a network away; the file engine answers at
// once. The listing is handed out as a synchronous view once opened: the file engine streams
// it from disk while the presenter prints (nothing held at 100,000 records), the team store
// hands over the rows its query returned.
import type { IntentOf, VaultRecord } from './vault-record.js';
import type { ListingRow, ListingRows } from './listing-index.js';
import { Vault, type ListingQuery, type VaultQuery } from './vault.js';

export type { ListingQuery, VaultQuery } from './vault.js';

/** The rows of `list`, readable synchronously while they are printed. */
export interface ListedRows {
  /** Each row, oldest first; with `runs`, a run of rows may come as their stored JSON joined by commas. */
  each(row: (r: ListingRow) => void, runs?: (json: Buffer, count: number) => void): void;
  /** How many records the store holds in all (asked only when nothing matched). */
  total(): number;
}

/** Where the handles live, in words a person can check (`store status`). */
export interface StoreDescription {
  engine: 'files' | 'postgres';
  /** The home directory, or the store URL with its password removed. */
  where: string;
}

export interface HandleStore {
  readonly engine: 'files' | 'postgres';
  describe(): StoreDescription;
  /** Open the store (checking its key) without reading any record; never creates it. */
  check(): Promise<void>;
  /** Open the store, creating it if needed, before a command writes to it (and before any request leaves). */
  prepare(): Promise<void>;
  get(opId: string): Promise<VaultRecord | undefined>;
  put(record: VaultRecord): Promise<void>;
  /** put(), only when no record has this opId yet: false when one had. */
  create(record: VaultRecord): Promise<boolean>;
  /**
   * Apply `change` (synchronous, no I/O) to the stored record, re-read under its lock; returns the
   * new record. `change` may run more than once (the team store tries a copy it read moments ago
   * first): it decides from the record it is given alone, and what it reports outward it sets anew.
   */
  update(opId: string, change: (rec: VaultRecord) => void): Promise<VaultRecord | undefined>;
  /** Records by creation (oldest first). */
  query(q: VaultQuery): Promise<VaultRecord[]>;
  /** Every record, oldest first (`list --all`, `export`, `prune`). */
  list(): Promise<VaultRecord[]>;
  /** What `list` shows; with a limit, the most recent ones. For display only, never to decide a write. */
  listing(q: ListingQuery): Promise<ListingRow[]>;
  /** listing() without a limit, as a view read while it is printed. */
  listed(q: Omit<ListingQuery, 'limit'>): Promise<ListedRows>;
  /** How many records the store holds in all. */
  count(): Promise<number>;
  /** A taskId, a unique taskId or opId prefix (6+), an opId, or a label value. */
  resolve(ref: string): Promise<VaultRecord | undefined>;
  /** Records of the same intent (server, tool, arguments) still without a handle, submitting or in doubt: what may stop an identical call. */
  unsettledSameIntent(rec: IntentOf): Promise<VaultRecord[]>;
  /** Insert records whose opId, and (server, taskId), are not present yet; how many were added. */
  merge(records: VaultRecord[]): Promise<number>;
  /** merge() for many records at once (import, seeding). */
  bulkInsert(records: VaultRecord[]): Promise<number>;
  remove(opIds: string[]): Promise<number>;
  /** Listing hops of records a read found damaged (list marks their rows); empty in a sound store. */
  damagedHops(): Promise<Set<string>>;
  /**
   * The team store only: each record as it is written from now on, until `signal` aborts
   * (`list --follow`, `watch --active`); `listening` is called once the store listens.
   */
  follow?(onChange: (rec: VaultRecord) => void, signal: AbortSignal, listening?: () => void): Promise<void>;
  /**
   * Whether a read is answered within a millisecond or two: the file vault, or the team store
   * through its connection keeper; false when each statement crosses the network to the database.
   */
  answersNearby(): Promise<boolean>;
  /** Release what the engine holds open (a database connection). */
  close(): Promise<void>;
}

/** The local file vault behind the seam: a thin adapter, each call as fast as the Vault's own. */
export class FileHandleStore implements HandleStore {
  readonly engine = 'files' as const;
  constructor(readonly vault: Vault) {}

  describe(): StoreDescription {
    return { engine: 'files', where: this.vault.home };
  }
  async check() {
    this.vault.check();
  }
  async prepare() {
    this.vault.prepare();
  }
  async get(opId: string) {
    return this.vault.get(opId);
  }
  async put(record: VaultRecord) {
    this.vault.put(record);
  }
  async create(record: VaultRecord) {
    return this.vault.create(record);
  }
  async update(opId: string, change: (rec: VaultRecord) => void) {
    return this.vault.update(opId, change);
  }
  async query(q: VaultQuery) {
    return this.vault.query(q);
  }
  async list() {
    return this.vault.list();
  }
  async listing(q: ListingQuery) {
    return this.vault.listing(q);
  }
  async listed(q: Omit<ListingQuery, 'limit'>): Promise<ListedRows> {
    const vault = this.vault;
    return {
      each: (row, runs) => vault.eachListed(q, row, runs),
      total: () => {
        let n = 0;
        vault.eachListed({ listedByDefault: false }, () => n++);
        return n;
      },
    };
  }
  async count() {
    let n = 0;
    this.vault.eachListed({ listedByDefault: false }, () => n++);
    return n;
  }
  async resolve(ref: string) {
    return this.vault.resolve(ref);
  }
  async answersNearby() {
    return true;
  }
  async unsettledSameIntent(rec: IntentOf) {
    return this.vault.unsettledSameIntent(rec);
  }
  async merge(records: VaultRecord[]) {
    return this.vault.merge(records);
  }
  bulkInsert(records: VaultRecord[]) {
    return this.vault.bulkInsert(records);
  }
  async remove(opIds: string[]) {
    return this.vault.remove(opIds);
  }
  async damagedHops() {
    return this.vault.damagedHops();
  }
  async close() {}
}

/** The local file vault at `home`, behind the seam. */
export function fileStore(home: string, env: NodeJS.ProcessEnv, rows: ListingRows, notice: (text: string) => void = () => {}): FileHandleStore {
  return new FileHandleStore(new Vault(home, env, rows, notice));
}
