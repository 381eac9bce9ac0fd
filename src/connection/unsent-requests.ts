// Which failed HTTP requests provably never left: no byte of them was written to a socket (the
// connection failed first: refused, reset or cut during the TLS handshake, timed out). Such a
// request cannot have created anything, so it is "not sent" and may go again on a new connection,
// never "in doubt". Node's fetch (undici) says so on its diagnostics channels: a request is
// created, then `undici:client:sendHeaders` is published right before its first byte is written.
// A request whose creation was seen and whose headers were never sent was not written. The
// node:http fetch the transport uses (node-http-fetch.ts) reports the same two moments (currentAttempt). Anything
// not seen (another fetch, a channel renamed) counts as possibly sent, so this only ever narrows
// "in doubt" where it is certain.
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { requestIdOf } from './bounded-fetch.js';

export interface Attempt {
  created: boolean;
  written: boolean;
}

const current = new AsyncLocalStorage<Attempt>();
const attempts = new WeakMap<object, Attempt>();
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:request:create', (message) => {
    const attempt = current.getStore();
    const request = (message as { request?: object }).request;
    if (!attempt || !request) return;
    attempt.created = true;
    attempts.set(request, attempt);
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const request = (message as { request?: object }).request;
    const attempt = request ? attempts.get(request) : undefined;
    if (attempt) attempt.written = true;
  });
}

/**
 * The attempt under way, for a fetch that is not undici's (node-http-fetch.ts): it says
 * itself when its request was created and when a byte of it could first have left.
 */
export const currentAttempt = (): Attempt | undefined => current.getStore();

/**
 * fetch that, when a JSON-RPC POST fails without a byte of it written, adds its id to `unsent`
 * (the caller then knows the request never reached the server).
 */
export function unsentTrackingFetch(inner: typeof fetch, unsent: Set<string>): typeof fetch {
  listen();
  return async (input, init) => {
    const attempt: Attempt = { created: false, written: false };
    try {
      return await current.run(attempt, () => inner(input, init));
    } catch (err) {
      const id = attempt.created && !attempt.written ? requestIdOf(init) : undefined;
      if (id !== undefined) unsent.add(id);
      throw err;
    }
  };
}
