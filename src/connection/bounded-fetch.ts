// Size bounds on every HTTP answer, applied to the bytes as they arrive (before the SDK parses
// them), so a hostile or broken server cannot exhaust the heap: an SSE `data:` line that never
// ends would otherwise grow one string until V8 aborts.
import { TransportError } from '../protocol/remote-errors.js';

type Fetch = typeof fetch;

const MiB = 1024 * 1024;

/** The bounds, named in the error a client sees when one is passed. */
export const RESPONSE_BOUNDS = {
  /** One JSON answer body. */
  jsonBodyBytes: 16 * MiB,
  /** One SSE event (all its lines up to the blank line that ends it). */
  sseEventBytes: 16 * MiB,
  /** Everything one request's SSE answer stream carries. */
  requestStreamBytes: 64 * MiB,
} as const;

/** An answer larger than a bound: a transport failure (the request may have been acted on). */
export class ResponseTooLargeError extends TransportError {
  constructor(message: string) {
    super(message, undefined, true);
    this.name = 'ResponseTooLargeError';
  }
}

/** Told which request's answer broke a bound (the JSON-RPC id in the request body), so its caller fails now. */
export type OnResponseFault = (requestId: string | undefined, err: Error) => void;

const mib = (n: number) => `${n / MiB} MiB`;

/** The JSON-RPC id in a request body (our ids are strings), if there is one. */
export function requestIdOf(init: RequestInit | undefined): string | undefined {
  if (typeof init?.body !== 'string') return undefined;
  try {
    const id = (JSON.parse(init.body) as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export function boundedFetch(server: string, inner: Fetch = fetch, onFault?: OnResponseFault): Fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.body) return response;
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const sse = mediaType === 'text/event-stream';
    const method = (init?.method ?? 'GET').toUpperCase();
    const fail = (what: string): ResponseTooLargeError => {
      const err = new ResponseTooLargeError(`server "${server}" sent ${what}; mcp-tasks stopped reading it`);
      onFault?.(requestIdOf(init), err);
      return err;
    };
    if (!sse) {
      const declared = Number(response.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > RESPONSE_BOUNDS.jsonBodyBytes) {
        await response.body.cancel().catch(() => {});
        throw fail(`an answer of ${declared} bytes (the bound for one answer body is ${mib(RESPONSE_BOUNDS.jsonBodyBytes)})`);
      }
    }
    let total = 0;
    let eventBytes = 0;
    // SSE lines end with CRLF, LF or CR; an empty line ends an event.
    let atLineStart = true;
    let lastWasCR = false;
    /** The bound a chunk breaks, counted with all before it; undefined while within them. */
    const breaks = (chunk: Uint8Array): ResponseTooLargeError | undefined => {
      total += chunk.byteLength;
      if (!sse) return total > RESPONSE_BOUNDS.jsonBodyBytes ? fail(`an answer body larger than ${mib(RESPONSE_BOUNDS.jsonBodyBytes)} (the bound for one answer body)`) : undefined;
      // The standalone GET stream lives as long as the session; only its events are bounded.
      if (method === 'POST' && total > RESPONSE_BOUNDS.requestStreamBytes) return fail(`more than ${mib(RESPONSE_BOUNDS.requestStreamBytes)} on one request's event stream (the bound for one request's stream)`);
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i]!;
        if (b === 0x0a && lastWasCR) {
          lastWasCR = false;
          continue;
        }
        lastWasCR = b === 0x0d;
        if (b === 0x0a || b === 0x0d) {
          if (atLineStart) eventBytes = 0;
          atLineStart = true;
        } else {
          atLineStart = false;
          eventBytes++;
        }
      }
      return eventBytes > RESPONSE_BOUNDS.sseEventBytes ? fail(`an event-stream event larger than ${mib(RESPONSE_BOUNDS.sseEventBytes)} (the bound for one SSE event)`) : undefined;
    };
    // Read chunk by chunk rather than piped through a TransformStream: a pipe that ends releases
    // its writer, and Node's first release of a web stream's lock builds a whole new JavaScript
    // context (for a side-effect-free regular expression), 1 to 1.5 ms and its memory, once a process.
    const source = response.body.getReader();
    const counted = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await source.read();
        if (done) return controller.close();
        const broken = breaks(value);
        if (!broken) return controller.enqueue(value);
        controller.error(broken);
        await source.cancel(broken).catch(() => {});
      },
      cancel: (reason) => source.cancel(reason),
    });
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
