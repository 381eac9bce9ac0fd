// Tool arguments from the command line: key=value (a string, or the number/boolean the tool's
// inputSchema asks for), key:=json (typed), --args-json, --args-file; checked against the
// tool's inputSchema before anything is sent.
import { readFileArg, type Input } from '../context.js';
import { CliError } from '../errors.js';
import { argumentsMessage } from '../protocol/schema-message.js';
import { safeName } from '../output/sanitize.js';
import { closest } from './did-you-mean.js';

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; additionalProperties?: unknown };

/** Said when the arguments do not fit; call.ts puts in the server's name. */
export const SEE_TOOL_ARGS = 'Run `mcp-tasks tools SERVER` to see the tool\'s arguments.';

function invalid(message: string, next = SEE_TOOL_ARGS): CliError {
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
  const names = Object.keys(props);
  // A typed key the tool does not name: refused when the schema forbids extras or a named one is
  // close (a typo would otherwise be sent, and the tool would use its default instead).
  const known = (key: string): string => {
    if (names.length === 0 || Object.prototype.hasOwnProperty.call(props, key)) return key;
    const near = closest(key, names);
    if (near === undefined && schema?.additionalProperties !== false) return key;
    throw invalid(`the tool has no argument "${safeName(key, 80)}"${near ? `; did you mean "${safeName(near, 80)}"?` : ''} (its arguments: ${names.map((n) => safeName(n, 60)).join(', ')})`);
  };
  for (const pair of src.pairs) {
    const typed = pair.indexOf(':=');
    const plain = pair.indexOf('=');
    if (typed > 0 && typed < plain) {
      const key = known(pair.slice(0, typed));
      base[key] = parseJson(pair.slice(typed + 2), `the value of ${key}`);
    } else if (plain > 0) {
      const key = known(pair.slice(0, plain));
      base[key] = coerce(pair.slice(plain + 1), props[key]);
    } else {
      throw invalid(`"${pair}" is not an argument: use key=value or key:=json`);
    }
  }
  return base;
}

/** Check arguments with the SDK's own JSON Schema validator; the message names the field. */
export async function validateArguments(toolName: string, args: Record<string, unknown>, inputSchema: Record<string, unknown> | undefined): Promise<void> {
  if (!inputSchema) return;
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/client/validators/ajv');
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
