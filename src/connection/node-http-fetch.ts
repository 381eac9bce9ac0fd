// The fetch the SDK's HTTP transport gets: a request over node:http / node:https that resolves to
// a standard global `Response` whose body is a web stream (Readable.toWeb), so the SDK reads JSON
// and SSE from it as from any fetch. Why: on Node 20 the first undici connection compiles llhttp's
// WebAssembly, about 120 ms of CPU and 30 MB of peak RSS per process, more than the rest of a
// `get`'s request; Headers and Response alone (undici's JS, which the SDK loads anyway) cost a
// fraction of that. On Node 22 and 24 undici's connection costs less, but still 0.8 MB (22) and
// 1.3 MB (24) of a `get`'s peak RSS, CPU unchanged (npm run bench; docs/performance.md). No
// library does this: node-fetch's Response is its own class with a Node stream body, undici (the
// package) parses with the same llhttp WebAssembly.
//
// Only what the transport sends takes this path: string or URL input, a string, bytes or
// URLSearchParams body, and redirect 'manual' or 'error' (the SDK follows redirects itself, within
// the origin). Anything else — redirect 'follow', a Request, a stream or form body — goes to the
// global fetch unchanged.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { currentAttempt } from './unsent-requests.js';

type Fetch = typeof fetch;

/** Statuses whose responses have no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** As undici reports a network failure: TypeError('fetch failed') with the system error as cause (its code is read by connect.ts). */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

function bodyOf(body: RequestInit['body']): { bytes?: Buffer; type?: string } | undefined {
  if (body === undefined || body === null) return {};
  if (typeof body === 'string') return { bytes: Buffer.from(body, 'utf8'), type: 'text/plain;charset=UTF-8' };
  if (body instanceof URLSearchParams) return { bytes: Buffer.from(body.toString(), 'utf8'), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (body instanceof ArrayBuffer) return { bytes: Buffer.from(body) };
  if (ArrayBuffer.isView(body)) return { bytes: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
  return undefined; // a stream, Blob or FormData: the global fetch handles it
}

function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  return headers;
}

export const nodeHttpFetch: Fetch = async (input, init) => {
  const redirect = init?.redirect ?? 'follow';
  const body = bodyOf(init?.body);
  const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || redirect === 'follow' || !body || init?.window !== undefined) return fetch(input, init);
  // Loaded on first use, not at the top: an http:// server never needs node:https, a stdio one neither.
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);

  const headers: Record<string, string> = {};
  for (const [name, value] of new Headers(init?.headers)) headers[name] = value;
  headers.accept ??= '*/*';
  if (body.type && headers['content-type'] === undefined) headers['content-type'] = body.type;
  if (body.bytes) headers['content-length'] = String(body.bytes.byteLength);
  const method = (init?.method ?? 'GET').toUpperCase();

  return new Promise<Response>((resolve, reject) => {
    const req = request(url, { method, headers });
    // For "not sent" (unsent-requests.ts): nothing of the request can leave before the connection
    // is up (for https, before the TLS handshake is done: bytes written earlier wait in TLS). A
    // socket that is already connected (kept alive) counts as written at once.
    const attempt = currentAttempt();
    if (attempt) {
      attempt.created = true;
      const tls = url.protocol === 'https:';
      req.once('socket', (socket: Socket) => {
        const up = tls ? (socket as Socket & { _secureEstablished?: boolean })._secureEstablished === true : !socket.connecting;
        if (up) attempt.written = true;
        else socket.once(tls ? 'secureConnect' : 'connect', () => (attempt.written = true));
      });
    }
    let settled = false;
    let response: IncomingMessage | undefined;
    // As the global fetch: the abort reason rejects the pending fetch, or errors the body being read.
    const onAbort = () => {
      const reason = abortReason(signal!) as Error;
      response?.destroy(reason);
      req.destroy(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      settled = true;
      reject(signal?.aborted ? abortReason(signal) : fetchFailed(err));
    });
    req.on('response', (res) => {
      settled = true;
      response = res;
      const status = res.statusCode ?? 0;
      if (redirect === 'error' && status >= 300 && status < 400 && res.headers.location !== undefined) {
        res.destroy();
        reject(fetchFailed(new Error('unexpected redirect')));
        return;
      }
      let headersOut: Headers;
      try {
        headersOut = responseHeaders(res);
      } catch (err) {
        res.destroy();
        reject(fetchFailed(err));
        return;
      }
      res.on('close', () => signal?.removeEventListener('abort', onAbort));
      const noBody = NULL_BODY.has(status) || method === 'HEAD';
      if (noBody) res.on('error', () => {}).resume();
      // A web stream over the socket: cancelling it (the SDK closing an SSE stream) destroys the request.
      const stream = noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
      try {
        resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: headersOut }));
      } catch (err) {
        res.destroy();
        reject(fetchFailed(err));
      }
    });
    req.end(body.bytes);
  });
};
