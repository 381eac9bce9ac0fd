// The fetch the HTTP transport uses: HTTP 429 is a back-off the server asks for, not a protocol
// error. The SDK turns a 429 into an opaque HTTP error without its headers, so Retry-After is
// read here, before the SDK sees the response.
import { ProtocolViolationError, RateLimitedError, parseRetryAfter } from '../protocol/remote-errors.js';

type Fetch = typeof fetch;

export function retryAfterFetch(server: string, inner: Fetch = fetch, now: () => number = Date.now): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status !== 429) return response;
    await response.body?.cancel().catch(() => {});
    const header = response.headers.get('retry-after');
    if (header === null) return Promise.reject(new RateLimitedError(undefined, `server "${server}" is rate-limiting (HTTP 429 without Retry-After)`));
    const ms = parseRetryAfter(header, now());
    if (ms === undefined) {
      return Promise.reject(new ProtocolViolationError(`server "${server}" answered HTTP 429 with a malformed Retry-After header: ${JSON.stringify(header.slice(0, 80))}`));
    }
    return Promise.reject(new RateLimitedError(ms, `server "${server}" is rate-limiting: retry after ${Math.ceil(ms / 1000)} s (HTTP 429)`));
  };
}
