// What mcp-tasks declares in every request's clientCapabilities, and how a server's
// `-32021` (missing required client capability) is put into words. A compliant server never
// sends an input request the client did not declare, so everything the client can answer
// (forms, URLs, sampling replies, roots) is declared, besides the tasks extension.
import { TASKS_EXTENSION_ID } from '../protocol/constants.js';

/**
 * The client capabilities of every request. `roots.listChanged` is left out: mcp-tasks never
 * sends roots/list_changed notifications, and the flag may only be declared when true.
 */
export const DECLARED_CLIENT_CAPABILITIES = {
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: {},
  extensions: { [TASKS_EXTENSION_ID]: {} },
} as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The capability paths named by `data.requiredCapabilities` (a ClientCapabilities-shaped object):
 * `{elicitation: {url: {}}}` → `elicitation.url`, `{extensions: {X: {}}}` → `extension X`.
 * Returns undefined when the server sent no such object. Names are server text: the caller
 * sanitises them before they reach a terminal.
 */
export function missingCapabilityNames(data: unknown): string[] | undefined {
  const required = isObject(data) ? data.requiredCapabilities : undefined;
  if (!isObject(required)) return undefined;
  const names: string[] = [];
  for (const [capability, members] of Object.entries(required)) {
    if (capability === 'extensions' && isObject(members) && Object.keys(members).length > 0) {
      for (const ext of Object.keys(members)) names.push(`extension ${ext}`);
      continue;
    }
    const sub = isObject(members) ? Object.keys(members) : [];
    if (sub.length === 0) names.push(capability);
    else for (const member of sub) names.push(`${capability}.${member}`);
    if (names.length >= 8) break;
  }
  return names;
}

/** Whether every named path is one mcp-tasks declares (then the server is wrong, not the client). */
export function declaresAll(data: unknown): boolean {
  const required = isObject(data) ? data.requiredCapabilities : undefined;
  if (!isObject(required)) return false;
  const declared = DECLARED_CLIENT_CAPABILITIES as Record<string, unknown>;
  return Object.entries(required).every(([capability, members]) => {
    const have = declared[capability];
    if (!isObject(have)) return false;
    if (!isObject(members)) return true;
    // A bare `elicitation: {}` requirement is met by declaring any mode.
    return Object.keys(members).every((m) => Object.prototype.hasOwnProperty.call(have, m));
  });
}
