// What the team store's connection keeper (pg-keeper.ts) and the commands that use it
// (pg-keeper-client.ts) share: where its socket is, how long it stays, what it is given, and the
// messages between them.
//
// Messages are JSON, one per line. A command asks; the keeper answers with the same `i`:
//   {i, t: 'lease'}                          → {i, ok: true}            a connection, held for the command
//   {i, t: 'query', l, text, values}         → {i, rows, rowCount}      on lease l
//   {i, t: 'query', text, values}            → {i, rows, rowCount}      no lease: a read, on a connection taken for it alone
//   {i, t: 'release', l, broken}             (no answer)                the lease ends; broken: never reuse
//   any request that fails                   → {i, error: {message, code?, silent?}}
// Buffers (bytea) and Dates travel as {$b: base64} and {$d: ISO time}, in values and in rows.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** The protocol's version: part of the socket's name, so a command never talks to a keeper of another. */
export const KEEPER_PROTOCOL = 2;

/** How long a keeper stays after its last command, by default (MCP_TASKS_STORE_KEEP, in seconds). */
export const DEFAULT_KEEP_S = 300;

/** How long the keeper stays after its last command, in ms; 0: no keeper (MCP_TASKS_STORE_KEEP=0). */
export function keepMs(env: NodeJS.ProcessEnv): number {
  const raw = env.MCP_TASKS_STORE_KEEP;
  if (raw === undefined || raw.trim() === '') return DEFAULT_KEEP_S * 1000;
  const s = Number(raw);
  return Number.isFinite(s) && s > 0 ? Math.round(s * 1000) : 0;
}

/**
 * The variables the driver reads beside the URL (libpq's): they decide who signs in, so they are
 * part of the keeper's identity, and the keeper is given them. Nothing else of the command's
 * environment reaches it: not the team key, not a server's bearer token.
 */
const DRIVER_ENV = /^(PG(HOST|PORT|USER|PASSWORD|DATABASE|SSLMODE|SSLROOTCERT|SSLCERT|SSLKEY|PASSFILE|APPNAME|OPTIONS|CONNECT_TIMEOUT|CLIENTENCODING|TZ|SERVICE)|HOME|USER|USERNAME|APPDATA|NODE_EXTRA_CA_CERTS)$/;

/** The environment a keeper starts with: the store, its timeouts and lifetime, what the driver reads. */
export function keeperEnv(url: string, env: NodeJS.ProcessEnv, socket: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { MCP_TASKS_STORE: url, MCP_TASKS_KEEPER_SOCKET: socket, MCP_TASKS_STORE_KEEP: String(keepMs(env) / 1000) };
  if (env.MCP_TASKS_STORE_TIMEOUT_MS !== undefined) out.MCP_TASKS_STORE_TIMEOUT_MS = env.MCP_TASKS_STORE_TIMEOUT_MS;
  for (const [k, v] of Object.entries(env)) if (DRIVER_ENV.test(k) && v !== undefined) out[k] = v;
  return out;
}

/** The longest socket path every platform takes (macOS: 104 bytes with the terminator). */
const MAX_SOCKET_PATH = 103;

/**
 * The keeper's socket for this store as this environment signs in to it: in the home's `keep/`
 * directory (0700: only this user reaches it), named by a hash of the URL (password included) and
 * the driver's variables, so another login never reaches a keeper signed in as someone else.
 * None where the path would be too long for a socket.
 */
export function keeperSocketPath(home: string, url: string, env: NodeJS.ProcessEnv): string | undefined {
  const h = createHash('sha256').update(`mcp-tasks keeper v${KEEPER_PROTOCOL}\0${url}`);
  for (const k of Object.keys(env).filter((k) => DRIVER_ENV.test(k)).sort()) h.update(`\0${k}=${env[k] ?? ''}`);
  const path = join(home, 'keep', `pg${KEEPER_PROTOCOL}-${h.digest('hex').slice(0, 20)}.sock`);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH ? path : undefined;
}

/** A value as it travels: Buffers and Dates tagged, arrays element by element. */
export function encodeValue(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return { $b: v.toString('base64') };
  if (v instanceof Date) return { $d: v.toISOString() };
  if (Array.isArray(v)) return v.map(encodeValue);
  return v;
}

/** A value as it was before encodeValue. */
export function decodeValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(decodeValue);
  const o = v as { $b?: unknown; $d?: unknown };
  if (typeof o.$b === 'string') return Buffer.from(o.$b, 'base64');
  if (typeof o.$d === 'string') return new Date(o.$d);
  return v;
}

/** Rows with each column's value encoded (or decoded). */
export const mapRows = (rows: Array<Record<string, unknown>>, f: (v: unknown) => unknown): Array<Record<string, unknown>> =>
  rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(row)) out[k] = f(row[k]);
    return out;
  });

/** A failure as it travels: what the store's error reporting reads (message, SQLSTATE or errno code; silent: the database did not answer). */
export interface WireError {
  message: string;
  code?: string;
  silent?: boolean;
}

/** Splits a stream of UTF-8 text into lines, calling `line` for each complete one (a character cut between chunks stays whole). */
export function lineReader(line: (text: string) => void): (chunk: Buffer | string) => void {
  let rest = '';
  const utf8 = new StringDecoder('utf8');
  return (chunk) => {
    rest += typeof chunk === 'string' ? chunk : utf8.write(chunk);
    let nl: number;
    while ((nl = rest.indexOf('\n')) >= 0) {
      const text = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      if (text) line(text);
    }
  };
}
