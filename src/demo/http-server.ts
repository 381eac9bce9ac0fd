// Streamable HTTP front of the demo server. Host and Origin are checked first (DNS rebinding);
// every POST is then classified once with the SDK's inbound ladder; requests the task surface
// claims are answered here (with the header checks and HTTP statuses the transport asks for),
// everything else goes to the SDK's createMcpHandler.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  classifyInboundRequest,
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { ErrorCode, HEADER_METHOD, HEADER_NAME, HEADER_PROTOCOL_VERSION } from '../protocol/constants.js';
import { createDemoMcpServer } from './sdk-server.js';
import type { RpcRequest, TaskSurface } from './task-surface.js';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpDemo {
  server: Server;
  url: string;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

const rpcError = (id: unknown, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: { code, message, ...(data !== undefined ? { data } : {}) },
});

/**
 * A body past this is not even read to its end: the connection is closed instead. Up to it, an
 * oversized body is read and dropped, so that its sender finishes writing and reads the 413: a
 * server that stops reading and closes makes the client's write fail (EPIPE) before the answer.
 */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/** The body, or 'too large' (read to its end and dropped, the connection still usable). */
async function readBody(req: IncomingMessage): Promise<Buffer | 'too large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > DRAIN_LIMIT_BYTES) throw new Error('body far too large');
    if (size > MAX_BODY_BYTES) chunks.length = 0;
    else chunks.push(chunk as Buffer);
  }
  return size > MAX_BODY_BYTES ? 'too large' : Buffer.concat(chunks);
}

/** The SDK's InboundHttpRequest names an absent header by leaving it out. */
const presentHeaders = <K extends string>(h: Record<K, string | undefined>) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Partial<Record<K, string>>;
const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * HTTP status of a task-surface error, as the Streamable HTTP transport requires: a missing client
 * capability is 400, an unimplemented method 404 (with -32601); handler errors stay in-band (200).
 */
export function httpStatusForSurfaceError(code: number): number {
  if (code === ErrorCode.MissingCapability) return 400;
  if (code === ErrorCode.MethodNotFound) return 404;
  return 200;
}

/**
 * The value of an Mcp-Name header: plain ASCII as is, or the spec's `=?base64?…?=` form (task
 * ids with control characters or non-ASCII text arrive so). The SDK's own decoder is internal
 * to its HTTP entry (not exported in 2.4.0), which the claimed requests bypass.
 * Returns undefined for a malformed Base64 form.
 */
export function decodeNameHeader(value: string): string | undefined {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (!m) return value.startsWith('=?base64?') ? undefined : value;
  const bytes = Buffer.from(m[1]!, 'base64');
  if (bytes.toString('base64') !== m[1]) return undefined;
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return text.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The Mcp-Name value a claimed request must carry: the taskId for tasks/*, the tool for tools/call. */
function expectedName(request: RpcRequest): string | undefined {
  const p = request.params ?? {};
  if (request.method === 'tools/call') return typeof p.name === 'string' ? p.name : undefined;
  if (['tasks/get', 'tasks/update', 'tasks/cancel'].includes(request.method)) return typeof p.taskId === 'string' ? p.taskId : undefined;
  return undefined;
}

/** Hostnames a request may name in Host / Origin: localhost's, plus the address bound to if it is a real one. */
function allowedHostnames(host: string, base: string[]): string[] {
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return wildcard || base.includes(bracketed) ? base : [...base, bracketed];
}

async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/** What every request of one HTTP demo is answered with: the task surface first, the SDK's handler for the rest. */
interface Front {
  surface: TaskSurface;
  handler: ReturnType<typeof createMcpHandler>;
  host: string;
  /** The hostnames a Host header, and the origins an Origin header, may name. */
  hosts: string[];
  origins: string[];
  log: ((line: string) => void) | undefined;
}

export function startHttpDemo(surface: TaskSurface, opts: { port: number; host?: string; log?: ((line: string) => void) | undefined }): Promise<HttpDemo> {
  const host = opts.host ?? '127.0.0.1';
  const front: Front = {
    surface,
    handler: createMcpHandler(() => createDemoMcpServer(), { onerror: () => {} }),
    host,
    hosts: allowedHostnames(host, localhostAllowedHostnames()),
    origins: allowedHostnames(host, localhostAllowedOrigins()),
    log: opts.log,
  };
  const server = createServer((req, res) => {
    onRequest(front, req, res).catch((err: Error) => {
      opts.log?.(`request failed: ${err.message}`);
      if (!res.headersSent) sendJson(res, 500, rpcError(null, ErrorCode.InternalError, 'Internal error'));
      else res.destroy();
    });
  });
  // Idle keep-alive sockets are left for the client to close (undici drops them after the
  // Keep-Alive hint less a second): a server closing first races a request sent on the same
  // socket, which a loaded machine turns into "other side closed" (UND_ERR_SOCKET).
  server.keepAliveTimeout = 60_000;
  return listen(server, front, opts.port);
}

/** Listen on `port` (0: a free one) at the front's host; closing ends the listen streams and every connection. */
function listen(server: Server, front: Front, port: number): Promise<HttpDemo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, front.host, () => {
      server.off('error', reject);
      const addr = server.address();
      const bound = typeof addr === 'object' && addr ? addr.port : port;
      resolve({
        server,
        url: `http://${front.host}:${bound}/mcp`,
        close: () =>
          new Promise<void>((r) => {
            front.surface.closeStreams();
            server.closeAllConnections();
            server.close(() => r());
            void front.handler.close?.();
          }),
      });
    });
  });
}

async function onRequest(front: Front, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', `http://${front.host}`);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  // DNS rebinding: a page on another site must not reach this local server (403, the SDK's helpers).
  const probe = new Request(url, { method: 'HEAD', headers });
  const refused = hostHeaderValidationResponse(probe, front.hosts) ?? originValidationResponse(probe, front.origins);
  if (refused) {
    front.log?.(`refused a request naming another host or origin (HTTP ${refused.status})`);
    return sendResponse(res, refused);
  }
  if (url.pathname !== '/mcp') return sendJson(res, 404, { error: 'not found: the MCP endpoint is /mcp' });

  let read: { raw: Buffer; parsed: unknown } | undefined;
  if (req.method === 'POST') {
    const post = await readPost(req, res);
    if (post === 'answered') return;
    read = post;
    // Method names only: task ids are bearer handles and never go to a log.
    const method = (read.parsed as { method?: unknown } | null)?.method;
    if (typeof method === 'string') front.log?.(`request ${method}`);
    const claimed = await handleClaimed(front, req, res, read.parsed);
    if (claimed) return;
  }
  // Everything else: the SDK's own handler, with the body we already read.
  const request = new Request(url, { method: req.method ?? 'GET', headers, ...(read ? { body: new Uint8Array(read.raw) } : {}) });
  const response = await front.handler.fetch(request, read ? { parsedBody: read.parsed } : undefined);
  await sendResponse(res, response);
}

/** A POST's body and its JSON, or 'answered' when it is too large or no JSON (413, 400). */
async function readPost(req: IncomingMessage, res: ServerResponse): Promise<{ raw: Buffer; parsed: unknown } | 'answered'> {
  let body: Buffer | 'too large';
  try {
    body = await readBody(req);
  } catch {
    // Past the drain limit the rest of the body is never read: the connection cannot be reused.
    res.setHeader('connection', 'close');
    sendJson(res, 413, rpcError(null, ErrorCode.InvalidRequest, 'Request body too large'));
    return 'answered';
  }
  if (body === 'too large') {
    sendJson(res, 413, rpcError(null, ErrorCode.InvalidRequest, 'Request body too large'));
    return 'answered';
  }
  try {
    return { raw: body, parsed: JSON.parse(body.toString('utf8')) };
  } catch {
    sendJson(res, 400, rpcError(null, ErrorCode.ParseError, 'Parse error: the body is not JSON'));
    return 'answered';
  }
}

/** A request the task surface claims, answered here; false leaves it to the SDK's handler. */
async function handleClaimed(front: Front, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean> {
  const msg = body as RpcRequest;
  if (!msg || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.method !== 'string' || msg.id === undefined) return false;
  if (!front.surface.claims(msg)) return false;
  const verdict = classifyInboundRequest({
    httpMethod: 'POST',
    ...presentHeaders({ protocolVersionHeader: header(req, HEADER_PROTOCOL_VERSION), mcpMethodHeader: header(req, HEADER_METHOD), mcpNameHeader: header(req, HEADER_NAME) }),
    body,
  });
  if (verdict.kind === 'reject') {
    sendJson(res, verdict.httpStatus, rpcError(msg.id, verdict.code, verdict.message, verdict.data));
    return true;
  }
  if (verdict.kind === 'legacy') return false; // 2025-11-25 traffic: the SDK's stateless legacy serving
  const mismatch = headerMismatch(req, msg);
  if (mismatch) {
    sendJson(res, 400, mismatch);
    return true;
  }
  if (msg.method === 'subscriptions/listen') {
    serveListen(front, res, msg);
    return true;
  }
  const outcome = await front.surface.handle(msg);
  if (outcome.kind === 'drop') {
    front.log?.('fault drop-create-response: task stored, connection closed before the response');
    req.socket.destroy();
    return true;
  }
  if (outcome.kind === 'error') sendJson(res, httpStatusForSurfaceError(outcome.code), rpcError(msg.id, outcome.code, outcome.message, outcome.data));
  else sendJson(res, 200, { jsonrpc: '2.0', id: msg.id, result: outcome.result });
  return true;
}

/** The -32020 error body when the Mcp-Method or Mcp-Name header disagrees with the body; undefined when both agree. */
function headerMismatch(req: IncomingMessage, msg: RpcRequest): ReturnType<typeof rpcError> | undefined {
  const methodHeader = header(req, HEADER_METHOD);
  if (methodHeader !== msg.method) {
    return rpcError(msg.id, ErrorCode.HeaderMismatch, `Bad Request: Mcp-Method header ${JSON.stringify(methodHeader ?? null)} does not match body method ${msg.method}`, {
      mismatch: { header: methodHeader ?? '(missing)', body: msg.method },
    });
  }
  const want = expectedName(msg);
  const rawName = header(req, HEADER_NAME);
  const nameHeader = rawName === undefined ? undefined : decodeNameHeader(rawName.trim());
  if (want !== undefined && nameHeader !== want) {
    return rpcError(msg.id, ErrorCode.HeaderMismatch, `Bad Request: Mcp-Name header does not match the body (${nameHeader === undefined ? 'header missing' : 'different value'})`, {
      mismatch: { header: nameHeader === undefined ? '(missing)' : 'Mcp-Name', body: msg.method === 'tools/call' ? 'params.name' : 'params.taskId' },
    });
  }
  return undefined;
}

/** A listen stream: the answer to this POST is an event stream held open until either side ends it. */
function serveListen(front: Front, res: ServerResponse, msg: RpcRequest): void {
  let open = true;
  const outcome = front.surface.listen(msg, (m) => {
    if (!open) return;
    if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
    res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
    // The listen result ends the subscription, and the stream with it.
    if ('id' in m) {
      open = false;
      res.end();
    }
  });
  if (outcome.kind === 'error') {
    open = false;
    return sendJson(res, httpStatusForSurfaceError(outcome.code), rpcError(msg.id, outcome.code, outcome.message, outcome.data));
  }
  front.log?.(`listen stream opened (${outcome.subscription.size} task${outcome.subscription.size === 1 ? '' : 's'})`);
  // Comments keep idle proxies from timing the stream out; they carry nothing.
  const keepAlive = setInterval(() => open && res.write(': keepalive\n\n'), 15_000);
  keepAlive.unref();
  res.on('close', () => {
    clearInterval(keepAlive);
    if (open) front.log?.('listen stream closed by the client');
    open = false;
    outcome.subscription.close();
  });
}
