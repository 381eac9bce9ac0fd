// Named servers: what `server add` stores and what `connect` needs. Secrets are never stored
// in clear here: a bearer token is referenced by the name of the variable that holds it.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { nodeBinary } from '../fs/own-process.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { defaultDemoStore } from '../home.js';
import type { TaskGeneration } from '../protocol/constants.js';

export interface HttpServerEntry {
  name: string;
  transport: 'http';
  url: string;
  /** Non-secret static headers. Secret-looking headers are refused at `server add`. */
  headers?: Record<string, string>;
  /** Name of the environment variable holding a bearer token, read at connect time. */
  bearerEnv?: string;
  allowHttp?: boolean;
  roots?: string[];
  idempotencyMeta?: string;
  /** The generation `server check` (or the first connection) found, so later calls need no probe. */
  discovered?: DiscoveredGeneration;
}

export interface StdioServerEntry {
  name: string;
  transport: 'stdio';
  command: string;
  args: string[];
  /** Environment for the child. Values are stored; use `KEY` alone to pass the caller's value through. */
  env?: Record<string, string>;
  cwd?: string;
  roots?: string[];
  idempotencyMeta?: string;
  discovered?: DiscoveredGeneration;
  /** Set only for the built-in `demo` server. */
  builtin?: 'demo';
}

export type ServerEntry = HttpServerEntry | StdioServerEntry;

/** What a handshake found about a server, cached in servers.json (`discovered`). */
export interface DiscoveredGeneration {
  protocolVersion: string;
  /** Older servers.json files hold the SDK's word instead: converted on read (server-store.ts). */
  generation: TaskGeneration;
  tasksAdvertised: boolean;
  serverInfo?: { name: string; version: string };
  /** The DiscoverResult, replayed to the SDK so a modern connection needs no probe. */
  discover?: Record<string, unknown>;
  checkedAt: string;
  /** The server's tools as last listed, so a `call` within TOOLS_CACHE_TTL_MS skips tools/list. */
  tools?: CachedTool[];
  toolsListedAt?: string;
}

/** A tool as tools/list described it (server text: sanitized wherever it is shown). */
export interface CachedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; title?: string };
}

/** How long a listed tool set is used without asking again; `server check` refreshes it at once. */
export const TOOLS_CACHE_TTL_MS = 10 * 60_000;

/** The identity a task handle is bound to: a handle is only ever sent where it was created. */
export type ServerIdentity =
  | { kind: 'http'; url: string }
  | { kind: 'stdio'; command: string; argsDigest: string }
  | { kind: 'builtin-demo'; store: string };

export const DEMO_SERVER_NAME = 'demo';

const BIN_PATH = join(PACKAGE_ROOT, 'bin', 'mcp-tasks.js');

/** The built-in `demo` server: the embedded demo server over stdio, its store in the home dir. */
export function demoEntry(home: string): StdioServerEntry {
  return {
    name: DEMO_SERVER_NAME,
    transport: 'stdio',
    command: nodeBinary,
    args: [BIN_PATH, 'demo-server', '--stdio', '--store', defaultDemoStore(home)],
    builtin: 'demo',
    idempotencyMeta: 'io.github.mcp-tasks/idempotency-key',
  };
}

export function identityOf(entry: ServerEntry, home: string): ServerIdentity {
  if (entry.transport === 'http') return { kind: 'http', url: normalizeUrl(entry.url) };
  if (entry.builtin === 'demo') return { kind: 'builtin-demo', store: defaultDemoStore(home) };
  const digest = createHash('sha256').update(JSON.stringify([entry.command, ...entry.args])).digest('hex').slice(0, 16);
  return { kind: 'stdio', command: entry.command, argsDigest: digest };
}

export function sameIdentity(a: ServerIdentity, b: ServerIdentity): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function describeIdentity(id: ServerIdentity): string {
  switch (id.kind) {
    case 'http':
      return id.url;
    case 'stdio':
      return `stdio: ${id.command} (args ${id.argsDigest})`;
    case 'builtin-demo':
      return `built-in demo server (store ${id.store})`;
  }
}

export function normalizeUrl(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.toString();
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
export const isLoopbackUrl = (url: URL) => LOOPBACK.has(url.hostname) || url.hostname.startsWith('127.');

/** Header names whose values are credentials: never stored in clear, never printed. */
export const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|x-api-key|api-key|x-auth-token)$/i;
/** Query parameter names that carry credentials (api_key, access_token, token, key, secret, sig, …). */
export const SECRET_QUERY_PARAM = /^(?:api[-_]?key|apikey|key|access[-_]?token|token|auth|authorization|secret|client[-_]?secret|password|passwd|pwd|sig|signature|x-api-key|session)$/i;

export function authKind(entry: ServerEntry): 'none' | 'bearer-env' | 'env-headers' {
  if (entry.transport !== 'http') return 'none';
  if (entry.bearerEnv) return 'bearer-env';
  return Object.values(entry.headers ?? {}).some((v) => v.startsWith('env:')) ? 'env-headers' : 'none';
}

/** Names of the environment variables a server entry reads credentials from at connect time. */
export function secretVariables(entry: ServerEntry): string[] {
  if (entry.transport !== 'http') return [];
  const names = Object.values(entry.headers ?? {}).filter((v) => v.startsWith('env:')).map((v) => v.slice(4));
  if (entry.bearerEnv) names.unshift(entry.bearerEnv);
  return [...new Set(names)];
}
