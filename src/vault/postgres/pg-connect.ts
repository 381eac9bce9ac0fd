// Reaching the team store: its connections (through the store's connection keeper when one runs
// for this home, pg-keeper-client.ts; else a pool of the command's own per store), the meta row
// (schema version, the team key's salt and cost, the sealed key check), and an opening begun
// early. The driver (`pg`, pg-driver.ts) is loaded on the first connection of the command's own,
// never before (never through a keeper).
//
// Start-up: the team key's scrypt (the key from team-key-source.ts) runs on the thread pool from
// the store's salt as this home last saw it (<home>/team-stores.json: salt and cost only, which
// anyone who can read the database sees anyway), while the driver loads, connects and reads the meta row; the database's salt still
// decides, and its key check. main begins this as soon as a command line that uses the store has
// parsed (warmTeamStore), so it overlaps the command's own start-up; through a keeper, the task
// ref the command names is looked up in the meta row's statement. Small on purpose: the opening
// must not wait for the modules the command itself loads.
import { scrypt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir, writeFileAtomic } from '../../fs/atomic-file.js';
import { GENERATED_KEY_COST, generatedKeyBytes, generatedMaster } from './team-key.js';
import { lookUpTeamKey } from './team-key-source.js';
import { loadPg } from './pg-driver.js';
import { patientClient } from './pg-patient.js';
import { isTeamStoreUrl, redactStoreUrl } from './store-url.js';
import { keptPool, throughKeeper, type StorePool, type StoreQuery } from './pg-keeper-client.js';
import { deriveKeys, metaAndRefLookup, type FoundRow } from './pg-lookup.js';

/** The highest scrypt cost a store (or the salt cache) may ask for: 2^20 needs 1 GiB. */
const MAX_SCRYPT_N = 2 ** 20;

export interface Meta {
  schema_version: number;
  key_salt: string;
  key_n: number;
  key_check: Buffer;
}

const scryptAsync = (pass: string, salt: Buffer, N: number) =>
  new Promise<Buffer>((resolve, reject) => scrypt(pass, salt, 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))));

/** Master keys derived in this process, by salt, cost and team key (in memory only): each derived once, however many store objects ask. */
const masters = new Map<string, Promise<Buffer>>();

/**
 * The store's master key from the team key and its salt: a passphrase stretched (scrypt, on the
 * thread pool), a generated key (cost 0) through HKDF alone. A cost-0 store given a passphrase
 * rejects here, so the key check is never tried against a weaker key.
 */
export function masterKey(pass: string, salt: string, n: number): Promise<Buffer> {
  const id = `${salt}\0${n}\0${pass}`;
  let m = masters.get(id);
  if (!m) {
    const saltBytes = Buffer.from(salt, 'base64');
    const generated = generatedKeyBytes(pass);
    if (n !== GENERATED_KEY_COST) m = scryptAsync(pass, saltBytes, n);
    else m = generated ? Promise.resolve(generatedMaster(generated, saltBytes)) : Promise.reject(new NotAGeneratedKey());
    masters.set(id, m);
    m.catch(() => masters.delete(id));
  }
  return m;
}

/** A store created with a generated key, opened with a passphrase. */
export class NotAGeneratedKey extends Error {}

/** A key cost a store may name: 0 (a generated key), or a scrypt N (a power of two, 2 to 2^20). */
export const validCost = (n: unknown): n is number => n === GENERATED_KEY_COST || (Number.isInteger(n) && (n as number) >= 2 && (n as number) <= MAX_SCRYPT_N && ((n as number) & ((n as number) - 1)) === 0);

/** A salt and cost, and the master key being derived from them (started before the store is asked). */
export interface Derivation {
  salt: string;
  n: number;
  master: Promise<Buffer>;
}

/** The salts of the team stores this home has opened, by store (its URL without the password). */
const saltCachePath = (home: string) => join(home, 'team-stores.json');

function cachedSalts(home: string): Record<string, { salt: string; n: number }> {
  try {
    const parsed = JSON.parse(readFileSync(saltCachePath(home), 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, { salt: string; n: number }>) : {};
  } catch {
    return {};
  }
}

/** How long to wait for the database to take a connection (MCP_TASKS_STORE_TIMEOUT_MS, default 10 s). */
export const connectTimeoutMs = (env: NodeJS.ProcessEnv): number => (Number(env.MCP_TASKS_STORE_TIMEOUT_MS) > 0 ? Number(env.MCP_TASKS_STORE_TIMEOUT_MS) : 10_000);

/** The driver's Client with the store's connect and query timeouts, counted as this process runs. */
export const teamStoreClient = (env: NodeJS.ProcessEnv) => patientClient(loadPg(), connectTimeoutMs(env), connectTimeoutMs(env) * 3);

/** One pool per store URL and home per process; idle connections never keep a finished command alive. */
const pools = new Map<string, Promise<StorePool>>();
const poolKey = (url: string, home: string) => `${home}\0${url}`;

/** The command's own connections: the driver loaded, each connection signed in by this process. */
async function directPool(url: string, env: NodeJS.ProcessEnv): Promise<StorePool> {
  const pg = loadPg();
  // The driver's own timeouts stay unset: a loaded machine's stalls would trip them (pg-patient.ts).
  const pool = new pg.Pool({ connectionString: url, max: 4, allowExitOnIdle: true, idleTimeoutMillis: 2_000, Client: teamStoreClient(env), application_name: 'mcp-tasks' });
  // A connection dropped while idle (a restarted server) is replaced on the next query.
  pool.on('error', () => {});
  return pool as unknown as StorePool;
}

/**
 * The store's connections for this home: through its connection keeper when one runs
 * (pg-keeper-client.ts), the command's own otherwise. How long to wait for the keeper: as long as
 * the keeper itself waits for the database to take a connection and answer a query, and a margin.
 */
export async function poolFor(url: string, env: NodeJS.ProcessEnv, home: string): Promise<StorePool> {
  let p = pools.get(poolKey(url, home));
  if (!p) {
    p = (async () => {
      const direct = () => directPool(url, env);
      return (await keptPool(home, url, env, connectTimeoutMs(env) * 4 + 5_000, direct)) ?? direct();
    })();
    pools.set(poolKey(url, home), p);
  }
  return p;
}

/** No mcp-tasks schema: the meta table does not exist. */
const noSchema = (err: unknown): undefined => {
  if ((err as { code?: string }).code === '42P01') return undefined;
  throw err;
};

/** The store's meta row; none where there is no schema yet. One round trip; never inside a transaction that must survive it. */
export async function readMeta(c: StoreQuery): Promise<Meta | undefined> {
  return c.query<Meta>('SELECT schema_version, key_salt, key_n, key_check FROM mcp_tasks_meta WHERE id = 1').then((r) => r.rows[0], noSchema);
}

/**
 * The meta row, and the records a ref names looked up with the keys of the salt this home saw
 * last: one statement. Only its keyed hashes leave; the store takes the records only if the
 * database's salt and key check give the same keys (pg-store.ts), and looks again otherwise.
 */
function readMetaAndRef(c: StoreQuery, master: Buffer, ref: string): { meta: Promise<Meta | undefined>; refRead: RefRead } {
  const keys = deriveKeys(master);
  const { text, values } = metaAndRefLookup(keys, ref);
  const both = c.query<FoundRow & { n: number | null }>(text, values);
  const meta = both.then((r) => {
    const m = r.rows.find((row) => row.via === 'meta');
    return m && { schema_version: Number(m.version), key_salt: m.hop, key_n: m.n!, key_check: m.sealed };
  }, noSchema);
  const rows = both.then((r) => r.rows.filter((row) => row.via !== 'meta'));
  rows.catch(() => {});
  return { meta, refRead: { ref, index: keys.index, rows } };
}

/** The master key from the salt this home saw last for the store, started now, on the thread pool. */
export function earlyDerivation(home: string, store: string, pass: string): Derivation | undefined {
  const seen = cachedSalts(home)[store];
  if (!seen || typeof seen.salt !== 'string' || !validCost(seen.n)) return undefined;
  const master = masterKey(pass, seen.salt, seen.n);
  master.catch(() => {}); // unused when the store's salt differs; a real failure shows on the slow path
  return { salt: seen.salt, n: seen.n, master };
}

/** The records a ref names, as the early opening looked them up, and the index key it hashed the ref with. */
export interface RefRead {
  ref: string;
  index: Buffer;
  rows: Promise<FoundRow[]>;
}

/** What warmTeamStore began for a store and home: the meta row being read, the key being derived, maybe a ref being looked up. */
export interface Opening {
  meta: Promise<Meta | undefined>;
  early: Derivation | undefined;
  refRead?: RefRead;
}
const openings = new Map<string, Opening>();
// Keyed by the team key too (in memory only): an opening is never taken by a command given another key.
const openingKey = (url: string, home: string, pass: string) => `${url}\0${home}\0${pass}`;

/**
 * Begin opening the team store MCP_TASKS_STORE names before a command asks for it: the key
 * derivation starts on the thread pool, the keeper's socket is tried and, without a keeper, the
 * driver loads (awaited: loaded while the command's own modules load, it would wait for all of
 * them), then the meta row is read while the command starts. Never fails: errors wait for the
 * command, which opens the store again the ordinary way and reports them. True when the store is
 * reached through a keeper. `ref`: the task ref the command looks up first (get, watch, answer,
 * cancel, show).
 */
export async function warmTeamStore(home: string, env: NodeJS.ProcessEnv, ref?: string): Promise<boolean> {
  const url = env.MCP_TASKS_STORE;
  if (!isTeamStoreUrl(url)) return false;
  const pass = lookUpTeamKey(url, env).key;
  if (!pass || pass.length < 12 || openings.has(openingKey(url, home, pass))) return false;
  try {
    const early = earlyDerivation(home, redactStoreUrl(url), pass);
    const pool = await poolFor(url, env, home);
    const kept = throughKeeper(pool);
    // Through a keeper, the ref the command will look up first goes with the meta row's read, so
    // its answer waits while the command's modules load (a second statement beside it would take
    // a second connection). With a generated key, whose keys come at once: a passphrase's scrypt
    // would hold the command's start until it ends.
    const master = kept && ref && early?.n === GENERATED_KEY_COST ? await early.master.catch(() => undefined) : undefined;
    const opening: Opening = master && ref ? { ...readMetaAndRef(pool, master, ref), early } : { meta: readMeta(pool), early };
    opening.meta.catch(() => {});
    openings.set(openingKey(url, home, pass), opening);
    // Through a keeper the connection is ready: no driver to load, no sign-in to wait out.
    if (kept) return true;
    // One turn of the event loop, so the socket's connect (queued for the next tick) leaves now:
    // Node 22+ loads the command's modules in one synchronous run, which would hold it back until
    // the end, and the database can fork the connection's backend meanwhile.
    await new Promise<void>((resolve) => setImmediate(resolve));
  } catch { /* the command opens the store itself and reports it */ }
  return false;
}

/** What warmTeamStore began for this store and home, taken once (the store object reads it then opens on its own). */
export function takeOpening(url: string, home: string, pass: string): Opening | undefined {
  const begun = openings.get(openingKey(url, home, pass));
  openings.delete(openingKey(url, home, pass));
  return begun;
}

/** Remember the store's salt and cost for the next start (not secret: the database holds them in clear). */
export function rememberSalt(home: string, store: string, salt: string, n: number): void {
  try {
    const all = cachedSalts(home);
    all[store] = { salt, n };
    ensureDir(home);
    writeFileAtomic(saltCachePath(home), `${JSON.stringify(all, null, 2)}\n`);
  } catch { /* only a slower next start */ }
}

/** End the store's pool for this home (its idle connections, its link to a keeper); the next use opens a new one. */
export async function closePool(url: string, home: string): Promise<void> {
  const p = pools.get(poolKey(url, home));
  pools.delete(poolKey(url, home));
  if (p) await (await p).end().catch(() => {});
}
