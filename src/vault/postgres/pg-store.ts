// The team store: task handles in a PostgreSQL database shared by a CI fleet and its on-call
// engineers, sealed end to end with the team key (MCP_TASKS_TEAM_KEY). The database sees only
// ciphertext and what it must filter on:
//
//   mcp_tasks_meta     schema version, the team key's salt and cost (scrypt N; 0: a generated key), a sealed key check
//   mcp_tasks_records  hop (keyed hash of the opId) · sealed record (AES-256-GCM, hop as AAD) ·
//                      phase · server name · created/updated times · origin (user@host, CI run)
//   mcp_tasks_hints    (hint, hop): keyed hashes of taskId (whole and 6-character prefix), opId
//                      prefix, idempotency key, label values and intent, as the file vault's hints
//
// Someone who can read every table but has no team key learns no handle, argument, label value
// or result. Credentials never enter it: a record keeps how to authenticate, not the secret.
// Concurrency: create-if-absent is INSERT … ON CONFLICT DO NOTHING; a read-modify-write is a
// short transaction around SELECT … FOR UPDATE, with the change a synchronous function: no lock
// or transaction is ever held across a request to an MCP server (those happen outside this file).
// The driver (`pg`) is loaded on the first use of a configured team store, never otherwise;
// connecting and the early opening live in pg-connect.ts.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { throughKeeper, type StoreClient, type StorePool, type StoreQuery } from './pg-keeper-client.js';
import { keepMs } from './pg-keeper-wire.js';
import { VaultError } from '../vault-errors.js';
import { AmbiguousRefError } from '../vault-errors.js';
import { byCreatedAt, intentOf, isUnsettled, originText, STALE_HINTS_DROPPED, typeableRef, UNKNOWN_OPERATION, type IntentOf, type VaultRecord } from '../vault-record.js';
import { ListingRow, type ListingRows } from '../listing-index.js';
import { listedByDefault } from '../record-files.js';
import { currentWriter } from '../writer.js';
import { closePool, connectTimeoutMs, teamStoreClient, earlyDerivation, NotAGeneratedKey, poolFor, readMeta, masterKey, rememberSalt, takeOpening, validCost, type Derivation, type Meta, type RefRead } from './pg-connect.js';
import { deriveKeys, hopOf, lookupHash, MIN_REF_PREFIX, PREFIX_LEN, refLookup, type FoundRow, type Keys, type SealedRow } from './pg-lookup.js';
import { lookUpTeamKey } from './team-key-source.js';
import { redactStoreUrl } from './store-url.js';
import { DatabaseSilent } from './pg-patient.js';
import { GENERATED_KEY_COST, GENERATED_KEY_PREFIX, generatedKeyBytes, looksGenerated } from './team-key.js';
import type { HandleStore, ListedRows, ListingQuery, StoreDescription, VaultQuery } from '../handle-store.js';
import { cmd, hint, type Hint } from '../../hint.js';

export const SCHEMA_VERSION = 1;
const SCRYPT_N = 2 ** 14;
const CHECK_TEXT = 'mcp-tasks team key check v1';
const LISTED_PHASES = ['submitting', 'active', 'in-doubt', 'lost'];
/** Reads of at most this many records are remembered for update(). */
const REMEMBERED_READ = 16;
/** Records per merge batch: one transaction, a few statements. */
const MERGE_BATCH = 500;
/** The phases of a record that may be unsettled (isUnsettled also asks for no taskId, which is sealed). */
const UNSETTLED_PHASE = "r.phase IN ('submitting', 'in-doubt')";
/** The channel a write is announced on (the hop only: the record stays sealed). */
export const NOTIFY_CHANNEL = 'mcp_tasks_changes';

/** The team key, what a message calls it, and the next step when it is the wrong one. */
interface TeamKey {
  key: string;
  named: string;
  fix: Hint;
}

function sealBytes(key: Buffer, plain: Buffer, aad: string): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad));
  const data = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), data]);
}

function openBytes(key: Buffer, sealed: Buffer, aad: string): Buffer | undefined {
  if (sealed.length < 28) return undefined;
  try {
    const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([d.update(sealed.subarray(28)), d.final()]);
  } catch {
    return undefined;
  }
}

export class PgHandleStore implements HandleStore {
  readonly engine = 'postgres' as const;
  private keys: Promise<Keys> | undefined;
  /** The early opening's lookup of the command's ref, for the first resolve of that ref. */
  private refRead: RefRead | undefined;
  /** Each record as this process last read or wrote it, with its version: an update from there is one statement. */
  private readonly read = new Map<string, { version: string; sealed: Buffer }>();

  constructor(
    private readonly url: string,
    private readonly env: NodeJS.ProcessEnv,
    /** The home whose salt cache (team-stores.json) speeds up the next start. */
    private readonly home: string,
    /** How `list --json` renders a row (handed in from app/). */
    private readonly listRows: ListingRows,
    /** A team key being checked before it is saved (`store key save`): used instead of MCP_TASKS_TEAM_KEY or the keychain. */
    private readonly givenKey?: string,
  ) {}

  describe(): StoreDescription {
    return { engine: 'postgres', where: redactStoreUrl(this.url) };
  }

  private get shown() {
    return redactStoreUrl(this.url);
  }

  private fail(message: string, next: string | Hint): never {
    throw new VaultError({ reason: 'team-store', next }, message);
  }

  /** A database failure in one line, naming the store without its password. */
  private dbError(err: unknown): never {
    if (err instanceof VaultError || err instanceof AmbiguousRefError) throw err;
    const e = err as { code?: string; message?: string };
    const what = [e.code, e.message].filter(Boolean).join(' ') || String(err);
    const why = what.replace(/\s+/g, ' ').slice(0, 300);
    if (e.code === '28P01' || e.code === '28000') this.fail(`the team store ${this.shown} refused the database login (${why})`, 'Check the user and password in MCP_TASKS_STORE (or PGPASSWORD / ~/.pgpass); nothing was changed.');
    if (e.code === '3D000') this.fail(`the team store ${this.shown} has no such database (${why})`, hint`Create the database (or fix its name in MCP_TASKS_STORE), then run \`${cmd('store', 'init')}\`.`);
    if (e.code === '42P01') this.fail(`the team store ${this.shown} has no mcp-tasks schema`, hint`Run \`${cmd('store', 'init')}\` once (safe to run from every CI job), then retry.`);
    // Up, but at its connection limit: a moment later it takes the command; the local vault would hide the record from the team.
    const askedMs = (err as { askedAgainMs?: number }).askedAgainMs;
    if (e.code === '53300') this.fail(`the team store ${this.shown} has no connection free (${why}${askedMs !== undefined ? `; asked again for ${(askedMs / 1000).toFixed(1)} s` : ''}); nothing was changed`, 'Run the same command again in a moment. For many concurrent jobs, raise the database\'s max_connections (or the role\'s CONNECTION LIMIT), or put a connection pooler in front of it.');
    this.fail(`the team store ${this.shown} cannot be reached or failed (${why}); nothing was changed`, hint`Check that the database is up and MCP_TASKS_STORE is right (\`${cmd('store', 'status')}\`); unset MCP_TASKS_STORE to use the local vault instead.`);
  }

  /** The team key, and how a message names where it came from (the variable, or the keychain). */
  private teamKey(): TeamKey {
    if (this.givenKey !== undefined) return this.checkedKey(this.givenKey, 'the team key given', hint`Run \`${cmd('store', 'key', 'save')}\` again with the key the store was initialised with (ask whoever ran \`${cmd('store', 'init')}\`); nothing was saved.`);
    const found = lookUpTeamKey(this.url, this.env);
    const k = found.key;
    if (!k) {
      const keychain = found.keychainOff ? '' : found.keychainProblem ? `, and the OS keychain cannot be asked (${found.keychainProblem})` : ', and the OS keychain holds none for this store';
      this.fail(`MCP_TASKS_STORE names a team store (${this.shown}) but MCP_TASKS_TEAM_KEY is not set${keychain}: its records are sealed with the team key`, hint`Set MCP_TASKS_TEAM_KEY to the team key (from your secret store; never on the command line), or keep it in this machine's keychain: \`${cmd('store', 'key', 'save')}\`.`);
    }
    if (found.from === 'keychain') return this.checkedKey(k, 'the team key in the OS keychain', hint`Save the right one: \`${cmd('store', 'key', 'save')}\` (it checks the key against the store first), or set MCP_TASKS_TEAM_KEY.`);
    return this.checkedKey(k, 'MCP_TASKS_TEAM_KEY', hint`Set MCP_TASKS_TEAM_KEY to the team key the store was initialised with (ask whoever ran \`${cmd('store', 'init')}\`).`);
  }

  /** A team key of a usable shape, named as a message shows it (`named`), with the next step should it open nothing (`fix`). */
  private checkedKey(key: string, named: string, fix: Hint): TeamKey {
    if (looksGenerated(key)) this.fail(`${named} begins like a generated team key (${GENERATED_KEY_PREFIX}…) but is not one: cut short or altered in a copy`, named === 'MCP_TASKS_TEAM_KEY' ? 'Set it again from your secret store, whole; nothing was changed.' : fix);
    if (key.length < 12) this.fail(`${named} is shorter than 12 characters`, 'Use a long random passphrase, e.g. `openssl rand -base64 24`, shared with the team out of band.');
    return { key, named, fix };
  }

  private async pool(): Promise<StorePool> {
    return poolFor(this.url, this.env, this.home);
  }

  /** Run `fn` with one connection (a transaction when `tx`), mapping database failures to vault errors. */
  private async with<T>(fn: (c: StoreClient) => Promise<T>, tx = false): Promise<T> {
    let client: StoreClient;
    try {
      client = await this.connect();
    } catch (err) {
      this.dbError(err);
    }
    let broken = false;
    try {
      if (tx) await client.query('BEGIN');
      const out = await fn(client);
      if (tx) await client.query('COMMIT');
      return out;
    } catch (err) {
      if (tx) await client.query('ROLLBACK').catch(() => (broken = true));
      const code = (err as { code?: string }).code;
      if (code === undefined || /^(08|57P)/.test(code) || code === 'ECONNRESET' || code === 'ECONNREFUSED') broken = true;
      this.dbError(err);
    } finally {
      client.release(broken);
    }
  }

  /**
   * A read of one statement, on a connection taken for it alone (through a keeper, one message
   * instead of a lease and a statement), mapping database failures to vault errors.
   */
  private async once<T>(read: (q: StoreQuery) => Promise<T>): Promise<T> {
    try {
      const pool = await this.pool();
      return await this.patiently(() => read(pool));
    } catch (err) {
      this.dbError(err);
    }
  }

  /** A connection (see patiently). */
  private async connect(): Promise<StoreClient> {
    const pool = await this.pool();
    return this.patiently(() => pool.connect());
  }

  /**
   * `take`, asked again while the database is at its connection limit (53300, as a fleet of jobs
   * starting at once meets it), backing off from 100 ms, for as long as MCP_TASKS_STORE_TIMEOUT_MS:
   * a refused connection was asked nothing yet, so asking again is safe; the last refusal is reported.
   */
  private async patiently<T>(take: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const until = started + connectTimeoutMs(this.env);
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        return await take();
      } catch (err) {
        if ((err as { code?: string }).code !== '53300') throw err;
        const pause = wait * (0.5 + Math.random() / 2);
        // How long it was asked, for the report (dbError): only a refusal asked again says so.
        if (Date.now() + pause > until) throw Object.assign(err as object, { askedAgainMs: Date.now() - started });
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /** The keys, from the team key and the store's salt, checked against its sealed key check. */
  private async openKeys(meta: Meta, early?: Derivation): Promise<Keys> {
    if (meta.schema_version > SCHEMA_VERSION) this.fail(`the team store ${this.shown} has schema version ${meta.schema_version}, newer than this mcp-tasks (${SCHEMA_VERSION}); nothing was changed`, 'Upgrade mcp-tasks on this machine.');
    if (!validCost(meta.key_n)) this.fail(`the team store ${this.shown} asks for an invalid key cost (scrypt N = ${String(meta.key_n)}); nothing was changed`, hint`Check its mcp_tasks_meta table: ${cmd('store', 'init')} never writes that cost.`);
    const { key: pass, named, fix } = this.teamKey();
    const seen = early?.salt === meta.key_salt && early.n === meta.key_n;
    let master: Buffer;
    try {
      master = seen ? await early.master : await masterKey(pass, meta.key_salt, meta.key_n);
    } catch (err) {
      if (!(err instanceof NotAGeneratedKey)) throw err;
      this.fail(`the team store ${this.shown} cannot be opened: it was created with a generated team key (${GENERATED_KEY_PREFIX}…), and ${named} is a passphrase; nothing was changed`, fix);
    }
    if (!seen) rememberSalt(this.home, this.shown, meta.key_salt, meta.key_n);
    const keys = deriveKeys(master);
    const check = openBytes(keys.record, meta.key_check, 'key-check');
    if (!check || check.toString('utf8') !== CHECK_TEXT) {
      this.fail(`the team store ${this.shown} cannot be opened: ${named} is not the key it was created with; nothing was changed`, fix);
    }
    return keys;
  }

  private ready(): Promise<Keys> {
    if (!this.keys) {
      const pass = this.teamKey().key;
      const begun = takeOpening(this.url, this.home, pass);
      this.refRead = begun?.refRead;
      const early = begun?.early ?? earlyDerivation(this.home, this.shown, pass);
      const read = () => this.once(readMeta);
      // What the early opening read stands unless it failed or found no schema (asked again: one may
      // have been made since). A database that did not answer it at all is reported, not waited for twice.
      const again = (err: unknown) => (err instanceof DatabaseSilent ? this.dbError(err) : read());
      this.keys = (begun ? begun.meta.then((m) => m ?? read(), again) : read()).then((meta) => {
        if (!meta) this.fail(`the team store ${this.shown} has no mcp-tasks schema yet`, hint`Run \`${cmd('store', 'init')}\` once (safe to run from every CI job), then retry.`);
        return this.openKeys(meta, early);
      });
      // A failure is not cached: the next call asks again (a database back from a restart).
      this.keys.catch(() => (this.keys = undefined));
    }
    return this.keys;
  }

  // -- schema ---------------------------------------------------------------------------------

  /**
   * Create or migrate the schema, and the key check on a new store. Idempotent; two CI jobs
   * running it at once are serialised by a transaction-scoped advisory lock.
   */
  async init(): Promise<{ created: boolean; schemaVersion: number }> {
    const pass = this.teamKey().key;
    return this.with(async (c) => {
      await c.query("SELECT pg_advisory_xact_lock(hashtext('mcp-tasks store init'))");
      await c.query(`CREATE TABLE IF NOT EXISTS mcp_tasks_meta (
        id int PRIMARY KEY CHECK (id = 1),
        schema_version int NOT NULL,
        key_salt text NOT NULL,
        key_n int NOT NULL,
        key_check bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now())`);
      await c.query(`CREATE TABLE IF NOT EXISTS mcp_tasks_records (
        hop text PRIMARY KEY,
        sealed bytea NOT NULL,
        phase text NOT NULL,
        server_name text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        origin text,
        version bigint NOT NULL DEFAULT 1)`);
      await c.query('CREATE TABLE IF NOT EXISTS mcp_tasks_hints (hint text NOT NULL, hop text NOT NULL REFERENCES mcp_tasks_records(hop) ON DELETE CASCADE, PRIMARY KEY (hint, hop))');
      await c.query('CREATE INDEX IF NOT EXISTS mcp_tasks_hints_hop ON mcp_tasks_hints (hop)');
      await c.query('CREATE INDEX IF NOT EXISTS mcp_tasks_records_created ON mcp_tasks_records (created_at, hop)');
      await c.query(`CREATE INDEX IF NOT EXISTS mcp_tasks_records_listed ON mcp_tasks_records (created_at, hop) WHERE phase IN ('submitting', 'active', 'in-doubt', 'lost')`);
      const meta = await readMeta(c);
      if (meta) {
        this.keys = this.openKeys(meta);
        await this.keys;
        if (meta.schema_version < SCHEMA_VERSION) await c.query('UPDATE mcp_tasks_meta SET schema_version = $1 WHERE id = 1', [SCHEMA_VERSION]);
        return { created: false, schemaVersion: Math.max(meta.schema_version, SCHEMA_VERSION) };
      }
      const salt = randomBytes(16);
      // A generated key needs no stretching; the store keeps that choice for every opener.
      const cost = generatedKeyBytes(pass) ? GENERATED_KEY_COST : SCRYPT_N;
      const keys = deriveKeys(await masterKey(pass, salt.toString('base64'), cost));
      await c.query('INSERT INTO mcp_tasks_meta (id, schema_version, key_salt, key_n, key_check) VALUES (1, $1, $2, $3, $4)', [SCHEMA_VERSION, salt.toString('base64'), cost, sealBytes(keys.record, Buffer.from(CHECK_TEXT), 'key-check')]);
      rememberSalt(this.home, this.shown, salt.toString('base64'), cost);
      this.keys = Promise.resolve(keys);
      return { created: true, schemaVersion: SCHEMA_VERSION };
    }, true);
  }

  /** What `store status` shows: reachable, schema version, counts, whose. Never the password. */
  async status(): Promise<{ schemaVersion: number | null; records: number; active: number; origins: Array<{ origin: string; records: number }>; keeper: { used: boolean; keepSeconds: number } }> {
    const s = await this.with(async (c) => {
      const meta = await readMeta(c);
      if (!meta) return { schemaVersion: null, records: 0, active: 0, origins: [] };
      await this.ready();
      const n = await c.query<{ all: string; active: string }>(`SELECT count(*) AS all, count(*) FILTER (WHERE phase IN ('submitting', 'active', 'in-doubt', 'lost')) AS active FROM mcp_tasks_records`);
      const o = await c.query<{ origin: string | null; n: string }>('SELECT origin, count(*) AS n FROM mcp_tasks_records GROUP BY origin ORDER BY count(*) DESC LIMIT 10');
      return { schemaVersion: meta.schema_version, records: Number(n.rows[0]!.all), active: Number(n.rows[0]!.active), origins: o.rows.map((r) => ({ origin: r.origin ?? '(unknown)', records: Number(r.n) })) };
    });
    // Whether this command reached the store through a connection keeper, and how long one stays.
    return { ...s, keeper: { used: throughKeeper(await this.pool()), keepSeconds: keepMs(this.env) / 1000 } };
  }

  // -- sealing and hints ----------------------------------------------------------------------

  private hintKeys(keys: Keys, rec: VaultRecord): string[] {
    const out = new Set<string>([lookupHash(keys, 'op6', rec.opId.slice(0, PREFIX_LEN))]);
    if (rec.taskId) {
      out.add(lookupHash(keys, 'task6', rec.taskId.slice(0, PREFIX_LEN)));
      out.add(lookupHash(keys, 'task', rec.taskId));
    }
    for (const v of Object.values(rec.labels ?? {})) out.add(lookupHash(keys, 'label', v));
    if (rec.operation?.idempotencyKey) out.add(lookupHash(keys, 'idem', rec.operation.idempotencyKey));
    // Only while it holds no handle: the identical-call check reads no history (a settled record's write drops it).
    if (isUnsettled(rec) && rec.operation && rec.operation.name !== UNKNOWN_OPERATION) out.add(lookupHash(keys, 'intent', intentOf(rec)));
    return [...out];
  }

  /** What is sealed: the record without credentials (each person reconnects with their own), its writer with its host. */
  private storable(rec: VaultRecord): VaultRecord {
    const { secrets: _never, ...auth } = rec.auth;
    const out: VaultRecord = { ...rec, auth };
    delete out.pushPending;
    if (out.phase === 'submitting') out.writer = { ...currentWriter(), host: hostname() };
    else delete out.writer;
    return out;
  }

  private seal(keys: Keys, rec: VaultRecord, hop: string): Buffer {
    return sealBytes(keys.record, Buffer.from(JSON.stringify(rec), 'utf8'), hop);
  }

  private open(keys: Keys, sealed: Buffer, hop: string): VaultRecord {
    const plain = openBytes(keys.record, sealed, hop);
    if (!plain) this.fail(`a record in the team store ${this.shown} cannot be decrypted (altered, or sealed with another key); nothing was changed`, 'Check that the team key (MCP_TASKS_TEAM_KEY, or the one in the OS keychain) is this store\'s; a record altered in the database cannot be recovered from it.');
    return JSON.parse(plain.toString('utf8')) as VaultRecord;
  }

  /**
   * Write the record's row, its hints and the change notice in one statement (atomic on its own,
   * one round trip; inside update()'s transaction, part of it); `insert` only when absent.
   */
  private async writeRow(c: StoreClient, keys: Keys, rec: VaultRecord, mode: 'insert' | 'upsert' | 'update', ifVersion?: string): Promise<boolean> {
    const hop = hopOf(keys, rec.opId);
    const sealed = this.seal(keys, rec, hop);
    const args = [hop, sealed, rec.phase, rec.server.name, rec.createdAt, rec.updatedAt, rec.origin ? originText(rec.origin) : null, this.hintKeys(keys, rec), NOTIFY_CHANNEL, ...(ifVersion !== undefined ? [ifVersion] : [])];
    const conflict = mode === 'insert' ? 'DO NOTHING' : 'DO UPDATE SET sealed = EXCLUDED.sealed, phase = EXCLUDED.phase, server_name = EXCLUDED.server_name, updated_at = EXCLUDED.updated_at, version = mcp_tasks_records.version + 1';
    const write =
      mode === 'update'
        ? `UPDATE mcp_tasks_records SET sealed = $2, phase = $3, server_name = $4, created_at = $5, updated_at = $6, origin = COALESCE(origin, $7), version = version + 1 WHERE hop = $1${ifVersion !== undefined ? ' AND version = $10' : ''} RETURNING hop, version`
        : `INSERT INTO mcp_tasks_records (hop, sealed, phase, server_name, created_at, updated_at, origin) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (hop) ${conflict} RETURNING hop, version`;
    // The hints' foreign key is checked at the statement's end, when the row written above is there.
    const sql = `WITH rec AS (${write}),
      gone AS (DELETE FROM mcp_tasks_hints h USING rec WHERE h.hop = rec.hop AND NOT (h.hint = ANY($8::text[]))),
      added AS (INSERT INTO mcp_tasks_hints (hint, hop) SELECT x, rec.hop FROM rec, unnest($8::text[]) AS x ON CONFLICT DO NOTHING)
      SELECT pg_notify($9, hop), version FROM rec`;
    const written = (await c.query<{ version: string }>(sql, args)).rows[0];
    if (written) this.read.set(hop, { version: written.version, sealed });
    return written !== undefined;
  }

  /**
   * Records a query returns (hop, sealed, version); those of a small read (a ref, a watch turn)
   * are remembered for update()'s one-statement path, a listing's are not (nothing held at 1M).
   */
  private async rows(c: StoreQuery, keys: Keys, sql: string, args: unknown[]): Promise<VaultRecord[]> {
    return this.opened(keys, (await c.query<SealedRow>(sql, args)).rows);
  }

  /** Rows opened with the team key; a small read's are remembered for update(). */
  private opened(keys: Keys, rows: SealedRow[]): VaultRecord[] {
    const remember = rows.length <= REMEMBERED_READ;
    return rows.map((row) => {
      if (remember) this.read.set(row.hop, { version: row.version, sealed: row.sealed });
      return this.open(keys, row.sealed, row.hop);
    });
  }

  // -- the seam -------------------------------------------------------------------------------

  async check(): Promise<void> {
    await this.ready();
  }

  async prepare(): Promise<void> {
    await this.ready();
  }

  async get(opId: string): Promise<VaultRecord | undefined> {
    const keys = await this.ready();
    return (await this.once((q) => this.rows(q, keys, 'SELECT hop, sealed, version FROM mcp_tasks_records WHERE hop = $1', [hopOf(keys, opId)])))[0];
  }

  async put(record: VaultRecord): Promise<void> {
    const keys = await this.ready();
    const rec = this.storable(record);
    await this.with((c) => this.writeRow(c, keys, rec, 'upsert'));
  }

  async create(record: VaultRecord): Promise<boolean> {
    const keys = await this.ready();
    const rec = this.storable(record);
    return this.with((c) => this.writeRow(c, keys, rec, 'insert'));
  }

  async update(opId: string, change: (rec: VaultRecord) => void): Promise<VaultRecord | undefined> {
    const keys = await this.ready();
    const hop = hopOf(keys, opId);
    // Read here moments ago (a get, a watch turn): changed from that copy and written only if the
    // store still holds that version, one statement. Otherwise (another writer came between, or
    // the change refused the copy) the locked read-modify-write below decides on a fresh read.
    const last = this.read.get(hop);
    if (last) {
      const rec = this.open(keys, last.sealed, hop);
      let stored: VaultRecord | undefined;
      try {
        change(rec);
        stored = this.storable(rec);
      } catch {
        stored = undefined;
      }
      if (stored && (await this.with((c) => this.writeRow(c, keys, stored, 'update', last.version)))) return stored;
    }
    return this.with(async (c) => {
      const [rec] = await this.rows(c, keys, 'SELECT hop, sealed, version FROM mcp_tasks_records WHERE hop = $1 FOR UPDATE', [hop]);
      if (!rec) return undefined;
      change(rec);
      const stored = this.storable(rec);
      await this.writeRow(c, keys, stored, 'update');
      return stored;
    }, true);
  }

  async query(q: VaultQuery): Promise<VaultRecord[]> {
    const keys = await this.ready();
    if (q.limit !== undefined && q.limit <= 0) return [];
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.listedByDefault) where.push(`phase IN (${LISTED_PHASES.map((p) => `'${p}'`).join(', ')})`);
    // Narrowed by what every kept record carries: its server (a column), its label values (hints, keyed hashes).
    if (q.narrow?.server !== undefined) where.push(`server_name = $${args.push(q.narrow.server)}`);
    for (const v of new Set(q.narrow?.labelValues ?? [])) where.push(`hop IN (SELECT hop FROM mcp_tasks_hints WHERE hint = $${args.push(lookupHash(keys, 'label', v))})`);
    return this.once(async (c) => {
      // Without a filter to apply after decryption, the database stops at the limit.
      const limit = q.limit !== undefined && !q.match ? ` LIMIT ${Math.floor(q.limit)}` : '';
      const recs = await this.rows(c, keys, `SELECT hop, sealed, version FROM mcp_tasks_records ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, hop DESC${limit}`, args);
      let out = recs.filter((r) => (!q.listedByDefault || listedByDefault(r.phase)) && (!q.match || q.match(r)));
      if (q.limit !== undefined) out = out.slice(0, q.limit);
      return out.reverse().sort(byCreatedAt);
    });
  }

  async answersNearby(): Promise<boolean> {
    return throughKeeper(await this.pool());
  }

  /** A row that does not open with the team key is an error when read, not a mark: none to list. */
  async damagedHops(): Promise<Set<string>> {
    return new Set();
  }

  async list(): Promise<VaultRecord[]> {
    return this.query({});
  }

  async listing(q: ListingQuery): Promise<ListingRow[]> {
    return (await this.query(q)).map((r) => ListingRow.of(r.opId, r, this.listRows));
  }

  async listed(q: Omit<ListingQuery, 'limit'>): Promise<ListedRows> {
    const rows = await this.listing(q);
    // The total is read only for the words of an empty list (a count over every row costs at 1M).
    const total = rows.length ? rows.length : await this.count();
    return {
      each: (row) => {
        for (const r of rows) row(r);
      },
      total: () => total,
    };
  }

  async count(): Promise<number> {
    await this.ready();
    return this.once(async (c) => Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM mcp_tasks_records')).rows[0]!.n));
  }

  /**
   * The records the early opening found for this ref, taken once, if it hashed the ref with the
   * keys the store opened with (the salt this home remembered is still the store's). Undefined:
   * look now (a failure there is reported as any read's).
   */
  private async lookedUpEarly(ref: string, keys: Keys): Promise<FoundRow[] | undefined> {
    const early = this.refRead;
    this.refRead = undefined;
    if (early?.ref !== ref || !early.index.equals(keys.index)) return undefined;
    return early.rows.catch(() => undefined);
  }

  /** One round trip: every way the ref could name a record, tagged, then decided here in the file vault's order. */
  async resolve(ref: string): Promise<VaultRecord | undefined> {
    const keys = await this.ready();
    const rows =
      (await this.lookedUpEarly(ref, keys)) ??
      (await this.once(async (c) => {
        const { text, values } = refLookup(keys, ref);
        return (await c.query<FoundRow>(text, values)).rows;
      }));
    const opened = new Map<string, VaultRecord>();
    const by = (via: string[], accept: (r: VaultRecord) => boolean) => {
      const out = new Map<string, VaultRecord>();
      for (const row of rows) {
        if (!via.includes(row.via)) continue;
        let rec = opened.get(row.hop);
        if (!rec) {
          rec = this.open(keys, row.sealed, row.hop);
          this.read.set(row.hop, { version: row.version, sealed: row.sealed });
          opened.set(row.hop, rec);
        }
        if (accept(rec)) out.set(rec.opId, rec);
      }
      return [...out.values()].sort(byCreatedAt);
    };
    const exact = by(['op', 'task'], (r) => r.opId === ref || r.taskId === ref);
    if (exact.length === 1) return exact[0];
    if (exact.length > 1) throw ambiguous(ref, exact);
    const byLabel = by(['label'], (r) => Object.values(r.labels).includes(ref));
    if (byLabel.length === 1) return byLabel[0];
    if (byLabel.length > 1) throw ambiguous(ref, byLabel);
    if (ref.length >= MIN_REF_PREFIX) {
      const byPrefix = by(['task6', 'op6'], (r) => r.taskId?.startsWith(ref) === true || r.opId.startsWith(ref));
      if (byPrefix.length === 1) return byPrefix[0];
      if (byPrefix.length > 1) throw ambiguous(ref, byPrefix);
    }
    return undefined;
  }

  /**
   * Only records still submitting or in doubt carry the intent hint, and only those rows are read
   * and opened: a call repeated daily for a year decrypts no history. Settled rows still hinted
   * (written by an earlier version) lose the hint here, a few hundred a call, each row locked so
   * that a writer making it unsettled again (a resubmission) is waited for and keeps its hint.
   */
  async unsettledSameIntent(probe: IntentOf): Promise<VaultRecord[]> {
    const keys = await this.ready();
    const intent = intentOf(probe);
    const hint = lookupHash(keys, 'intent', intent);
    return this.with(async (c) => {
      const r = await c.query<Omit<SealedRow, 'sealed'> & { sealed: Buffer | null }>(
        `SELECT r.hop, CASE WHEN ${UNSETTLED_PHASE} THEN r.sealed END AS sealed, r.version FROM mcp_tasks_hints h JOIN mcp_tasks_records r ON r.hop = h.hop WHERE h.hint = $1`,
        [hint],
      );
      const stale = r.rows.filter((row) => row.sealed === null).slice(0, STALE_HINTS_DROPPED).map((row) => row.hop);
      if (stale.length) {
        await c.query(`DELETE FROM mcp_tasks_hints h USING (SELECT r.hop FROM mcp_tasks_records r WHERE r.hop = ANY($2::text[]) AND NOT ${UNSETTLED_PHASE} FOR UPDATE) s WHERE h.hint = $1 AND h.hop = s.hop`, [hint, stale]);
      }
      const open = r.rows.filter((row): row is SealedRow => row.sealed !== null);
      return this.opened(keys, open).filter((rec) => isUnsettled(rec) && rec.operation.name !== UNKNOWN_OPERATION && intentOf(rec) === intent).sort(byCreatedAt);
    });
  }

  /**
   * Insert what is new, a batch at a time (one transaction and three statements per batch: the
   * handles already held, the rows, their hints and notices): `store push`, `import` and seeding
   * a million records take minutes, not hours.
   */
  async merge(records: VaultRecord[]): Promise<number> {
    const keys = await this.ready();
    let added = 0;
    const handles = new Set<string>();
    const handleOf = (r: VaultRecord) => (r.taskId ? `${r.server.name}\0${r.taskId}` : undefined);
    for (let i = 0; i < records.length; i += MERGE_BATCH) {
      const batch: VaultRecord[] = [];
      for (const r of records.slice(i, i + MERGE_BATCH)) {
        const handle = handleOf(r);
        if (handle && handles.has(handle)) continue;
        if (handle) handles.add(handle);
        batch.push(r);
      }
      added += await this.with(async (c) => {
        // A task the store already holds under another operation id is not added twice.
        const taskHints = batch.flatMap((r) => (r.taskId ? [lookupHash(keys, 'task', r.taskId)] : []));
        const held = new Set((taskHints.length ? await this.rows(c, keys, 'SELECT DISTINCT r.hop, r.sealed, r.version FROM mcp_tasks_hints h JOIN mcp_tasks_records r ON r.hop = h.hop WHERE h.hint = ANY($1::text[])', [taskHints]) : []).map(handleOf));
        const fresh = batch.filter((r) => !held.has(handleOf(r))).map((r) => this.storable(r));
        if (!fresh.length) return 0;
        const hops = fresh.map((r) => hopOf(keys, r.opId));
        const inserted = await c.query<{ hop: string }>(
          `INSERT INTO mcp_tasks_records (hop, sealed, phase, server_name, created_at, updated_at, origin)
           SELECT * FROM unnest($1::text[], $2::bytea[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::text[])
           ON CONFLICT (hop) DO NOTHING RETURNING hop`,
          [hops, fresh.map((r, k) => this.seal(keys, r, hops[k]!)), fresh.map((r) => r.phase), fresh.map((r) => r.server.name), fresh.map((r) => r.createdAt), fresh.map((r) => r.updatedAt), fresh.map((r) => (r.origin ? originText(r.origin) : null))],
        );
        const landed = new Set(inserted.rows.map((r) => r.hop));
        const pairs = fresh.flatMap((r, k) => (landed.has(hops[k]!) ? this.hintKeys(keys, r).map((h) => [h, hops[k]!] as const) : []));
        if (pairs.length) await c.query('INSERT INTO mcp_tasks_hints (hint, hop) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING', [pairs.map((p) => p[0]), pairs.map((p) => p[1])]);
        if (landed.size) await c.query('SELECT pg_notify($1, h) FROM unnest($2::text[]) AS h', [NOTIFY_CHANNEL, [...landed]]);
        return landed.size;
      }, true);
    }
    return added;
  }

  bulkInsert(records: VaultRecord[]): Promise<number> {
    return this.merge(records);
  }

  async remove(opIds: string[]): Promise<number> {
    if (!opIds.length) return 0;
    const keys = await this.ready();
    return this.with(async (c) => (await c.query('DELETE FROM mcp_tasks_records WHERE hop = ANY($1)', [opIds.map((id) => hopOf(keys, id))])).rowCount ?? 0, true);
  }

  /**
   * Every record another machine (or this one) writes from now on, as it is committed, until
   * `signal` aborts: LISTEN on the store's channel, whose payload is only the record's hop (the
   * record stays sealed; it is read and opened here). One connection of its own, outside the pool.
   */
  async follow(onChange: (rec: VaultRecord) => void, signal: AbortSignal, listening?: () => void): Promise<void> {
    const keys = await this.ready();
    const client = new (teamStoreClient(this.env))({ connectionString: this.url, application_name: 'mcp-tasks follow' });
    try {
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      listening?.();
    } catch (err) {
      await client.end().catch(() => {});
      this.dbError(err);
    }
    let chain = Promise.resolve();
    let ended = false;
    try {
      await new Promise<void>((resolve, reject) => {
        const stop = () => resolve();
        if (signal.aborted) return resolve();
        signal.addEventListener('abort', stop, { once: true });
        client.on('error', (err) => reject(err));
        client.on('end', () => (signal.aborted ? resolve() : reject(new Error('the connection to the team store closed'))));
        client.on('notification', (n) => {
          const hop = n.payload;
          // Nothing more is read once it has stopped or failed.
          if (!hop || ended || signal.aborted) return;
          // In commit order, one at a time: a record changed twice is shown twice, latest last.
          chain = chain.then(async () => {
            const [rec] = await this.once((c) => this.rows(c, keys, 'SELECT hop, sealed, version FROM mcp_tasks_records WHERE hop = $1', [hop]));
            if (rec) onChange(rec);
          }).catch(reject);
        });
      });
    } catch (err) {
      this.dbError(err);
    } finally {
      ended = true;
      await client.end().catch(() => {});
      // It returns only once the reads it began have ended: none is left holding a connection.
      await chain;
    }
  }

  async close(): Promise<void> {
    await closePool(this.url, this.home);
  }
}

function ambiguous(ref: string, recs: VaultRecord[]): AmbiguousRefError {
  const list = recs.slice(0, 5).map((r) => `${typeableRef(r, 10)} (${r.server.name} ${r.operation.name})`).join(', ');
  return new AmbiguousRefError(ref, recs.length, `"${ref}" matches ${recs.length} records in the team store: ${list}${recs.length > 5 ? ', …' : ''}`);
}
