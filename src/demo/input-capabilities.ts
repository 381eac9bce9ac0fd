// Which client capabilities an input request needs, and which of them a request's
// clientCapabilities lack. A server MUST NOT send an input request the client did not declare;
// the demo answers -32021 with data.requiredCapabilities instead. The SDK has the same rules for
// its own handlers (requiredClientCapabilitiesForInputRequest / missingClientCapabilities) but does
// not export them; the task surface builds its inputRequests itself, so it applies them here.
import { META_CLIENT_CAPABILITIES } from '../protocol/constants.js';
import type { InputRequest, JsonObject } from './tools.js';

export type Capabilities = Record<string, Record<string, unknown>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The capability one input request needs: elicitation by mode, sampling (with tools), roots. */
export function requiredFor(request: InputRequest): Capabilities {
  switch (request.method) {
    case 'elicitation/create':
      return { elicitation: request.params?.mode === 'url' ? { url: {} } : { form: {} } };
    case 'sampling/createMessage':
      return { sampling: request.params?.tools !== undefined || request.params?.toolChoice !== undefined ? { tools: {} } : {} };
    case 'roots/list':
      return { roots: {} };
  }
}

/** The client capabilities declared in a request's `_meta` envelope (none when absent). */
export function declaredCapabilities(params: JsonObject): Record<string, unknown> {
  const meta = params._meta;
  const caps = isObject(meta) ? meta[META_CLIENT_CAPABILITIES] : undefined;
  return isObject(caps) ? caps : {};
}

/**
 * What `requests` need and `declared` lacks, in the ClientCapabilities shape of
 * data.requiredCapabilities; undefined when everything is declared. A bare `elicitation: {}`
 * counts as form support (its meaning before elicitation had modes).
 */
export function missingCapabilities(requests: Record<string, InputRequest>, declared: Record<string, unknown>): Capabilities | undefined {
  const missing: Capabilities = {};
  for (const request of Object.values(requests)) {
    for (const [capability, members] of Object.entries(requiredFor(request))) {
      const have = declared[capability];
      if (!isObject(have)) {
        missing[capability] = { ...(missing[capability] ?? {}), ...members };
        continue;
      }
      const bare = capability === 'elicitation' && have.form === undefined && have.url === undefined;
      for (const member of Object.keys(members)) {
        if (have[member] !== undefined || (bare && member === 'form')) continue;
        missing[capability] = { ...(missing[capability] ?? {}), [member]: {} };
      }
    }
  }
  return Object.keys(missing).length > 0 ? missing : undefined;
}

/** `elicitation.form, sampling` for messages. */
export function capabilityNames(caps: Capabilities): string {
  return Object.entries(caps)
    .flatMap(([c, members]) => (Object.keys(members).length ? Object.keys(members).map((m) => `${c}.${m}`) : [c]))
    .join(', ');
}
