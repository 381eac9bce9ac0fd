// Connections through the official SDK v2 client: stdio or Streamable HTTP, the 2026-07-28
// generation (with a cached discover result so later calls need no probe). The parts: the transport
// (transport.ts), the handshake (here), raw JSON-RPC requests with our own ids (raw-channel.ts:
// the SDK refuses to send tasks/*) and the tool list with its header rules (tool-catalog.ts).
import type { Client as SdkClient, Transport } from '@modelcontextprotocol/client';
import { isConnectionFailure } from './connection-errors.js';
import { VaultError } from '../vault/vault-errors.js';
import {
  LEGACY_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  TASKS_EXTENSION_ID,
  type TaskGeneration,
} from '../protocol/constants.js';
import { AuthRefusedError, ProtocolViolationError, RpcResponseError, TransportError, type PresentedCredential } from '../protocol/remote-errors.js';
import { DECLARED_CLIENT_CAPABILITIES } from './client-capabilities.js';
import type { ServerEntry } from '../servers/server-entry.js';
import { openTransport, type WireWatch } from './transport.js';
import { RawChannel } from './raw-channel.js';
import { ToolCatalog } from './tool-catalog.js';
import { taskListener } from './task-listen.js';
import { VERSION } from '../version.js';
export { refusedToolError } from './tool-catalog.js';

export const CLIENT_INFO = { name: 'mcp-tasks', version: VERSION };

import type { ToolInfo } from '../protocol/task-wire.js';
export type { ToolInfo };

import type { Connection, ConnectOptions, RefusedTool, ServerRequest, TaskListen } from './connection-types.js';
export type { Connection, ConnectOptions, RefusedTool, ServerRequest, TaskListen };

const DEFAULT_TIMEOUT_MS = 30_000;

/** Map whatever the SDK or the platform threw onto our typed errors. */
export function normalizeError(err: unknown, method: string, sdk: typeof import('@modelcontextprotocol/client'), credential?: PresentedCredential): Error {
  if (err instanceof RpcResponseError || err instanceof TransportError || err instanceof AuthRefusedError || err instanceof ProtocolViolationError || isConnectionFailure(err) || err instanceof VaultError) return err;
  const { SdkError, SdkHttpError, SdkErrorCode, ProtocolError, UnauthorizedError } = sdk;
  if (err instanceof UnauthorizedError) return new AuthRefusedError(401, 'the server refused the credentials (HTTP 401)', credential);
  if (err instanceof SdkHttpError) {
    const status = err.status;
    if (status === 401 || status === 403) return new AuthRefusedError(status, `the server refused access (HTTP ${status})`, credential);
    const text = (err.data as { text?: unknown } | undefined)?.text;
    if (typeof text === 'string') {
      try {
        const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
        if (body.error && typeof body.error.code === 'number') {
          return new RpcResponseError(body.error.code, String(body.error.message ?? ''), body.error.data, method, status);
        }
      } catch { /* not JSON-RPC: fall through */ }
    }
    if (status >= 500) return new TransportError(`the server answered HTTP ${status}`, err);
    return new ProtocolViolationError(`the server answered HTTP ${status} to ${method}`);
  }
  if (err instanceof ProtocolError) return new RpcResponseError(err.code, err.message, err.data, method);
  if (err instanceof SdkError) {
    switch (err.code) {
      case SdkErrorCode.RequestTimeout:
        return new TransportError(`no answer to ${method} in time`, err);
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
      case SdkErrorCode.SendFailed:
        return new TransportError('the connection closed before an answer came', err);
      case SdkErrorCode.EraNegotiationFailed: {
        if (err.cause) return normalizeError(err.cause, method, sdk, credential);
        return new ProtocolViolationError(err.message);
      }
      default:
        return new ProtocolViolationError(err.message);
    }
  }
  // A JSON body that is no JSON-RPC message (the SDK's schema refused the envelope): the server
  // answered, but not in the protocol. One line, never the schema's issue dump.
  if (err instanceof Error && Array.isArray((err as { issues?: unknown }).issues)) {
    const issue = (err as unknown as { issues: Array<{ path?: unknown[]; message?: string }> }).issues[0];
    const where = issue?.path?.length ? `${issue.path.map(String).join('.')}: ` : '';
    return new ProtocolViolationError(`the server's answer to ${method} is not a valid JSON-RPC message (${`${where}${issue?.message ?? 'invalid'}`.slice(0, 120)})`);
  }
  // A body that does not parse (truncated, HTML): the server answered, but not with JSON-RPC.
  if (err instanceof SyntaxError) return new ProtocolViolationError(`the server's answer to ${method} is not valid JSON (${err.message.slice(0, 120)})`);
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code;
  if (code === 'ENOENT' && e.syscall?.startsWith('spawn')) return new TransportError(`cannot start the server command: ${e.path ?? ''} not found`, err, false);
  if (code === 'ECONNREFUSED') return new TransportError('connection refused', err, false);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new TransportError(`cannot resolve the server host (${code})`, err, false);
  if (code) return new TransportError(`network error ${code}`, err);
  if (e instanceof TypeError && /fetch failed/.test(e.message)) return new TransportError('network error', err);
  return err instanceof Error ? err : new Error(String(err));
}

type Sdk = typeof import('@modelcontextprotocol/client');

/** What the entry's requests carry to authenticate them (a refusal's next step names it). */
function presentedCredential(entry: ServerEntry, opts: ConnectOptions): PresentedCredential {
  if (entry.transport !== 'http') return { kind: 'none' };
  if (entry.bearerEnv) return { kind: 'bearer', variable: entry.bearerEnv };
  if (opts.httpTransport) return { kind: 'sign-in' };
  if (Object.values(entry.headers ?? {}).some((v) => v.startsWith('env:'))) return { kind: 'env-headers' };
  return { kind: 'none' };
}

/** What one handshake says about the server: the generation, the version and what it advertises. */
interface Handshake {
  generation: TaskGeneration;
  protocolVersion: string;
  caps: { extensions?: Record<string, unknown>; tasks?: unknown } | undefined;
  tasksAdvertised: boolean;
  legacyTasksAdvertised: boolean;
  discover: Record<string, unknown> | undefined;
  serverInfo: { name: string; version: string } | undefined;
}

export async function connect(entry: ServerEntry, opts: ConnectOptions): Promise<Connection> {
  const sdk = await import('@modelcontextprotocol/client');
  const credential = presentedCredential(entry, opts);
  // Everything the client can answer is declared: a compliant server asks only for what is declared.
  const capabilities = { ...DECLARED_CLIENT_CAPABILITIES, ...(opts.capabilities ?? {}), extensions: { [TASKS_EXTENSION_ID]: {} } };
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // The raw-request table exists only after the handshake; the fetch reports to it from the start.
  const table: { channel?: RawChannel } = {};
  const wire: WireWatch = { unsent: new Set(), oversized: (id, err) => table.channel?.fail(id, err) };
  const client = await openClientRetrying(sdk, entry, opts, capabilities, timeoutMs, wire, credential);
  const hs = handshakeOf(client, entry, opts);
  const envelope = hs.generation === MODERN_PROTOCOL_VERSION ? { [META_PROTOCOL_VERSION]: hs.protocolVersion, [META_CLIENT_INFO]: CLIENT_INFO, [META_CLIENT_CAPABILITIES]: capabilities } : {};
  const channel = (table.channel = new RawChannel(client.transport!, { envelope, timeoutMs, unsent: wire.unsent, debug: opts.debug, normalize: (err, method) => normalizeError(err, method, sdk, credential) }));
  const tools = new ToolCatalog(entry.name, entry.transport === 'http', channel, opts.debug);
  const listenTasks = taskListener(client, client.transport!, timeoutMs, (err, method) => normalizeError(err, method, sdk, credential));
  return connectionOf(sdk, entry, opts, client, hs, channel, tools, credential, listenTasks);
}

/** server/discover creates nothing, so a probe that failed in transit (a server too busy to answer in time) is tried once more on a new client. */
async function openClientRetrying(sdk: Sdk, entry: ServerEntry, opts: ConnectOptions, capabilities: Record<string, unknown>, timeoutMs: number, wire: WireWatch, credential: PresentedCredential): Promise<SdkClient> {
  try {
    return await openClient(sdk, entry, opts, capabilities, timeoutMs, wire, credential);
  } catch (err) {
    if (!(entry.transport === 'http' && err instanceof TransportError && err.requestMayHaveArrived)) throw err;
    opts.debug?.(`server/discover failed (${err.message}); probing once more on a new connection`);
    return openClient(sdk, entry, opts, capabilities, timeoutMs, wire, credential);
  }
}

/** A fresh client and transport, connected: resumed (2025-11-25 HTTP session), from the cached discover result, or probed. */
async function openClient(sdk: Sdk, entry: ServerEntry, opts: ConnectOptions, capabilities: Record<string, unknown>, timeout: number, wire: WireWatch, credential: PresentedCredential): Promise<SdkClient> {
  const client: SdkClient = new sdk.Client(CLIENT_INFO, { capabilities, versionNegotiation: { mode: 'auto' } });
  // An abort is ours (a listen stream closed at the end of a watch): nothing to report.
  client.onerror = (e) => {
    if (e.name !== 'AbortError') opts.debug?.(`sdk: ${e.message}`);
  };
  const { transport, stderrTail } = await openTransport(entry, opts, wire);
  const cached = opts.fresh ? undefined : entry.discovered;
  try {
    if (opts.resume?.sessionId && entry.transport === 'http') {
      // A preset session id makes the SDK skip initialize: the server already knows this client.
      await client.connect(transport, { timeout, prior: { kind: 'legacy' } });
    } else if (cached?.generation === MODERN_PROTOCOL_VERSION && cached.discover) {
      await client.connect(transport, { timeout, prior: { kind: 'modern', discover: cached.discover as never } });
    } else {
      await client.connect(transport, { timeout });
    }
  } catch (err) {
    await client.close().catch(() => {});
    const e = normalizeError(err, 'server/discover', sdk, credential);
    const tail = stderrTail();
    if (e instanceof TransportError && tail.length) {
      throw new TransportError(`${e.message}; the server printed: ${tail.join(' | ').slice(0, 300)}`, err, e.requestMayHaveArrived);
    }
    throw e;
  }
  return client;
}

function handshakeOf(client: SdkClient, entry: ServerEntry, opts: ConnectOptions): Handshake {
  const resumed = Boolean(opts.resume?.sessionId && entry.transport === 'http');
  // The SDK's words for the two generations are its protocol eras: converted here, and only here.
  const generation: TaskGeneration = !resumed && client.getProtocolEra() === 'modern' ? MODERN_PROTOCOL_VERSION : LEGACY_PROTOCOL_VERSION;
  const protocolVersion = client.getNegotiatedProtocolVersion() ?? (resumed ? opts.resume!.protocolVersion : generation === MODERN_PROTOCOL_VERSION ? MODERN_PROTOCOL_VERSION : 'unknown');
  const caps = client.getServerCapabilities() as Handshake['caps'];
  const discover = generation === MODERN_PROTOCOL_VERSION ? (client.getDiscoverResult() as Record<string, unknown> | undefined) : undefined;
  // 2026-07-28 puts serverInfo in the discover result's _meta (where the SDK reads it); some servers
  // still send it as a top-level field. It only names the server for people, so accept either.
  const serverVersion = client.getServerVersion() ?? implementationOf(discover?.serverInfo);
  return {
    generation,
    protocolVersion,
    caps,
    legacyTasksAdvertised: Boolean(caps?.tasks),
    tasksAdvertised: Boolean(caps?.extensions && Object.prototype.hasOwnProperty.call(caps.extensions, TASKS_EXTENSION_ID)),
    discover,
    serverInfo: serverVersion ? { name: serverVersion.name, version: serverVersion.version } : undefined,
  };
}

/** The Connection over an open client: what the handshake said, raw requests, tools, the HTTP session. */
function connectionOf(sdk: Sdk, entry: ServerEntry, opts: ConnectOptions, client: SdkClient, hs: Handshake, channel: RawChannel, tools: ToolCatalog, credential: PresentedCredential, listenTasks: Connection['listenTasks']): Connection {
  const { generation, protocolVersion, serverInfo, tasksAdvertised, discover, caps } = hs;
  const t = client.transport!;
  return {
    entry,
    generation,
    protocolVersion,
    ...(serverInfo ? { serverInfo } : {}),
    tasksAdvertised,
    legacyTasksAdvertised: hs.legacyTasksAdvertised,
    discovered: () => ({ protocolVersion, generation, tasksAdvertised, ...(serverInfo ? { serverInfo } : {}), ...(discover ? { discover } : {}), checkedAt: new Date().toISOString() }),
    request: (method, params, ro = {}) => (method === 'tools/call' ? tools.call(params, ro) : channel.send(method, params, ro)),
    listTools: () => listToolsOnce(sdk, tools, opts, credential),
    adoptTools: (list) => tools.classify(list),
    refusedTools: () => tools.refusedTools(),
    async close() {
      try {
        await client.close();
      } catch { /* already gone */ }
    },
    ...(caps ? { serverCapabilities: caps as Record<string, unknown> } : {}),
    sessionId: () => (t as { sessionId?: string }).sessionId,
    interceptServerRequests: (handler) => channel.interceptServerRequests(handler),
    async respond(id, outcome) {
      try {
        await t.send({ jsonrpc: '2.0', id, ...outcome } as never);
      } catch (err) {
        throw normalizeError(err, 'response', sdk, credential);
      }
    },
    openStandaloneStream: () => openStandaloneStream(t, entry, opts),
    terminateSession: () => terminateSession(t, entry, sdk, credential),
    listenTasks,
  };
}

/** tools/list changes nothing, so once more on a new socket: the server may have closed an idle keep-alive socket just as a busy client reused it (UND_ERR_SOCKET, ECONNRESET). */
async function listToolsOnce(sdk: Sdk, tools: ToolCatalog, opts: ConnectOptions, credential: PresentedCredential): Promise<ToolInfo[]> {
  try {
    try {
      return await tools.list();
    } catch (err) {
      const e = normalizeError(err, 'tools/list', sdk, credential);
      if (!(e instanceof TransportError) || !/^(network error|the connection closed)/.test(e.message)) throw err;
      opts.debug?.('tools/list: the connection failed; retrying once');
      return await tools.list();
    }
  } catch (err) {
    throw normalizeError(err, 'tools/list', sdk, credential);
  }
}

/** resumeStream without an event id is a plain GET stream (no Last-Event-ID replay). */
async function openStandaloneStream(t: Transport, entry: ServerEntry, opts: ConnectOptions): Promise<void> {
  const http = t as { resumeStream?: (lastEventId: string) => Promise<void> };
  if (entry.transport === 'http' && http.resumeStream) await http.resumeStream('').catch((e: unknown) => opts.debug?.(`standalone stream: ${String(e)}`));
}

/** The SDK transport's DELETE with Mcp-Session-Id; a no-op without a session. */
async function terminateSession(t: Transport, entry: ServerEntry, sdk: Sdk, credential: PresentedCredential): Promise<void> {
  const http = t as { terminateSession?: () => Promise<void>; sessionId?: string };
  if (entry.transport !== 'http' || !http.terminateSession || !http.sessionId) return;
  try {
    await http.terminateSession();
  } catch (err) {
    throw normalizeError(err, 'DELETE (end of session)', sdk, credential);
  }
}

function implementationOf(value: unknown): { name: string; version: string } | undefined {
  const v = value as { name?: unknown; version?: unknown } | undefined;
  return v && typeof v.name === 'string' && typeof v.version === 'string' ? { name: v.name, version: v.version } : undefined;
}
