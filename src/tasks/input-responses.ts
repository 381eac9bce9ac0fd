// Pure rules for answering input requests: which keys to send, which are stale or already
// answered, and whether a scripted response fits the request it answers. Nothing is sent
// unless every response given has the right shape.
import { CreateMessageResultV2Schema, ElicitResultV2Schema, ListRootsResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { InputRequestSnapshot } from './task-snapshot.js';
import { enumValues, PLACEHOLDER_MARK, type FieldSchema } from './input-fields.js';

export interface AnswerPlan {
  /** Responses to send with tasks/update, by key. */
  send: Record<string, unknown>;
  /** Keys the answers file names that the server no longer lists: reported, not sent. */
  stale: string[];
  /** Keys the vault says were answered before: never sent again. */
  alreadyAnswered: string[];
  /** Pending keys nobody answered this round. */
  unanswered: string[];
}

interface SafeParser {
  safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } };
}

function firstIssue(schema: SafeParser, value: unknown): string | undefined {
  const r = schema.safeParse(value);
  if (r.success) return undefined;
  const issue = r.error?.issues[0];
  return `${issue && issue.path.length ? issue.path.map(String).join('.') + ': ' : ''}${issue?.message ?? 'invalid'}`;
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

/** One form field value against its schema; a message naming the problem, or undefined. */
export function checkField(name: string, f: FieldSchema | undefined, v: unknown): string | undefined {
  if (!f) return undefined;
  const values = enumValues(f);
  if (f.type === 'array') {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return `${name} must be a list of strings`;
    const allowed = enumValues(f.items as FieldSchema);
    if (allowed) for (const x of v) if (!allowed.includes(x)) return `${name}: "${x}" is not one of ${allowed.join(', ')}`;
    if (f.minItems !== undefined && v.length < f.minItems) return `${name} needs at least ${f.minItems} item(s)`;
    if (f.maxItems !== undefined && v.length > f.maxItems) return `${name} allows at most ${f.maxItems} item(s)`;
    return undefined;
  }
  if (values && !values.includes(v)) return `${name} must be one of ${values.map(String).join(', ')}`;
  if (f.type === 'string') {
    if (typeof v !== 'string') return `${name} must be a string`;
    if (f.minLength !== undefined && v.length < f.minLength) return `${name} needs at least ${f.minLength} character(s)`;
    if (f.maxLength !== undefined && v.length > f.maxLength) return `${name} allows at most ${f.maxLength} character(s)`;
    const re = f.format ? FORMATS[f.format] : undefined;
    if (re && !re.test(v)) return `${name} must be a valid ${f.format}`;
  } else if (f.type === 'number' || f.type === 'integer') {
    if (typeof v !== 'number' || !Number.isFinite(v)) return `${name} must be a number`;
    if (f.type === 'integer' && !Number.isInteger(v)) return `${name} must be a whole number`;
    if (f.minimum !== undefined && v < f.minimum) return `${name} must be ≥ ${f.minimum}`;
    if (f.maximum !== undefined && v > f.maximum) return `${name} must be ≤ ${f.maximum}`;
  } else if (f.type === 'boolean') {
    if (typeof v !== 'boolean') return `${name} must be true or false`;
  }
  return undefined;
}

/** The first placeholder left in a response (a path like content.confirm), or undefined. */
export function placeholderLeft(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.startsWith(PLACEHOLDER_MARK) ? path || '(the response)' : undefined;
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const hit = placeholderLeft(v, path ? `${path}.${k}` : k);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** Does `response` answer `request`? A message naming the key and field, or undefined. */
export function checkResponse(key: string, request: InputRequestSnapshot, response: unknown): string | undefined {
  const at = (m: string) => `answer for "${key}": ${m}`;
  const left = placeholderLeft(response);
  if (left) return at(`${left} still holds the template's placeholder: replace it with your answer`);
  switch (request.method) {
    case 'elicitation/create': {
      const issue = firstIssue(ElicitResultV2Schema, response);
      if (issue) return at(`not an elicitation result (${issue}); expected {"action":"accept"|"decline"|"cancel","content":{…}}`);
      const r = response as { action: string; content?: Record<string, unknown> };
      const params = request.params ?? {};
      if (r.action !== 'accept' || params.mode === 'url') return undefined;
      const schema = (params.requestedSchema ?? {}) as { properties?: Record<string, FieldSchema>; required?: string[] };
      const content = r.content ?? {};
      for (const req of schema.required ?? []) if (!Object.hasOwn(content, req) || content[req] === undefined) return at(`field "${req}" is required`);
      for (const [name, value] of Object.entries(content)) {
        if (schema.properties && !Object.hasOwn(schema.properties, name)) return at(`field "${name}" is not in the requested form`);
        const problem = checkField(name, schema.properties?.[name], value);
        if (problem) return at(`field ${problem}`);
      }
      return undefined;
    }
    case 'sampling/createMessage': {
      const issue = firstIssue(CreateMessageResultV2Schema, response);
      return issue ? at(`not a sampling result (${issue}); expected {"role":"assistant","content":{"type":"text","text":…},"model":…}`) : undefined;
    }
    case 'roots/list': {
      const issue = firstIssue(ListRootsResultV2Schema, response);
      return issue ? at(`not a roots result (${issue}); expected {"roots":[{"uri":"file:///…"}]}`) : undefined;
    }
    default:
      return at(`mcp-tasks cannot answer ${request.method} requests`);
  }
}

/**
 * An accepted form answer with the form's defaults filled in for the fields it leaves out
 * (SEP-1034: a field's `default` is what the person gets when they do not change it). A default
 * that does not fit its own field is not used; anything else (decline, cancel, URL mode, other
 * methods, a field the answer gives, even as null) is returned as it is.
 */
export function withFormDefaults(request: InputRequestSnapshot, response: unknown): unknown {
  if (request.method !== 'elicitation/create' || request.params?.mode === 'url') return response;
  if (!response || typeof response !== 'object' || Array.isArray(response)) return response;
  const r = response as { action?: unknown; content?: unknown };
  if (r.action !== 'accept') return response;
  if (r.content !== undefined && (!r.content || typeof r.content !== 'object' || Array.isArray(r.content))) return response;
  const properties = (request.params?.requestedSchema as { properties?: Record<string, FieldSchema> } | undefined)?.properties ?? {};
  const content: Record<string, unknown> = { ...((r.content as Record<string, unknown> | undefined) ?? {}) };
  let filled = false;
  for (const [name, field] of Object.entries(properties)) {
    if (!field || typeof field !== 'object' || !Object.hasOwn(field, 'default') || Object.hasOwn(content, name)) continue;
    if (checkField(name, field, field.default) !== undefined) continue;
    content[name] = structuredClone(field.default);
    filled = true;
  }
  return filled ? { ...r, content } : response;
}

/**
 * `--accept-defaults`: the answer a person gives by accepting a form as offered, or undefined
 * when that is not an answer. Only a form elicitation (not URL mode) whose every required field
 * has a default that fits it, and which offers at least one default: accepting an empty form, or
 * one whose defaults leave a required field blank, would be a decision nobody made.
 */
export function acceptedAsOffered(request: InputRequestSnapshot): unknown {
  if (request.method !== 'elicitation/create' || request.params?.mode === 'url') return undefined;
  const schema = request.params?.requestedSchema as { properties?: Record<string, FieldSchema>; required?: unknown } | undefined;
  const properties = schema?.properties ?? {};
  const hasDefault = (name: string) => {
    const f = properties[name];
    return !!f && typeof f === 'object' && Object.hasOwn(f, 'default') && checkField(name, f, f.default) === undefined;
  };
  const required = Array.isArray(schema?.required) ? schema.required : [];
  if (!required.every((name) => typeof name === 'string' && hasDefault(name))) return undefined;
  if (!Object.keys(properties).some(hasDefault)) return undefined;
  const response = withFormDefaults(request, { action: 'accept', content: {} });
  return checkResponse('', request, response) === undefined ? response : undefined;
}

/**
 * Plan a round of answers: scripted responses first, then declines/cancels; keys answered
 * before are skipped; keys the server no longer lists are stale.
 */
export function planAnswers(
  pending: Record<string, InputRequestSnapshot>,
  answeredBefore: readonly string[],
  scripted: Record<string, unknown>,
  decline: readonly string[] = [],
  cancel: readonly string[] = [],
): AnswerPlan & { errors: string[] } {
  const plan: AnswerPlan & { errors: string[] } = { send: {}, stale: [], alreadyAnswered: [], unanswered: [], errors: [] };
  for (const key of [...decline, ...cancel]) {
    if (Object.hasOwn(scripted, key)) plan.errors.push(`"${key}" has an answer in the file and is also given to --decline/--cancel: pick one`);
  }
  for (const key of decline) if (cancel.includes(key)) plan.errors.push(`"${key}" is given to both --decline and --cancel: pick one`);
  const given = new Set([...Object.keys(scripted), ...decline, ...cancel]);
  for (const key of given) {
    if (Object.hasOwn(pending, key)) continue;
    if (answeredBefore.includes(key)) plan.alreadyAnswered.push(key);
    else plan.stale.push(key);
  }
  for (const [key, request] of Object.entries(pending)) {
    if (answeredBefore.includes(key)) {
      plan.alreadyAnswered.push(key);
      continue;
    }
    let response: unknown;
    if (Object.hasOwn(scripted, key)) response = withFormDefaults(request, scripted[key]);
    else if (decline.includes(key)) response = { action: 'decline' };
    else if (cancel.includes(key)) response = { action: 'cancel' };
    else {
      plan.unanswered.push(key);
      continue;
    }
    if ((decline.includes(key) || cancel.includes(key)) && request.method !== 'elicitation/create') {
      plan.errors.push(`"${key}" is a ${request.method} request: only elicitations can be declined or cancelled`);
      continue;
    }
    const problem = checkResponse(key, request, response);
    if (problem) plan.errors.push(problem);
    else plan.send[key] = response;
  }
  return plan;
}
