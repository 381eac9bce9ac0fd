// SEP-2243 (2026-07-28 Streamable HTTP, "Custom Headers from Tool Parameters"): a tool's
// inputSchema may mark properties with `x-mcp-header`; a client MUST mirror their values into
// `Mcp-Param-{Name}` headers on every tools/call, and MUST refuse a tool whose declarations break
// the rules. The SDK does this only inside Client.callTool, which cannot carry a task-creating
// call (it throws on CreateTaskResult) and does not export its helpers, so the rules live here.
// Pure: no I/O, no SDK.

export const X_MCP_HEADER = 'x-mcp-header';
export const PARAM_HEADER_PREFIX = 'Mcp-Param-';

/** One mirrored property: where its value sits in `arguments`, and the header's name part. */
export interface HeaderDeclaration {
  path: string[];
  headerName: string;
  type: 'string' | 'integer' | 'boolean';
}

/** The spec's constraint a declaration breaks (each one a bullet of "Constraints on x-mcp-header values"). */
export type HeaderRule = 'not-empty' | 'string' | 'charset' | 'unique' | 'primitive-only' | 'statically-reachable';

export type HeaderScan =
  | { valid: true; declarations: HeaderDeclaration[] }
  | { valid: false; rule: HeaderRule; reason: string };

/** RFC 9110 §5.1 token (`1*tchar`): no space, no control character, no delimiter, ASCII only. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PERMITTED_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords a `properties`-only chain must not pass through; a declaration below one is invalid. */
const UNREACHABLE_KEYWORDS = [
  'items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems',
  'propertyNames', 'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else',
  '$defs', 'definitions',
] as const;
/** Of those, the ones whose value maps names to subschemas. */
const MAP_KEYWORDS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Server text inside our messages: quoted, control characters shown as escapes, bounded. */
const quote = (v: unknown): string => JSON.stringify(v)?.slice(0, 80) ?? String(v);
const where = (path: string[]) => (path.length ? `property "${path.join('.')}"` : 'the schema root');

/** Check every `x-mcp-header` in a tool's inputSchema; the first broken rule wins. */
export function scanHeaderDeclarations(inputSchema: unknown): HeaderScan {
  const declarations: HeaderDeclaration[] = [];
  const seen = new Map<string, string>();
  let fault: { rule: HeaderRule; reason: string } | undefined;

  const visit = (node: unknown, path: string[], reachable: boolean): void => {
    if (fault || !isObject(node)) return;
    if (Object.prototype.hasOwnProperty.call(node, X_MCP_HEADER)) {
      const raw = node[X_MCP_HEADER];
      if (!reachable || path.length === 0) {
        fault = { rule: 'statically-reachable', reason: `x-mcp-header on ${where(path)} is not reachable from the schema root through "properties" alone` };
        return;
      }
      if (typeof raw !== 'string') {
        fault = { rule: 'string', reason: `x-mcp-header on ${where(path)} is ${quote(raw)}, not a string` };
        return;
      }
      if (raw.length === 0) {
        fault = { rule: 'not-empty', reason: `x-mcp-header on ${where(path)} is empty` };
        return;
      }
      if (!TOKEN.test(raw)) {
        fault = { rule: 'charset', reason: `x-mcp-header ${quote(raw)} on ${where(path)} is not an HTTP field-name token (no spaces, control characters, delimiters or non-ASCII)` };
        return;
      }
      const type = typeof node.type === 'string' ? node.type : undefined;
      if (!type || !PERMITTED_TYPES.has(type)) {
        fault = { rule: 'primitive-only', reason: `x-mcp-header ${quote(raw)} is on ${where(path)} of type ${type ?? '(none)'}; only string, integer and boolean may be mirrored` };
        return;
      }
      const prior = seen.get(raw.toLowerCase());
      if (prior !== undefined) {
        fault = { rule: 'unique', reason: `x-mcp-header ${quote(raw)} on ${where(path)} repeats ${quote(prior)} (names are compared without case)` };
        return;
      }
      seen.set(raw.toLowerCase(), raw);
      declarations.push({ path, headerName: raw, type: type as HeaderDeclaration['type'] });
    }
    if (isObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) visit(child, [...path, key], reachable);
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : MAP_KEYWORDS.has(keyword) && isObject(sub) ? Object.values(sub) : [sub];
      for (const branch of branches) visit(branch, [...path, `<${keyword}>`], false);
    }
  };
  visit(inputSchema, [], true);
  return fault ? { valid: false, ...fault } : { valid: true, declarations };
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';

/** Whether a value can travel as a plain header value (visible ASCII, inner spaces/tabs, no edge whitespace, not sentinel-shaped). */
function isPlainHeaderValue(s: string): boolean {
  if (s.length === 0) return false;
  if (s !== s.trim()) return false;
  if (s.startsWith(SENTINEL_PREFIX) && s.endsWith(SENTINEL_SUFFIX)) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/** The spec's value encoding: plain ASCII as is, anything else `=?base64?{UTF-8 as Base64}?=`. */
export function encodeHeaderValue(value: string): string {
  return isPlainHeaderValue(value) ? value : `${SENTINEL_PREFIX}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL_SUFFIX}`;
}

function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** `Mcp-Param-*` headers for one call: a null or absent value sends no header. */
export function paramHeaders(declarations: readonly HeaderDeclaration[], args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of declarations) {
    let value: unknown = args;
    for (const key of d.path) value = isObject(value) ? value[key] : undefined;
    if (value === undefined || value === null) continue;
    const text = headerText(value);
    if (text !== undefined) out[`${PARAM_HEADER_PREFIX}${d.headerName}`] = encodeHeaderValue(text);
  }
  return out;
}
