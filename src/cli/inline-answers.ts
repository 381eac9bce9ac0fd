// Inline answers (`answer <ref> confirm=true name=Ada`): form fields typed by the elicitation's
// schema exactly as `call` types a tool's arguments; `KEY.field=value` picks the request when
// several are pending.
import { CliError } from '../errors.js';
import { formSchemaOf } from '../tasks/answer-template.js';
import type { InputRequestSnapshot } from '../tasks/task-snapshot.js';
import { buildArguments } from '../app/tool-args.js';
import { cmd, hint } from '../hint.js';

export function inlineAnswers(pairs: readonly string[], pending: Record<string, InputRequestSnapshot>, answeredBefore: readonly string[], ref: string): Record<string, unknown> {
  const open = Object.keys(pending).filter((k) => !answeredBefore.includes(k) && pending[k]!.method !== 'roots/list');
  const byKey = new Map<string, string[]>();
  for (const pair of pairs) {
    const name = pair.split(/:?=/, 1)[0] ?? '';
    // The longest pending key that prefixes the name with a dot (keys may hold dots themselves).
    const key = open.filter((k) => name.startsWith(`${k}.`)).sort((a, b) => b.length - a.length)[0];
    let owner: string;
    let field: string;
    if (key !== undefined) {
      owner = key;
      field = pair.slice(key.length + 1);
    } else if (open.length === 1) {
      owner = open[0]!;
      field = pair;
    } else {
      const keys = open.map((k) => JSON.stringify(k)).join(', ');
      throw new CliError(
        'invalid-input',
        open.length === 0 ? `"${pair}": the task waits for no answer that can be given inline` : `"${pair}": several requests are pending (${keys}): name one as KEY.field=value`,
        hint`\`${cmd('answer', ref, '--template')}\` shows the keys and fields.`,
      );
    }
    byKey.set(owner, [...(byKey.get(owner) ?? []), field]);
  }
  const out: Record<string, unknown> = {};
  for (const [key, fields] of byKey) {
    const schema = formSchemaOf(pending[key]);
    if (!schema) throw new CliError('invalid-input', `"${key}" is not a form (${pending[key]!.method}${pending[key]!.params?.mode === 'url' ? ', a URL step' : ''}): it cannot be answered inline`, hint`Answer it in a terminal (\`${cmd('answer', ref)}\`) or with --answers (\`${cmd('answer', ref, '--template')}\` prints the shape).`);
    let content: Record<string, unknown>;
    try {
      content = buildArguments({ pairs: fields }, schema);
    } catch (err) {
      if (err instanceof CliError) throw new CliError(err.kind, err.message, hint`\`${cmd('answer', ref, '--template')}\` shows each field's type.`);
      throw err;
    }
    out[key] = { action: 'accept', content };
  }
  return out;
}
