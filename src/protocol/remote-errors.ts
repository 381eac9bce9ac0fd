// Typed failures of talking to a server. The connection layer throws them; lifecycle logic and
// main.ts classify them by type and code, never by message text.
import { ErrorCode } from './constants.js';

/** The server answered with a JSON-RPC error. */
export class RpcResponseError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown, readonly method?: string, readonly httpStatus?: number) {
    super(message);
    this.name = 'RpcResponseError';
  }
  get retryAfterMs(): number | undefined {
    const d = this.data as { retryAfterMs?: unknown } | undefined;
    return typeof d?.retryAfterMs === 'number' && d.retryAfterMs >= 0 ? d.retryAfterMs : undefined;
  }
  /** A back-off request: a known rate-limit code, or any error that says how long to wait. */
  get isRateLimited(): boolean {
    return this.code === ErrorCode.RateLimited || this.code === ErrorCode.RateLimitedLegacy || this.retryAfterMs !== undefined;
  }
  get isUnknownTask(): boolean {
    return this.code === ErrorCode.InvalidParams && (this.method?.startsWith('tasks/') ?? false);
  }
  get isMissingCapability(): boolean {
    return this.code === ErrorCode.MissingCapability || this.code === ErrorCode.MissingCapabilityLegacy;
  }
}

const notSent = new WeakSet<object>();
/** A failure before the request was written (building its headers, a tool we refuse to call). */
export function markNotSent<T>(err: T): T {
  if (err && typeof err === 'object') notSent.add(err);
  return err;
}
export const wasNotSent = (err: unknown): boolean => typeof err === 'object' && err !== null && notSent.has(err);

/** No answer: connection refused or reset, DNS, a closed stdio pipe, a timeout. Often transient. */
export class TransportError extends Error {
  constructor(message: string, override readonly cause?: unknown, readonly requestMayHaveArrived = true) {
    super(message);
    this.name = 'TransportError';
  }
}

/** What a request to the server carried to authenticate it: the next step after a refusal depends on it. */
export type PresentedCredential = { kind: 'bearer'; variable: string } | { kind: 'env-headers' } | { kind: 'sign-in' } | { kind: 'none' };

/** The server refused our credentials (HTTP 401/403). */
export class AuthRefusedError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Set where the connection is known (connection/connect.ts). */
    readonly credential?: PresentedCredential,
  ) {
    super(message);
    this.name = 'AuthRefusedError';
  }
}

/** The server's answer does not match the protocol (failed schema validation, wrong generation). */
export class ProtocolViolationError extends Error {
  constructor(message: string, readonly detail?: string) {
    super(message);
    this.name = 'ProtocolViolationError';
  }
}

/**
 * HTTP 429: the server refused the request for now (it was not admitted) and says, in
 * `Retry-After`, how long to wait. A transport-level refusal, so it never counts as a created task.
 */
export class RateLimitedError extends TransportError {
  constructor(readonly retryAfterMs: number | undefined, message: string) {
    super(message, undefined, false);
    this.name = 'RateLimitedError';
  }
}

/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Returns the wait in ms (0 for
 * a date already past), or undefined when the value is neither.
 */
export function parseRetryAfter(value: string, nowMs: number): number | undefined {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP-date names its weekday and GMT; Date.parse alone accepts far too much.
  if (/^[A-Za-z]{3},? .+ GMT$|^[A-Za-z]+day, .+ GMT$|^[A-Za-z]{3} [A-Za-z]{3} +\d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/.test(v)) {
    const at = Date.parse(v);
    if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  return undefined;
}
