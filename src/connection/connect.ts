// Connections through the official SDK v2 client: stdio or Streamable HTTP, the 2026-07-28
// era (with a cached discover result so later calls need no probe). The SDK refuses to send
// tasks/* itself and rejects task results from callTool, so those go out as raw JSON-RPC
// messages over the SDK's own transport, with our own ids (the Inspector does the same).
import type { Client as SdkClient } from '@modelcontextprotocol/client';
import { InterruptedBeforeSendError, isConnectionFailure, MissingSecretError, PlainHttpRefusedError, RefusedToolError } from './connection-errors.js';
import { VaultError } from '../vault/vault-errors.js';
import {
  ErrorCode,
  MODERN_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  SUBSCRIPTION_ID_META,
  TASKS_EXTENSION_ID,
} from '../protocol/constants.js';
import { AuthRefusedError, ProtocolViolationError, RpcResponseError, TransportError, markNotSent } from '../protocol/remote-errors.js';
import { DECLARED_CLIENT_CAPABILITIES } from './client-capabilities.js';
import { abortFanout } from './abort-fanout.js';
import { isLoopbackUrl, type DiscoveredEra, type ServerEntry } from '../servers/server-entry.js';
import { paramHeaders, scanHeaderDeclarations, type HeaderDeclaration, type HeaderRule } from '../protocol/tool-headers.js';
import { retryAfterFetch } from './retry-after.js';
import { boundedFetch } from './bounded-fetch.js';
import { nodeHttpFetch } from './node-http-fetch.js';
import { unsentTrackingFetch } from './unsent-requests.js';
import { VERSION } from '../version.js';

export const CLIENT_INFO = { name: 'mcp-tasks', version: VERSION };

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; title?: string };
  /** 2025-11-25: whether tools/call may (optional), must (required) or must not (forbidden) ask for a task. */
  execution?: { taskSupport?: 'required' | 'optional' | 'forbidden' };
}

/** A request the server sent us (2025-11-25 input: elicitation/create, sampling/createMessage, roots/list). */
export interface ServerRequest {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** A listed tool mcp-tasks will not call: its `x-mcp-header` declarations break a rule of the spec. */
export interface RefusedTool {
  name: string;
  rule: HeaderRule;
  reason: string;
}

export interface Connection {
  readonly entry: ServerEntry;
  readonly era: 'modern' | 'legacy';
  readonly protocolVersion: string;
  readonly serverInfo?: { name: string; version: string };
  readonly tasksAdvertised: boolean;
  /** The 2025-11-25 experimental tasks capability (capabilities.tasks), advertised by legacy servers. */
  readonly legacyTasksAdvertised: boolean;
  /** What to cache so the next connection needs no probe. */
  discovered(): DiscoveredEra;
  /** One raw JSON-RPC request; resolves with `result`, throws the typed errors of remote-errors.ts. */
  request(method: string, params: Record<string, unknown>, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<unknown>;
  /** The callable tools. Over HTTP, tools with invalid `x-mcp-header` declarations are left out (see refusedTools). */
  listTools(): Promise<ToolInfo[]>;
  /** Use a tool list read earlier (the server entry's cache) as if just listed: no request. */
  adoptTools(tools: ToolInfo[]): ToolInfo[];
  /** Tools the last listTools() left out, with the rule each breaks. */
  refusedTools(): RefusedTool[];
  close(): Promise<void>;
  /** The capabilities the server advertised; undefined on a resumed session (no handshake). */
  readonly serverCapabilities?: Record<string, unknown>;
  /** Streamable HTTP on 2025-11-25: the Mcp-Session-Id the server assigned, or the resumed one. */
  sessionId(): string | undefined;
  /** Offer server→client requests to `handler` before the SDK's dispatcher; it returns true when it took one. */
  interceptServerRequests(handler: (request: ServerRequest) => boolean): void;
  /** Answer a server→client request with a JSON-RPC response. */
  respond(id: string | number, outcome: { result: unknown } | { error: { code: number; message: string } }): Promise<void>;
  /** Open the standalone GET stream where a resumed session has none yet (servers may send input there). */
  openStandaloneStream(): Promise<void>;
  /** Streamable HTTP: end the session on the server (the SDK transport's DELETE with Mcp-Session-Id); a no-op without one. */
  terminateSession(): Promise<void>;
  /**
   * 2026-07-28: a `subscriptions/listen` stream for these task ids, opened and closed by the SDK
   * client's listen(). Resolves on the server's acknowledgement with the ids it agreed to; each
   * `notifications/tasks` on the connection is handed to `onTask` unparsed (the caller validates).
   */
  listenTasks(taskIds: string[], onTask: (params: unknown) => void, opts?: { timeoutMs?: number }): Promise<TaskListen>;
}

/** An open listen stream for tasks. */
export interface TaskListen {
  /** The ids the server acknowledged (a subset of those asked). */
  readonly acknowledged: string[];
  /** 'local': we closed it; 'graceful': the server ended it; 'remote': the stream or connection dropped. */
  readonly closed: Promise<'local' | 'graceful' | 'remote'>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Extra capabilities declared besides the tasks extension (elicitation, sampling, roots). */
  capabilities?: Record<string, unknown>;
  /** Ignore the cached discover result and probe the server afresh (`server check`). */
  fresh?: boolean;
  /** stdio child's stderr lines (diagnostics; may contain anything the server prints). */
  onServerStderr?: (line: string) => void;
  debug?: (line: string) => void;
  /** A server with a stored sign-in: the OAuth transport (connection/oauth-provider.ts). */
  httpTransport?: import('./oauth-provider.js').HttpTransportFactory;
  /** Rejoin a 2025-11-25 HTTP session (kept in the vault record) instead of starting a new one. */
  resume?: { protocolVersion: string; sessionId?: string };
}

const DEFAULT_TIMEOUT_MS = 30_000;

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

/** Map whatever the SDK or the platform threw onto our typed errors. */
export function normalizeError(err: unknown, method: string, sdk: typeof import('@modelcontextprotocol/client')): Error {
  if (err instanceof RpcResponseError || err instanceof TransportError || err instanceof AuthRefusedError || err instanceof ProtocolViolationError || isConnectionFailure(err) || err instanceof VaultError) return err;
  const { SdkError, SdkHttpError, SdkErrorCode, ProtocolError, UnauthorizedError } = sdk;
  if (err instanceof UnauthorizedError) return new AuthRefusedError(401, 'the server refused the credentials (HTTP 401)');
  if (err instanceof SdkHttpError) {
    const status = err.status;
    if (status === 401 || status === 403) return new AuthRefusedError(status, `the server refused access (HTTP ${status})`);
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
        if (err.cause) return normalizeError(err.cause, method, sdk);
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

export async function connect(entry: ServerEntry, opts: ConnectOptions): Promise<Connection> {
  const sdk = await import('@modelcontextprotocol/client');
  const { Client, StreamableHTTPClientTransport } = sdk;
  // Everything the client can answer is declared: a compliant server asks only for what is declared.
  const capabilities = { ...DECLARED_CLIENT_CAPABILITIES, ...(opts.capabilities ?? {}), extensions: { [TASKS_EXTENSION_ID]: {} } };
  const timeout = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cached = opts.fresh ? undefined : entry.discovered;
  // Set once the raw-request table exists: an answer past a size bound fails its request at once.
  const requestFaults: { fail?: (id: string | undefined, err: Error) => void } = {};
  // Ids of JSON-RPC requests that failed before a byte of them was written (unsent-requests.ts).
  const unsent = new Set<string>();
  // A fresh client and transport per attempt: server/discover creates nothing, so a probe that
  // failed in transit (a server too busy to answer in time) is tried once more on a new one.
  const openClient = async (): Promise<SdkClient> => {
    const client: SdkClient = new Client(CLIENT_INFO, {
      capabilities,
      versionNegotiation: { mode: 'auto' },
    });
    client.onerror = (e) => opts.debug?.(`sdk: ${e.message}`);

    let transport;
    let stderrTail: string[] = [];
    if (entry.transport === 'http') {
      const url = new URL(entry.url);
      if (url.protocol === 'http:' && !isLoopbackUrl(url) && !entry.allowHttp) {
        throw new PlainHttpRefusedError(url.host, `refusing plain http:// to ${url.host}: tokens and task handles would cross the network unencrypted`);
      }
      const headers = resolveHeaders(entry, opts.env);
      const token = bearerToken(entry, opts.env);
      // HTTP 429 becomes a typed back-off (Retry-After) instead of an opaque HTTP error; every
      // answer is read within size bounds (bounded-fetch.ts).
      const fetch = retryAfterFetch(entry.name, boundedFetch(entry.name, unsentTrackingFetch(nodeHttpFetch, unsent), (id, err) => requestFaults.fail?.(id, err)));
      const resumeSession = opts.resume?.sessionId ? { sessionId: opts.resume.sessionId, protocolVersion: opts.resume.protocolVersion } : {};
      transport = opts.httpTransport && !token
        ? opts.httpTransport(url, { ...resumeSession, requestInit: { headers }, fetch })
        : new StreamableHTTPClientTransport(url, {
          ...resumeSession,
          requestInit: { headers },
          fetch,
          ...(token ? { authProvider: { token: async () => token } } : {}),
        });
    } else {
      const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
      // A subclass probes the era in place: the SDK would otherwise spawn the server twice.
      class InPlaceStdioTransport extends StdioClientTransport {}
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(entry.env ?? {})) {
        const value = v === '' ? opts.env[k] : v;
        if (value !== undefined) env[k] = value;
      }
      // Our own demo server needs the caller's home override to find its store.
      if (entry.builtin === 'demo' && opts.env.MCP_TASKS_HOME) env.MCP_TASKS_HOME = opts.env.MCP_TASKS_HOME;
      const stdio = new InPlaceStdioTransport({ command: entry.command, args: entry.args, env, ...(entry.cwd ? { cwd: entry.cwd } : {}), stderr: 'pipe' });
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
      transport = stdio;
    }

    try {
      if (opts.resume?.sessionId && entry.transport === 'http') {
        // A preset session id makes the SDK skip initialize: the server already knows this client.
        await client.connect(transport, { timeout, prior: { kind: 'legacy' } });
      } else if (cached?.era === 'modern' && cached.discover) {
        await client.connect(transport, { timeout, prior: { kind: 'modern', discover: cached.discover as never } });
      } else {
        await client.connect(transport, { timeout });
      }
    } catch (err) {
      await client.close().catch(() => {});
      const e = normalizeError(err, 'server/discover', sdk);
      if (e instanceof TransportError && stderrTail.length) {
        throw new TransportError(`${e.message}; the server printed: ${stderrTail.join(' | ').slice(0, 300)}`, err, e.requestMayHaveArrived);
      }
      throw e;
    }
    return client;
  };
  let client: SdkClient;
  try {
    client = await openClient();
  } catch (err) {
    if (!(entry.transport === 'http' && err instanceof TransportError && err.requestMayHaveArrived)) throw err;
    opts.debug?.(`server/discover failed (${err.message}); probing once more on a new connection`);
    client = await openClient();
  }

  const resumed = Boolean(opts.resume?.sessionId && entry.transport === 'http');
  const era = !resumed && client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  const protocolVersion = client.getNegotiatedProtocolVersion() ?? (resumed ? opts.resume!.protocolVersion : era === 'modern' ? MODERN_PROTOCOL_VERSION : 'unknown');
  const caps = client.getServerCapabilities() as { extensions?: Record<string, unknown>; tasks?: unknown } | undefined;
  const legacyTasksAdvertised = Boolean(caps?.tasks);
  const tasksAdvertised = Boolean(caps?.extensions && Object.prototype.hasOwnProperty.call(caps.extensions, TASKS_EXTENSION_ID));
  const discover = era === 'modern' ? (client.getDiscoverResult() as Record<string, unknown> | undefined) : undefined;
  // 2026-07-28 puts serverInfo in the discover result's _meta (where the SDK reads it); some servers
  // still send it as a top-level field. It only names the server for people, so accept either.
  const serverVersion = client.getServerVersion() ?? implementationOf(discover?.serverInfo);
  const serverInfo = serverVersion ? { name: serverVersion.name, version: serverVersion.version } : undefined;

  // Raw requests: our own string ids, answered before the SDK's dispatcher sees them.
  const t = client.transport!;
  type Pending = { resolve: (m: Record<string, unknown>) => void; reject: (e: unknown) => void; timer: NodeJS.Timeout };
  const pending = new Map<string, Pending>();
  const abandoned = new Set<string>();
  let serverRequestHandler: ((request: ServerRequest) => boolean) | undefined;
  // subscriptions/listen: the SDK owns the stream, but its 2026 decoder keeps only the list-changed
  // fields of an acknowledgement and has no notifications/tasks; both are read here, raw.
  const listenIds: string[] = [];
  const acks = new Map<string, string[]>();
  const taskHandlers = new Set<(params: unknown) => void>();
  const innerSend = t.send.bind(t);
  t.send = ((message: { method?: unknown; id?: unknown }, options?: unknown) => {
    if (message.method === 'subscriptions/listen' && typeof message.id === 'string') listenIds.push(message.id);
    return innerSend(message as never, options as never);
  }) as typeof t.send;
  const inner = t.onmessage;
  t.onmessage = (msg, extra) => {
    const m = msg as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown>; notifications?: { taskIds?: unknown } } };
    if (m.method === 'notifications/tasks' && m.id === undefined) {
      for (const h of taskHandlers) h(m.params);
      return;
    }
    if (m.method === 'notifications/subscriptions/acknowledged') {
      const sub = m.params?._meta?.[SUBSCRIPTION_ID_META];
      const ids = m.params?.notifications?.taskIds;
      if (typeof sub === 'string') acks.set(sub, Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : []);
    }
    if (serverRequestHandler && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')) {
      const params = (msg as { params?: unknown }).params;
      const request: ServerRequest = { id: m.id, method: m.method, ...(params && typeof params === 'object' ? { params: params as Record<string, unknown> } : {}) };
      if (serverRequestHandler(request)) return;
    }
    if (typeof m.id === 'string' && m.method === undefined) {
      const p = pending.get(m.id);
      if (p) {
        pending.delete(m.id);
        clearTimeout(p.timer);
        p.resolve(msg as unknown as Record<string, unknown>);
        return;
      }
      if (abandoned.delete(m.id)) return; // a late answer to a request we gave up on
    }
    inner?.(msg, extra);
  };
  const innerClose = t.onclose;
  t.onclose = () => {
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(new TransportError('the connection closed before an answer came'));
    }
    pending.clear();
    innerClose?.();
  };
  requestFaults.fail = (id, err) => {
    const p = id === undefined ? undefined : pending.get(id);
    if (!p || id === undefined) return;
    pending.delete(id);
    abandoned.add(id);
    clearTimeout(p.timer);
    p.reject(err);
  };
  let seq = 0;
  const runId = Math.random().toString(36).slice(2, 8);

  const watchAbort = abortFanout();
  /** One raw request with its own id; `headers` go on this HTTP request only (Mcp-Param-*). */
  const send = async (method: string, params: Record<string, unknown>, ro: { timeoutMs?: number; signal?: AbortSignal }, headers?: Record<string, string>, attempt = 0): Promise<unknown> => {
    const id = `mcp-tasks-${runId}-${++seq}`;
    const envelope =
      era === 'modern'
        ? { [META_PROTOCOL_VERSION]: protocolVersion, [META_CLIENT_INFO]: CLIENT_INFO, [META_CLIENT_CAPABILITIES]: capabilities }
        : {};
    const message = { jsonrpc: '2.0' as const, id, method, params: { ...params, _meta: { ...envelope, ...((params._meta as object) ?? {}) } } };
    // Interrupted before it went out (Ctrl-C while connecting): nothing is sent, nothing to recover.
    if (ro.signal?.aborted) {
      throw markNotSent(new InterruptedBeforeSendError(method, `interrupted before ${method} was sent; nothing was sent`));
    }
    const requestTimeout = ro.timeoutMs ?? timeout;
    const sentAt = Date.now();
    opts.debug?.(`→ ${method}`);
    const ac = new AbortController();
    let response: Record<string, unknown>;
    // Removed when the request settles: a watch sends thousands of requests under one signal, and
    // concurrent polls share one listener on it (abortFanout).
    let unwatch: (() => void) | undefined;
    try {
      response = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          abandoned.add(id);
          ac.abort();
          reject(new TransportError(`no answer to ${method} within ${Math.round(requestTimeout / 1000)} s`));
        }, requestTimeout);
        pending.set(id, { resolve, reject, timer });
        unwatch = watchAbort(ro.signal, () => {
          if (!pending.delete(id)) return;
          clearTimeout(timer);
          abandoned.add(id);
          ac.abort();
          reject(new TransportError(`${method} interrupted`));
        });
        // An answer stream that ends without the answer fails the request now, not at the timeout.
        const onRequestStreamEnd = () => {
          if (!pending.delete(id)) return;
          clearTimeout(timer);
          abandoned.add(id);
          reject(new TransportError(`the answer stream to ${method} ended before the answer came`));
        };
        t.send(message as never, { requestSignal: ac.signal, onRequestStreamEnd, ...(headers ? { headers } : {}) } as never).catch((e: unknown) => {
          if (!pending.delete(id)) return;
          clearTimeout(timer);
          reject(e);
        });
      });
    } catch (err) {
      unwatch?.();
      const e = normalizeError(err, method, sdk);
      // Not a byte of it was written (the connection failed first): it cannot have created
      // anything. Once more, on a new connection; failing again, it is "not sent", never in doubt.
      if (unsent.delete(id)) {
        if (attempt === 0 && !ro.signal?.aborted) {
          opts.debug?.(`${method}: the connection failed before the request was written (${e instanceof Error ? e.message : String(e)}); sending it once more on a new connection`);
          return await send(method, params, ro, headers, 1);
        }
        throw markNotSent(e);
      }
      throw e;
    } finally {
      unwatch?.();
    }
    const error = response.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    opts.debug?.(`← ${method} ${error ? `error ${String(error.code)}` : 'ok'} in ${Date.now() - sentAt} ms`);
    if (error) {
      if (typeof error.code !== 'number') throw new ProtocolViolationError(`${method}: the server sent a malformed error`);
      throw new RpcResponseError(error.code, String(error.message ?? ''), error.data, method);
    }
    if (!('result' in response)) throw new ProtocolViolationError(`${method}: the server's answer has neither result nor error`);
    return response.result;
  };

  // Over Streamable HTTP every tools/call mirrors the tool's x-mcp-header arguments (SEP-2243),
  // read from the tool list; tools whose declarations break the rules are never called.
  const mirrorsHeaders = entry.transport === 'http';
  let declarations: Map<string, HeaderDeclaration[]> | undefined;
  let refused: RefusedTool[] = [];

  const listTools = async (): Promise<ToolInfo[]> => {
    const tools: ToolInfo[] = [];
    const seenCursors = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = (await send('tools/list', cursor ? { cursor } : {}, {})) as { tools?: unknown; nextCursor?: unknown } | null;
      if (!page || !Array.isArray(page.tools)) throw new ProtocolViolationError('tools/list: the server\'s answer has no tools array');
      for (const t of page.tools as ToolInfo[]) {
        if (t && typeof t.name === 'string' && t.inputSchema && typeof t.inputSchema === 'object') tools.push(t);
      }
      cursor = typeof page.nextCursor === 'string' && !seenCursors.has(page.nextCursor) ? page.nextCursor : undefined;
      if (cursor) seenCursors.add(cursor);
    } while (cursor);
    return classifyTools(tools);
  };

  const classifyTools = (tools: ToolInfo[]): ToolInfo[] => {
    const found = new Map<string, HeaderDeclaration[]>();
    const refusedNow: RefusedTool[] = [];
    const callable = tools.filter((t) => {
      if (!mirrorsHeaders) return true;
      const scan = scanHeaderDeclarations(t.inputSchema);
      if (!scan.valid) {
        refusedNow.push({ name: t.name, rule: scan.rule, reason: scan.reason });
        opts.debug?.(`tool ${JSON.stringify(t.name.slice(0, 80))} refused: ${scan.reason}`);
        return false;
      }
      found.set(t.name, scan.declarations);
      return true;
    });
    declarations = found;
    refused = refusedNow;
    return callable;
  };

  const refusal = (tool: string): RefusedToolError | undefined => {
    const r = refused.find((x) => x.name === tool);
    return r ? refusedToolError(entry.name, r) : undefined;
  };

  const toolCallHeaders = async (params: Record<string, unknown>): Promise<Record<string, string> | undefined> => {
    if (!mirrorsHeaders || typeof params.name !== 'string') return undefined;
    if (!declarations) await listTools();
    const refusedError = refusal(params.name);
    if (refusedError) throw refusedError;
    const decls = declarations?.get(params.name);
    const args = params.arguments && typeof params.arguments === 'object' ? (params.arguments as Record<string, unknown>) : {};
    return decls?.length ? paramHeaders(decls, args) : undefined;
  };

  const request: Connection['request'] = async (method, params, ro = {}) => {
    if (method !== 'tools/call') return send(method, params, ro);
    let headers: Record<string, string> | undefined;
    try {
      headers = await toolCallHeaders(params);
    } catch (err) {
      throw markNotSent(err);
    }
    try {
      return await send(method, params, ro, headers);
    } catch (err) {
      // -32020: the headers did not match what the server expects, so it admitted nothing. The
      // spec's remedy: list the tools again (the schema may have changed) and retry once.
      if (!(mirrorsHeaders && err instanceof RpcResponseError && err.code === ErrorCode.HeaderMismatch)) throw err;
      opts.debug?.('tools/call not admitted (-32020 header mismatch); listing tools again and retrying once');
      await listTools();
      return send(method, params, ro, await toolCallHeaders(params));
    }
  };

  return {
    entry,
    era,
    protocolVersion,
    ...(serverInfo ? { serverInfo } : {}),
    tasksAdvertised,
    legacyTasksAdvertised,
    discovered: () => ({
      protocolVersion,
      era,
      tasksAdvertised,
      ...(serverInfo ? { serverInfo } : {}),
      ...(discover ? { discover } : {}),
      checkedAt: new Date().toISOString(),
    }),
    request,
    async listTools() {
      try {
        try {
          return await listTools();
        } catch (err) {
          // tools/list changes nothing, so once more on a new socket: the server may have closed an
          // idle keep-alive socket just as a busy client reused it (UND_ERR_SOCKET, ECONNRESET).
          const e = normalizeError(err, 'tools/list', sdk);
          if (!(e instanceof TransportError) || !/^(network error|the connection closed)/.test(e.message)) throw err;
          opts.debug?.('tools/list: the connection failed; retrying once');
          return await listTools();
        }
      } catch (err) {
        throw normalizeError(err, 'tools/list', sdk);
      }
    },
    adoptTools: (tools) => classifyTools(tools),
    refusedTools: () => [...refused],
    async close() {
      try {
        await client.close();
      } catch { /* already gone */ }
    },
    ...(caps ? { serverCapabilities: caps as Record<string, unknown> } : {}),
    sessionId: () => (t as { sessionId?: string }).sessionId,
    interceptServerRequests(handler) {
      serverRequestHandler = handler;
    },
    async respond(id, outcome) {
      try {
        await t.send({ jsonrpc: '2.0', id, ...outcome } as never);
      } catch (err) {
        throw normalizeError(err, 'response', sdk);
      }
    },
    async openStandaloneStream() {
      // resumeStream without an event id is a plain GET stream (no Last-Event-ID replay).
      const http = t as { resumeStream?: (lastEventId: string) => Promise<void> };
      if (entry.transport === 'http' && http.resumeStream) await http.resumeStream('').catch((e: unknown) => opts.debug?.(`standalone stream: ${String(e)}`));
    },
    async listenTasks(taskIds, onTask, lo = {}) {
      const before = listenIds.length;
      const opening = client.listen({ taskIds } as never, { timeout: lo.timeoutMs ?? timeout });
      // The SDK wrote the request before its first await: its id is the one just recorded.
      const id = listenIds[before];
      taskHandlers.add(onTask);
      let subscription;
      try {
        subscription = await opening;
      } catch (err) {
        taskHandlers.delete(onTask);
        throw normalizeError(err, 'subscriptions/listen', sdk);
      } finally {
        if (id !== undefined) listenIds.splice(listenIds.indexOf(id), 1);
      }
      const acknowledged = (id !== undefined ? acks.get(id) : undefined) ?? [];
      if (id !== undefined) acks.delete(id);
      const asked = new Set(taskIds);
      const closed = subscription.closed.then((why) => {
        taskHandlers.delete(onTask);
        return why;
      });
      return { acknowledged: acknowledged.filter((x) => asked.has(x)), closed, close: () => subscription.close() };
    },
    async terminateSession() {
      const http = t as { terminateSession?: () => Promise<void>; sessionId?: string };
      if (entry.transport !== 'http' || !http.terminateSession || !http.sessionId) return;
      try {
        await http.terminateSession();
      } catch (err) {
        throw normalizeError(err, 'DELETE (end of session)', sdk);
      }
    },
  };
}

/** Calling a tool whose x-mcp-header declarations break the spec: refused before anything is sent. */
export function refusedToolError(server: string, r: RefusedTool): RefusedToolError {
  return new RefusedToolError(server, r.name, `server "${server}" declares tool ${JSON.stringify(r.name.slice(0, 80))} with an invalid x-mcp-header (rule: ${r.rule}): ${r.reason}; mcp-tasks does not call such a tool`);
}

function implementationOf(value: unknown): { name: string; version: string } | undefined {
  const v = value as { name?: unknown; version?: unknown } | undefined;
  return v && typeof v.name === 'string' && typeof v.version === 'string' ? { name: v.name, version: v.version } : undefined;
}
