// The team store's keys and lookup keys: the two keys derived from the master key, the keyed
// hashes the database filters on, and the statement that finds a ref. Apart from pg-store.ts
// because the early opening (pg-connect.ts) sends that statement, with the meta row's read, while
// the command's modules still load, before the store object exists.
import { createHmac, hkdfSync } from 'node:crypto';

export interface Keys {
  /** Seals and opens records (AES-256-GCM). */
  record: Buffer;
  /** Keys the lookup hashes (HMAC-SHA-256). */
  index: Buffer;
}

/** A record's row as read: its hop, the sealed record, its version. */
export interface SealedRow {
  hop: string;
  sealed: Buffer;
  version: string;
}

/** A row of a ref's lookup: a record, and the way the ref found it. */
export type FoundRow = SealedRow & { via: string };

export const PREFIX_LEN = 6;
export const MIN_REF_PREFIX = 6;

/** Keys by master key: derived once per process, however often the store is opened. */
const derived = new WeakMap<Buffer, Keys>();

export function deriveKeys(master: Buffer): Keys {
  let keys = derived.get(master);
  if (!keys) {
    const k = (info: string) => Buffer.from(hkdfSync('sha256', master, Buffer.from('mcp-tasks-team-store'), info, 32));
    keys = { record: k('record-v1'), index: k('index-v1') };
    derived.set(master, keys);
  }
  return keys;
}

/** A lookup key: the keyed hash of a value of one kind (taskId, label value, …). */
export function lookupHash(keys: Keys, kind: string, value: string, len = 22): string {
  return createHmac('sha256', keys.index).update(`${kind}\0${value}`).digest('base64url').slice(0, len);
}

/** A record's row key: the keyed hash of its opId. */
export const hopOf = (keys: Keys, opId: string): string => lookupHash(keys, 'op', opId, 32);

/**
 * One statement for every way a ref could name a record (its opId, its taskId, a label value, a
 * 6-character prefix of either id), each row tagged with the way it found it (`via`). `more`:
 * columns each row adds (after `version`), to match another statement's in a UNION.
 */
export function refLookup(keys: Keys, ref: string, more = ''): { text: string; values: string[] } {
  const ways: Array<[string, string]> = [
    ['task', lookupHash(keys, 'task', ref)],
    ['label', lookupHash(keys, 'label', ref)],
  ];
  if (ref.length >= MIN_REF_PREFIX) ways.push(['task6', lookupHash(keys, 'task6', ref.slice(0, PREFIX_LEN))], ['op6', lookupHash(keys, 'op6', ref.slice(0, PREFIX_LEN))]);
  const text = [
    `SELECT 'op' AS via, hop, sealed, version${more} FROM mcp_tasks_records WHERE hop = $1`,
    ...ways.map(([via], i) => `SELECT '${via}', r.hop, r.sealed, r.version${more} FROM mcp_tasks_hints h JOIN mcp_tasks_records r ON r.hop = h.hop WHERE h.hint = $${i + 2}`),
  ].join(' UNION ALL ');
  return { text, values: [hopOf(keys, ref), ...ways.map(([, h]) => h)] };
}

/**
 * The meta row and a ref's lookup in one statement: one round trip and one connection where two
 * would run side by side. The meta row is tagged `meta`: its salt as `hop`, its key check as
 * `sealed`, its schema version as `version`, its key cost as `n` (null on the records' rows).
 */
export function metaAndRefLookup(keys: Keys, ref: string): { text: string; values: string[] } {
  const lookup = refLookup(keys, ref, ', NULL');
  return { text: `SELECT 'meta' AS via, key_salt AS hop, key_check AS sealed, schema_version::bigint AS version, key_n AS n FROM mcp_tasks_meta WHERE id = 1 UNION ALL ${lookup.text}`, values: lookup.values };
}
