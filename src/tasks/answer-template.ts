// The CI answer path: a JSON skeleton of the answers a task waits for, built from each pending
// request's schema, whose placeholders fail validation until they are replaced; and inline
// answers (`confirm=true`, `KEY.field=value` when several requests are pending).
import { enumValues, PLACEHOLDER_MARK } from './input-fields.js';
import type { InputRequestSnapshot } from './task-snapshot.js';


type Field = { type?: string; title?: string; description?: string; default?: unknown; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; format?: string; items?: Field } & Record<string, unknown>;
type FormSchema = { properties?: Record<string, Field>; required?: string[] };

function describeField(name: string, f: Field, required: boolean): string {
  const parts: string[] = [f.type === 'array' ? 'list of strings' : (f.type ?? 'value')];
  const choices = enumValues(f as never) ?? enumValues(f.items as never);
  if (choices) parts.push(`one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`);
  parts.push(required ? 'required' : 'optional');
  if (f.default !== undefined) parts.push(`default ${JSON.stringify(f.default)}`);
  if (f.minimum !== undefined || f.maximum !== undefined) parts.push(`range ${f.minimum ?? ''}..${f.maximum ?? ''}`);
  if (f.format) parts.push(`format ${f.format}`);
  const what = f.title ?? f.description;
  return `${PLACEHOLDER_MARK}: ${name}: ${parts.join(', ')}${what ? ` — ${what}` : ''}>`;
}

/** The skeleton response for one request, or undefined when mcp-tasks answers it itself (roots). */
export function templateFor(request: InputRequestSnapshot): unknown {
  const params = request.params ?? {};
  switch (request.method) {
    case 'elicitation/create': {
      if (params.mode === 'url') return { action: `${PLACEHOLDER_MARK}: "accept" once you completed the step at ${String(params.url ?? 'the URL')}, or "decline" / "cancel">` };
      const schema = (params.requestedSchema ?? {}) as FormSchema;
      const required = new Set(schema.required ?? []);
      const content: Record<string, string> = {};
      for (const [name, f] of Object.entries(schema.properties ?? {})) content[name] = describeField(name, f, required.has(name));
      return { action: 'accept', content };
    }
    case 'sampling/createMessage':
      return { role: 'assistant', content: { type: 'text', text: `${PLACEHOLDER_MARK}: the reply the server asks a model for>` }, model: 'human' };
    default:
      return undefined;
  }
}

/** The answers file's skeleton for every pending key not answered before. */
export function answersTemplate(pending: Record<string, InputRequestSnapshot>, answeredBefore: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(pending)) {
    if (answeredBefore.includes(key)) continue;
    const t = templateFor(request);
    if (t !== undefined) out[key] = t;
  }
  return out;
}

/** The form schema of an elicitation, if the request is a form. */
export function formSchemaOf(request: InputRequestSnapshot | undefined): Record<string, unknown> | undefined {
  if (!request || request.method !== 'elicitation/create' || request.params?.mode === 'url') return undefined;
  return (request.params?.requestedSchema ?? { type: 'object', properties: {} }) as Record<string, unknown>;
}

/** Example inline answers for a hint: one `field=value` per form field, from defaults and choices. */
export function inlineExample(pending: Record<string, InputRequestSnapshot>, answeredBefore: readonly string[]): string[] | undefined {
  const keys = Object.keys(pending).filter((k) => !answeredBefore.includes(k) && pending[k]!.method !== 'roots/list');
  if (keys.length === 0) return undefined;
  const pairs: string[] = [];
  for (const key of keys) {
    const schema = formSchemaOf(pending[key]) as FormSchema | undefined;
    if (!schema) return undefined; // a URL step or a sampling reply: the file is the way
    for (const [name, f] of Object.entries(schema.properties ?? {})) {
      const choices = enumValues(f as never);
      const sample = f.default ?? choices?.[0] ?? (f.type === 'boolean' ? true : f.type === 'number' || f.type === 'integer' ? (f.minimum ?? 1) : f.type === 'array' ? undefined : 'VALUE');
      if (sample === undefined) return undefined;
      const field = keys.length > 1 ? `${key}.${name}` : name;
      const text = typeof sample === 'string' ? sample : JSON.stringify(sample);
      pairs.push(/^[A-Za-z0-9_.,@%+-]*$/.test(text) && text !== '' ? `${field}=${text}` : `'${field}=${text.replace(/'/g, `'\\''`)}'`);
    }
  }
  return pairs;
}
