// Tool arguments from the command line: key=value (a string, or the number/boolean the tool's
// inputSchema asks for), key:=json (typed), --args-json, --args-file; checked against the
// tool's inputSchema before anything is sent.
import { readFileArg, type Input } from '../context.js';
import { CliError } from '../errors.js';
import { argumentsMessage } from '../tasks/schema-message.js';
import { safeName } from '../output/sanitize.js';
import { closest } from '../output/did-you-mean.js';
import { cmd, hint, type Hint } from '../hint.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
};

/** Said when the arguments do not fit; call.ts puts in the server's name. */
export const SEE_TOOL_ARGS = hint`Run \`${cmd('tools', 'SERVER')}\` to see the tool's arguments.`;

function invalid(message: string, next: string | Hint = SEE_TOOL_ARGS): CliError {
  return new CliError('invalid-input', message, next);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalid(`${what} is not valid JSON: ${(err as Error).message}`, 'Quote the JSON for your shell, e.g. count:=\'3\' or tags:=\'["a","b"]\'.');
  }
}

const types = (s: Schema | undefined): string[] => (s?.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type]);

/** A `key=value` string becomes the number or boolean the schema asks for, when it reads as one. */
function coerce(value: string, prop: Schema | undefined): unknown {
  const t = types(prop);
  if (t.includes('string') || t.length === 0) return value;
  if ((t.includes('number') || t.includes('integer')) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) return Number(value);
  if (t.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  if (t.includes('null') && value === 'null') return null;
  return value;
}

export interface ArgSources {
  pairs: string[];
  argsJson?: string | undefined;
  argsFile?: string | undefined;
  /** Standard input, for `--args-file -` (the Context's: stdin is read once, through it). */
  stdin?: Pick<Input, 'readAll'>;
  /** A warning for stderr (an argument the schema does not name, sent anyway). */
  warn?: (line: string) => void;
}

export function buildArguments(src: ArgSources, inputSchema: Record<string, unknown> | undefined): Record<string, unknown> {
  let base: Record<string, unknown> = {};
  if (src.argsJson !== undefined && src.argsFile !== undefined) throw invalid('give --args-json or --args-file, not both', 'Pick one source for the argument object.');
  if (src.argsJson !== undefined || src.argsFile !== undefined) {
    let text: string;
    if (src.argsFile !== undefined) {
      try {
        text = readFileArg(src.stdin ?? { readAll: () => '' }, src.argsFile);
      } catch (err) {
        throw invalid(`cannot read --args-file ${src.argsFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'Check the path.');
      }
    } else text = src.argsJson!;
    const parsed = parseJson(text, src.argsFile !== undefined ? `--args-file ${src.argsFile}` : '--args-json');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('the arguments must be a JSON object', 'Wrap them in { … }.');
    base = parsed as Record<string, unknown>;
  }
  const schema = inputSchema as Schema | undefined;
  const props = schema?.properties ?? {};
  for (const pair of src.pairs) {
    const typed = pair.indexOf(':=');
    const plain = pair.indexOf('=');
    if (typed > 0 && typed < plain) {
      const key = pair.slice(0, typed);
      base[key] = parseJson(pair.slice(typed + 2), `the value of ${key}`);
    } else if (plain > 0) {
      const key = pair.slice(0, plain);
      base[key] = coerce(pair.slice(plain + 1), Object.hasOwn(props, key) ? props[key] : undefined);
    } else {
      throw invalid(`"${pair}" is not an argument: use key=value or key:=json`);
    }
  }
  if (schema) checkUnnamed(base, schema, src.warn);
  return schema ? withoutOptionalNulls(base, schema) : base;
}

/**
 * A key the schema does not name: refused when the schema forbids extras or a named one is close
 * (a typo would otherwise be sent, and the tool would use its default instead); otherwise sent,
 * with a warning, since the tool may well ignore it.
 */
function checkUnnamed(args: Record<string, unknown>, schema: Schema, warn: ((line: string) => void) | undefined): void {
  const props = schema.properties ?? {};
  const names = Object.keys(props);
  const theirs = names.length ? `its arguments: ${names.map((n) => safeName(n, 60)).join(', ')}` : 'it takes no arguments';
  for (const key of Object.keys(args)) {
    if (Object.hasOwn(props, key)) continue;
    const near = closest(key, names);
    const forbidden = schema.additionalProperties === false;
    if (!forbidden && names.length === 0) continue; // a free-form schema: any key may be meant
    const what = `the tool has no argument "${safeName(key, 80)}"${near ? `; did you mean "${safeName(near, 80)}"?` : ''} (${theirs})`;
    if (forbidden || near) throw invalid(what);
    warn?.(`warning: ${what}; it is sent as given and the tool may ignore it.`);
  }
}

/** Whether a property's schema accepts null (type, anyOf/oneOf, const or enum). */
function allowsNull(prop: Schema | undefined): boolean {
  if (prop === undefined) return false;
  if (types(prop).includes('null') || prop.const === null || prop.enum?.includes(null)) return true;
  return [...(prop.anyOf ?? []), ...(prop.oneOf ?? [])].some(allowsNull);
}

/**
 * An explicit null for an optional argument means "not given" (what JSON-minded callers and
 * generated configs write): it is left out, so the tool uses its default and no header carries it.
 * A null the schema allows, or one for a required argument, stays for the validator to judge.
 */
function withoutOptionalNulls(args: Record<string, unknown>, schema: Schema): Record<string, unknown> {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === null && Object.hasOwn(props, key) && !allowsNull(props[key])) {
      if (required.has(key)) throw invalid(`"${safeName(key, 80)}" is required, and null gives it no value`);
      continue;
    }
    kept[key] = value;
  }
  return kept;
}

/** The SDK's JSON Schema validator, loaded once (begun early by loadValidator). */
let validator: Promise<typeof import('@modelcontextprotocol/client/validators/ajv')> | undefined;
export const loadValidator = () => (validator ??= import('@modelcontextprotocol/client/validators/ajv'));

/** Check arguments with the SDK's own JSON Schema validator; the message names the field. */
export async function validateArguments(toolName: string, args: Record<string, unknown>, inputSchema: Record<string, unknown> | undefined): Promise<void> {
  if (!inputSchema) return;
  const { AjvJsonSchemaValidator } = await loadValidator();
  let check;
  try {
    check = new AjvJsonSchemaValidator().getValidator(inputSchema as never);
  } catch {
    return; // a schema we cannot compile is the server's problem: let it judge the arguments
  }
  const verdict = check(args);
  if (!verdict.valid) {
    throw invalid(`invalid arguments for ${toolName}: ${argumentsMessage(verdict.errorMessage)}`);
  }
}
