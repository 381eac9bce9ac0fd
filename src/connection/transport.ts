// The SDK transport a connection rides on: Streamable HTTP (headers and bearer read from the
// environment at connect time, every answer read within bounds) or a spawned stdio server.
import type { Transport } from '@modelcontextprotocol/client';
import { MissingSecretError, PlainHttpRefusedError } from './connection-errors.js';
import { isLoopbackUrl, type HttpServerEntry, type ServerEntry, type StdioServerEntry } from '../servers/server-entry.js';
import { retryAfterFetch } from './retry-after.js';
import { boundedFetch } from './bounded-fetch.js';
import { nodeHttpFetch } from './node-http-fetch.js';
import { unsentTrackingFetch } from './unsent-requests.js';
import type { ConnectOptions } from './connection-types.js';

/** What the HTTP fetch reports to the raw-request table, across attempts. */
export interface WireWatch {
  /** Ids of JSON-RPC requests that failed before a byte of them was written (unsent-requests.ts). */
  unsent: Set<string>;
  /** An answer past a size bound fails its request at once (bounded-fetch.ts). */
  oversized(id: string | undefined, err: Error): void;
}

export interface OpenedTransport {
  transport: Transport;
  /** The stdio server's last stderr lines (named when the connection fails); empty over HTTP. */
  stderrTail(): string[];
}

export async function openTransport(entry: ServerEntry, opts: ConnectOptions, wire: WireWatch): Promise<OpenedTransport> {
  if (entry.transport === 'http') return { transport: await httpTransport(entry, opts, wire), stderrTail: () => [] };
  return stdioTransport(entry, opts);
}

async function httpTransport(entry: HttpServerEntry, opts: ConnectOptions, wire: WireWatch): Promise<Transport> {
  const url = new URL(entry.url);
  if (url.protocol === 'http:' && !isLoopbackUrl(url) && !entry.allowHttp) {
    throw new PlainHttpRefusedError(url.host, `refusing plain http:// to ${url.host}: tokens and task handles would cross the network unencrypted`);
  }
  const headers = resolveHeaders(entry, opts.env);
  const token = bearerToken(entry, opts.env);
  // HTTP 429 becomes a typed back-off (Retry-After) instead of an opaque HTTP error; every
  // answer is read within size bounds (bounded-fetch.ts).
  const fetch = retryAfterFetch(entry.name, boundedFetch(entry.name, unsentTrackingFetch(nodeHttpFetch, wire.unsent), (id, err) => wire.oversized(id, err)));
  const resumeSession = opts.resume?.sessionId ? { sessionId: opts.resume.sessionId, protocolVersion: opts.resume.protocolVersion } : {};
  if (opts.httpTransport && !token) return opts.httpTransport(url, { ...resumeSession, requestInit: { headers }, fetch });
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  return new StreamableHTTPClientTransport(url, {
    ...resumeSession,
    requestInit: { headers },
    fetch,
    ...(token ? { authProvider: { token: async () => token } } : {}),
  });
}

async function stdioTransport(entry: StdioServerEntry, opts: ConnectOptions): Promise<OpenedTransport> {
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  // A subclass probes the generation in place: the SDK would otherwise spawn the server twice.
  class InPlaceStdioTransport extends StdioClientTransport {}
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(entry.env ?? {})) {
    const value = v === '' ? opts.env[k] : v;
    if (value !== undefined) env[k] = value;
  }
  // Our own demo server needs the caller's home override to find its store.
  if (entry.builtin === 'demo' && opts.env.MCP_TASKS_HOME) env.MCP_TASKS_HOME = opts.env.MCP_TASKS_HOME;
  const stdio = new InPlaceStdioTransport({ command: entry.command, args: entry.args, env, ...(entry.cwd ? { cwd: entry.cwd } : {}), stderr: 'pipe' });
  let stderrTail: string[] = [];
  let partial = '';
  stdio.stderr?.on('data', (d: Buffer) => {
    partial += d.toString('utf8');
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      stderrTail = [...stderrTail.slice(-4), line];
      opts.onServerStderr?.(line);
    }
  });
  return { transport: stdio, stderrTail: () => stderrTail };
}

/** Resolve `env:VAR` header values at connect time so no secret is stored in config. */
function resolveHeaders(entry: ServerEntry, env: NodeJS.ProcessEnv): Record<string, string> {
  if (entry.transport !== 'http') return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(entry.headers ?? {})) {
    if (v.startsWith('env:')) {
      const name = v.slice(4);
      const value = env[name];
      if (value === undefined || value === '') {
        throw new MissingSecretError(entry.name, name, `header ${k} of server "${entry.name}" reads $${name}, which is not set`);
      }
      out[k] = value;
    } else out[k] = v;
  }
  return out;
}

function bearerToken(entry: ServerEntry, env: NodeJS.ProcessEnv): string | undefined {
  if (entry.transport !== 'http' || !entry.bearerEnv) return undefined;
  const token = env[entry.bearerEnv];
  if (!token) {
    throw new MissingSecretError(entry.name, entry.bearerEnv, `server "${entry.name}" takes its bearer token from $${entry.bearerEnv}, which is not set`);
  }
  return token;
}
