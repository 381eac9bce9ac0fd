// Raw JSON-RPC requests over the SDK's own transport: the SDK refuses to send tasks/* itself and
// rejects task results from callTool, so these go out with our own string ids and their answers
// are taken before the SDK's dispatcher sees them (the Inspector does the same).
import type { Transport } from '@modelcontextprotocol/client';
import { InterruptedBeforeSendError } from './connection-errors.js';
import { ProtocolViolationError, RpcResponseError, TransportError, markNotSent } from '../protocol/remote-errors.js';
import { abortFanout } from './abort-fanout.js';
import type { ServerRequest } from './connection-types.js';

export interface SendOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ChannelOptions {
  /** `_meta` every request carries (2026-07-28: protocol version, client info, capabilities). */
  envelope: Record<string, unknown>;
  timeoutMs: number;
  /** Ids whose request failed before a byte was written (filled by the HTTP fetch). */
  unsent: Set<string>;
  debug?: ((line: string) => void) | undefined;
  /** Whatever the SDK or the platform threw, as our typed errors (connect.ts's normalizeError). */
  normalize(err: unknown, method: string): Error;
}

type Pending = { resolve: (m: Record<string, unknown>) => void; reject: (e: unknown) => void; timer: NodeJS.Timeout };

export class RawChannel {
  private readonly pending = new Map<string, Pending>();
  /** Ids given up on (timeout, interrupt): a late answer to one is dropped, not handed to the SDK. */
  private readonly abandoned = new Set<string>();
  private serverRequestHandler: ((request: ServerRequest) => boolean) | undefined;
  private seq = 0;
  private readonly runId = Math.random().toString(36).slice(2, 8);
  /** A watch sends thousands of requests under one signal: concurrent ones share one listener. */
  private readonly watchAbort = abortFanout();

  constructor(
    private readonly t: Transport,
    private readonly o: ChannelOptions,
  ) {
    this.takeAnswers();
    this.failOnClose();
  }

  /** Offer server→client requests to `handler` before the SDK's dispatcher; it returns true when it took one. */
  interceptServerRequests(handler: (request: ServerRequest) => boolean): void {
    this.serverRequestHandler = handler;
  }

  private takeAnswers(): void {
    const inner = this.t.onmessage;
    this.t.onmessage = (msg, extra) => {
      const m = msg as { id?: unknown; method?: unknown };
      if (this.serverRequestHandler && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')) {
        const params = (msg as { params?: unknown }).params;
        const request: ServerRequest = { id: m.id, method: m.method, ...(params && typeof params === 'object' ? { params: params as Record<string, unknown> } : {}) };
        if (this.serverRequestHandler(request)) return;
      }
      if (typeof m.id === 'string' && m.method === undefined) {
        const p = this.pending.get(m.id);
        if (p) {
          this.pending.delete(m.id);
          clearTimeout(p.timer);
          p.resolve(msg as unknown as Record<string, unknown>);
          return;
        }
        if (this.abandoned.delete(m.id)) return; // a late answer to a request we gave up on
      }
      inner?.(msg, extra);
    };
  }

  private failOnClose(): void {
    const innerClose = this.t.onclose;
    this.t.onclose = () => {
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new TransportError('the connection closed before an answer came'));
      }
      this.pending.clear();
      innerClose?.();
    };
  }

  /** Fail one pending request now (an answer past a size bound: bounded-fetch.ts). */
  fail(id: string | undefined, err: Error): void {
    const p = id === undefined ? undefined : this.pending.get(id);
    if (!p || id === undefined) return;
    this.pending.delete(id);
    this.abandoned.add(id);
    clearTimeout(p.timer);
    p.reject(err);
  }

  /**
   * One raw request with its own id; `headers` go on this HTTP request only (Mcp-Param-*). Not a
   * byte of it written (the connection failed first): once more, on a new connection; failing
   * again it is "not sent", never in doubt, since it cannot have created anything.
   */
  async send(method: string, params: Record<string, unknown>, ro: SendOptions, headers?: Record<string, string>, attempt = 0): Promise<unknown> {
    const id = `mcp-tasks-${this.runId}-${++this.seq}`;
    const message = { jsonrpc: '2.0' as const, id, method, params: { ...params, _meta: { ...this.o.envelope, ...((params._meta as object) ?? {}) } } };
    // Interrupted before it went out (Ctrl-C while connecting): nothing is sent, nothing to recover.
    if (ro.signal?.aborted) throw markNotSent(new InterruptedBeforeSendError(method, `interrupted before ${method} was sent; nothing was sent`));
    const sentAt = Date.now();
    this.o.debug?.(`→ ${method}`);
    let response: Record<string, unknown>;
    try {
      response = await this.answerTo(id, method, message, ro, headers);
    } catch (err) {
      const e = this.o.normalize(err, method);
      if (!this.o.unsent.delete(id)) throw e;
      if (attempt === 0 && !ro.signal?.aborted) {
        this.o.debug?.(`${method}: the connection failed before the request was written (${e.message}); sending it once more on a new connection`);
        return await this.send(method, params, ro, headers, 1);
      }
      throw markNotSent(e);
    }
    return resultOf(response, method, (line) => this.o.debug?.(`${line} in ${Date.now() - sentAt} ms`));
  }

  /** Send `message` and wait for its answer, its timeout, the caller's abort or its stream's end. */
  private async answerTo(id: string, method: string, message: object, ro: SendOptions, headers: Record<string, string> | undefined): Promise<Record<string, unknown>> {
    const requestTimeout = ro.timeoutMs ?? this.o.timeoutMs;
    const ac = new AbortController();
    // Removed when the request settles (see watchAbort).
    let unwatch: (() => void) | undefined;
    try {
      return await new Promise<Record<string, unknown>>((resolve, reject) => {
        const giveUp = (err: Error, abort: boolean) => {
          if (!this.pending.delete(id)) return;
          clearTimeout(timer);
          this.abandoned.add(id);
          if (abort) ac.abort();
          reject(err);
        };
        const timer = setTimeout(() => giveUp(new TransportError(`no answer to ${method} within ${Math.round(requestTimeout / 1000)} s`), true), requestTimeout);
        this.pending.set(id, { resolve, reject, timer });
        unwatch = this.watchAbort(ro.signal, () => giveUp(new TransportError(`${method} interrupted`), true));
        // An answer stream that ends without the answer fails the request now, not at the timeout.
        const onRequestStreamEnd = () => giveUp(new TransportError(`the answer stream to ${method} ended before the answer came`), false);
        this.t.send(message as never, { requestSignal: ac.signal, onRequestStreamEnd, ...(headers ? { headers } : {}) } as never).catch((e: unknown) => {
          if (!this.pending.delete(id)) return;
          clearTimeout(timer);
          reject(e);
        });
      });
    } finally {
      unwatch?.();
    }
  }
}

/** A JSON-RPC answer's result, or the typed error it carries. */
function resultOf(response: Record<string, unknown>, method: string, debug: (line: string) => void): unknown {
  const error = response.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  debug(`← ${method} ${error ? `error ${String(error.code)}` : 'ok'}`);
  if (error) {
    if (typeof error.code !== 'number') throw new ProtocolViolationError(`${method}: the server sent a malformed error`);
    throw new RpcResponseError(error.code, String(error.message ?? ''), error.data, method);
  }
  if (!('result' in response)) throw new ProtocolViolationError(`${method}: the server's answer has neither result nor error`);
  return response.result;
}
