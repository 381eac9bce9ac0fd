// The key under which a 2025-11-25 input request (a server→client JSON-RPC request) is listed in
// `TaskSnapshot.inputRequests`, answered from `--answers` files and remembered by the
// never-answer-twice rule. This generation has no keys of its own, so we derive one:
//
//   <kind>-<first 12 hex digits of SHA-256 over the canonical JSON of {method, params without _meta}>
//
// kind is `elicit` (elicitation/create), `sample` (sampling/createMessage) or `roots` (roots/list).
// The same question gets the same key in every process and every run (so an answers file can be
// written ahead, e.g. for CI), and a re-delivery of one request (same JSON-RPC id) keeps its key.
// `_meta` is left out because it carries per-delivery data (related-task, progress tokens).
// When one session sees the same question again under a new JSON-RPC id, the later ones get
// `-2`, `-3`, … so two distinct requests never share a key within a session.
import { createHash } from 'node:crypto';

const KIND: Record<string, string> = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

export const INPUT_METHODS = Object.keys(KIND);

/** JSON with object keys sorted at every level, so equal values hash alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The base key of a request (before any `-n` suffix for repeats within one session). */
export function inputRequestKey(method: string, params: Record<string, unknown> | undefined): string {
  const { _meta: _ignored, ...rest } = params ?? {};
  const digest = createHash('sha256').update(canonicalJson({ method, params: rest })).digest('hex').slice(0, 12);
  return `${KIND[method] ?? 'input'}-${digest}`;
}
