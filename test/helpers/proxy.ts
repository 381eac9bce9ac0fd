// A real HTTP proxy in front of the demo server, for servers we cannot get otherwise: one that
// refuses credentials, answers some requests with its own errors, or words a result differently.
// Everything it does not take over is forwarded as is (SSE streams included).
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Socket } from 'node:net';

export interface ProxiedRequest {
  /** The HTTP method (POST, GET for a standalone stream, DELETE ending a session). */
  method: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ProxyReply {
  status: number;
  headers?: OutgoingHttpHeaders;
  body: string;
}

export interface ProxyHooks {
  /** Answer this request here instead of forwarding it; `'hold'`: never forward it, never answer (the socket stays open). */
  answer?: (req: ProxiedRequest) => ProxyReply | 'hold' | undefined;
  /** Rewrite the upstream answer to this request (buffered; for JSON answers). */
  rewrite?: (req: ProxiedRequest) => ((body: string) => string) | undefined;
  /** Forward this body instead of the client's (a client that declares less, for example); with `headers`, these headers too. */
  rewriteRequest?: (req: ProxiedRequest) => Buffer | { body: Buffer; headers: IncomingHttpHeaders } | undefined;
  /**
   * A hostile answer: the request is forwarded first (so the server acts on it and the effect can
   * be counted), then its answer is replaced by what this behaviour sends.
   */
  hostile?: (req: ProxiedRequest) => HostileAnswer | undefined;
  /**
   * Forward the request (so the server acts on it), then answer with this instead of what came
   * back: any status, content type or body (a hostile or broken server). `null` cuts the
   * connection without an answer; `'hold'` sends nothing and keeps the socket open (an answer
   * still in flight). Undefined: the upstream answer as is. A promise delays the answer until it
   * settles (an answer that comes late).
   */
  replace?: (req: ProxiedRequest, upstream: UpstreamAnswer) => ProxyReply | 'hold' | null | undefined | Promise<ProxyReply | 'hold' | null | undefined>;
  /** Which requests `replace` sees (default: all). The others' answers stream through as they come, so a listen stream stays live. */
  replaceWhen?: (req: ProxiedRequest) => boolean;
  /**
   * Hold this request until the promise settles (the network's latency on the way in), then
   * forward it if it resolves true. A request dropped (false), or whose client went away
   * meanwhile, is never forwarded nor answered, as a gateway drops a request whose client aborted
   * before it was passed upstream (nginx's default).
   */
  holdRequest?: (req: ProxiedRequest) => Promise<boolean> | undefined;
  /**
   * Rewrite each `data:` payload of an event-stream answer as it passes, the stream kept flowing
   * (a server request mid-call still reaches the client before the answer is rewritten).
   * `null` cuts the stream there (the connection is destroyed, as a dropped network would).
   */
  rewriteEvents?: (req: ProxiedRequest) => ((data: string) => string | null) | undefined;
  /**
   * Each TCP connection as it is accepted (1 for the first), before any byte of it is read (over
   * TLS: before the handshake). `'reset'`: close it at once with a TCP RST.
   */
  connection?: (n: number) => 'reset' | undefined;
}

export interface ProxyOptions {
  /** Serve HTTPS with this key and certificate (the client must trust it: NODE_EXTRA_CA_CERTS). */
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export interface UpstreamAnswer {
  status: number;
  contentType: string;
  body: string;
  /** The JSON-RPC message in the body (plain JSON, or the last `data:` event of an SSE stream). */
  message: Record<string, unknown> | undefined;
}

/**
 * The request's headers without the hop-by-hop ones (RFC 9110 §7.6.1), as a proxy forwards them.
 * Each request goes upstream on a connection of its own (agent: false): a kept-alive upstream
 * connection that the server closes as the next request is written resets that request, and a
 * client would see a reset the test never asked for.
 */
function hopByHopOut(headers: IncomingHttpHeaders | OutgoingHttpHeaders): OutgoingHttpHeaders {
  const { connection: _c, 'keep-alive': _k, 'proxy-connection': _p, ...kept } = headers as OutgoingHttpHeaders;
  return kept;
}

/** The JSON-RPC message of an answer body, JSON or SSE. */
export function messageOf(body: string, contentType: string): Record<string, unknown> | undefined {
  try {
    if (contentType.includes('text/event-stream')) {
      const datas = body.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean);
      for (const d of datas.reverse()) {
        const m = JSON.parse(d) as Record<string, unknown>;
        if ('result' in m || 'error' in m) return m;
      }
      return undefined;
    }
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC method of a request body. */
export function methodOf(body: Buffer): string | undefined {
  try {
    return (JSON.parse(body.toString('utf8')) as { method?: string }).method;
  } catch {
    return undefined;
  }
}

/**
 * - endless-sse: an event stream whose one `data:` line never ends (until the client goes away);
 * - silent: headers (an event stream) and then nothing, the socket held open;
 * - cut-mid-body: the start of the real answer, then the socket closed;
 * - oversized: a JSON answer of `bytes` bytes (chunked, no Content-Length);
 * - dropped: no answer at all, the socket closed (the server has acted on the request).
 */
export type HostileAnswer = { kind: 'endless-sse' } | { kind: 'silent' } | { kind: 'cut-mid-body' } | { kind: 'oversized'; bytes: number } | { kind: 'dropped' };

function sendHostile(res: ServerResponse, answer: HostileAnswer, upstream: { status: number; body: Buffer }): void {
  switch (answer.kind) {
    case 'endless-sse': {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: ');
      const chunk = 'x'.repeat(64 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) { /* until the socket pushes back */ }
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
      return;
    }
    case 'silent':
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      return;
    case 'dropped':
      res.destroy();
      return;
    case 'cut-mid-body':
      res.writeHead(upstream.status, { 'content-type': 'application/json', 'content-length': String(upstream.body.length) });
      res.write(upstream.body.subarray(0, Math.floor(upstream.body.length / 2)));
      setImmediate(() => res.socket?.destroy());
      return;
    case 'oversized': {
      res.writeHead(200, { 'content-type': 'application/json' });
      const head = '{"jsonrpc":"2.0","id":"x","result":{"pad":"';
      res.write(head);
      let left = answer.bytes - head.length - 3;
      const chunk = 'y'.repeat(64 * 1024);
      const pump = () => {
        while (left > 0 && !res.destroyed) {
          const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
          left -= piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end('"}}');
      };
      pump();
      return;
    }
  }
}

export interface Proxy {
  url: string;
  /** Requests held by `holdRequest`, or forwarded upstream (past `answer` and `hostile`) whose answer has not fully come back. */
  pending(): number;
  close(): Promise<void>;
}

export async function startProxy(targetUrl: string, hooks: ProxyHooks = {}, options: ProxyOptions = {}): Promise<Proxy> {
  const target = new URL(targetUrl);
  let pending = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: ProxiedRequest = { method: req.method ?? 'GET', headers: req.headers, body: Buffer.concat(chunks) };
      const held = hooks.holdRequest?.(seen);
      if (held === undefined) return forward(seen, req, res);
      pending++;
      void held.then(
        (go) => {
          pending--;
          if (go && !res.destroyed && !req.socket.destroyed) forward(seen, req, res);
        },
        () => pending--,
      );
    });
  };
  const forward = (seen: ProxiedRequest, req: IncomingMessage, res: ServerResponse) => {
    const own = hooks.answer?.(seen);
    if (own === 'hold') return;
    if (own) {
      res.writeHead(own.status, { 'content-type': 'application/json', ...own.headers });
      res.end(own.body);
      return;
    }
    const hostile = hooks.hostile?.(seen);
    if (hostile) {
      const up = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers: hopByHopOut(req.headers), agent: false }, (r) => {
        const body: Buffer[] = [];
        r.on('data', (c: Buffer) => body.push(c));
        r.on('end', () => sendHostile(res, hostile, { status: r.statusCode ?? 502, body: Buffer.concat(body) }));
      });
      up.on('error', () => res.destroy());
      up.end(seen.body);
      return;
    }
    const rewrite = hooks.rewrite?.(seen);
    const rewriteEvent = hooks.rewriteEvents?.(seen);
    const rewritten = hooks.rewriteRequest?.(seen);
    const newBody = Buffer.isBuffer(rewritten) ? rewritten : rewritten?.body;
    const headers = newBody ? { ...(Buffer.isBuffer(rewritten) ? req.headers : rewritten!.headers), 'content-length': String(newBody.length) } : req.headers;
    pending++;
    let answered = false;
    const done = () => {
      if (!answered) pending--;
      answered = true;
    };
    const up = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers: hopByHopOut(headers), agent: false }, (r) => {
      r.once('end', done);
      r.once('close', done);
      if (hooks.replace && (hooks.replaceWhen?.(seen) ?? true)) {
        const body: Buffer[] = [];
        r.on('data', (c: Buffer) => body.push(c));
        const answerWith = async (text: string, contentType: string) => {
          const mine = await hooks.replace!(seen, { status: r.statusCode ?? 502, contentType, body: text, message: messageOf(text, contentType) });
          if (res.destroyed) return;
          if (mine === null) return res.destroy();
          if (mine === 'hold') return;
          if (mine === undefined) {
            const { 'transfer-encoding': _chunked, ...kept } = r.headers;
            res.writeHead(r.statusCode ?? 502, { ...kept, 'content-length': String(Buffer.byteLength(text)) });
            res.end(text);
            return;
          }
          res.writeHead(mine.status, { 'content-type': 'application/json', ...mine.headers });
          res.end(mine.body);
        };
        r.on('end', () => void answerWith(Buffer.concat(body).toString('utf8'), String(r.headers['content-type'] ?? '')));
        return;
      }
      if (rewriteEvent && String(r.headers['content-type'] ?? '').includes('text/event-stream')) {
        const { 'content-length': _length, ...kept } = r.headers;
        res.writeHead(r.statusCode ?? 502, kept);
        res.flushHeaders();
        let partial = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => {
          const lines = (partial + chunk).split('\n');
          partial = lines.pop()!;
          let out = '';
          for (const l of lines) {
            const data = l.startsWith('data:') ? rewriteEvent(l.slice(5).trim()) : l;
            if (data === null) {
              res.write(out);
              res.destroy();
              r.destroy();
              return;
            }
            out += `${l.startsWith('data:') ? `data: ${data}` : l}\n`;
          }
          res.write(out);
        });
        r.on('end', () => res.end(partial));
        return;
      }
      if (!rewrite) {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
        return;
      }
      const body: Buffer[] = [];
      r.on('data', (c: Buffer) => body.push(c));
      r.on('end', () => {
        res.writeHead(r.statusCode ?? 502, { 'content-type': r.headers['content-type'] ?? 'application/json' });
        res.end(rewrite(Buffer.concat(body).toString('utf8')));
      });
    });
    up.on('error', () => {
      done();
      res.destroy();
    });
    up.end(newBody ?? seen.body);
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handle) : createServer(handle);
  // TCP connections are accepted here first, so a hook can cut one before any byte of it is read.
  let accepted = 0;
  // Every accepted socket, so close() ends them all: a connection handed to the HTTP server by an
  // emitted 'connection' is not one its closeAllConnections() knows, and front.close() waits for it.
  const sockets = new Set<Socket>();
  const front = createNetServer((socket) => {
    if (hooks.connection?.(++accepted) === 'reset') return void socket.resetAndDestroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    server.emit('connection', socket);
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${(front.address() as { port: number }).port}/mcp`,
    pending: () => pending,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close();
        for (const socket of sockets) socket.destroy();
        front.close(() => r());
      }),
  };
}

/** A JSON-RPC error answer to the request in `body` (same id). */
export function rpcErrorReply(body: Buffer, code: number, message: string): ProxyReply {
  const { id } = JSON.parse(body.toString('utf8')) as { id: unknown };
  return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) };
}
