// Server-provided text is untrusted: before it reaches a terminal, escape sequences and
// control characters are removed and very long lines are cut.

// CSI, OSC, DCS/SOS/PM/APC strings and two-character escapes, in 7-bit and 8-bit forms.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][\s\S]*?(?:\x07|\x1b\\|\x9c)|[\x90\x9d\x98\x9e\x9f][\s\S]*?(?:\x07|\x1b\\|\x9c)|\x1b[@-Z\\-_]|\x1b./g;
// Remaining C0 (except tab and newline), DEL and C1 controls; bidi overrides that reorder text.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

export interface SanitizeOptions {
  /** Longest line kept; longer lines are cut with a marker. */
  maxLineLength?: number;
  /** Longest text kept overall. */
  maxLength?: number;
  /** Collapse to one line (status messages). */
  singleLine?: boolean;
}

export function sanitize(text: string, opts: SanitizeOptions = {}): string {
  let s = String(text).replace(/\r\n?/g, '\n').replace(ESCAPES, '').replace(CONTROLS, '');
  if (opts.singleLine) s = s.replace(/\s*\n\s*/g, ' ').trim();
  const maxLine = opts.maxLineLength ?? 2000;
  s = s
    .split('\n')
    .map((line) => (line.length > maxLine ? `${line.slice(0, maxLine)}… [${line.length - maxLine} more characters]` : line))
    .join('\n');
  const max = opts.maxLength ?? 100_000;
  if (s.length > max) s = `${s.slice(0, max)}… [cut: ${s.length - max} more characters]`;
  return s;
}

/** JSON for stdout: JSON.stringify leaves C1 controls and bidi overrides raw, so escape them too. */
export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(/[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Printable ASCII only, no leading "-": a server-chosen id that is safe to echo and to type as is. */
export const isPlainId = (id: string): boolean => /^[\x21-\x7e]+$/.test(id) && !id.startsWith('-');

/**
 * A server-chosen string shown as an identifier (a task id, an inputRequests key, a tool or
 * server name): one line, no escapes or controls, bounded.
 */
export const safeName = (text: string, maxLength = 200): string => sanitize(String(text), { singleLine: true, maxLength });

/** Longest task id shown as a prefix of itself; anything this short or shorter is never shown whole. */
export const SHORT_ID_MAX = 12;

/**
 * How a task id (a bearer handle) is shown to people: its first 10 characters, or for an id of
 * 12 characters or fewer at most half of it, so no human output holds the whole handle.
 */
export function shortTaskId(id: string): string {
  const clean = sanitize(id, { singleLine: true });
  return `${clean.slice(0, clean.length > SHORT_ID_MAX ? 10 : Math.min(6, Math.floor(clean.length / 2)))}…`;
}

// A short id is replaced only where it stands alone: "42" must not eat "1425" or "-32602".
const ID_CHARS = 'A-Za-z0-9_\\-';
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every occurrence of task id `id` in `text` replaced by `by` (a short id: where it stands alone). */
export function replaceTaskId(text: string, id: string, by: string): string {
  if (!id || !text.includes(id)) return text;
  if (id.length > SHORT_ID_MAX) return text.split(id).join(by);
  return text.replace(new RegExp(`(?<![${ID_CHARS}])${escapeRegExp(id)}(?![${ID_CHARS}])`, 'g'), () => by);
}

/** Shorten every whole task id found inside server text (human output promises short ids). */
export function shortenIdsIn(text: string, taskIds: Iterable<string | undefined>): string {
  let out = text;
  for (const id of taskIds) {
    if (!id) continue;
    const short = shortTaskId(id);
    for (const form of new Set([id, sanitize(id, { singleLine: true })])) out = replaceTaskId(out, form, short);
  }
  return out;
}
