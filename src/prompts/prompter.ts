// Every question the CLI asks goes through this interface, so prompting stays behind one
// seam; the adapter loads @inquirer/prompts only when a question is actually asked.
import { sanitize } from '../output/sanitize.js';
import type { ChoiceItem, Prompter } from '../context.js';
// The interface is the Context's (context.ts sits below prompts/); the adapter is here.
export type { ChoiceItem, Prompter };

/** Ctrl-C inside a prompt: the command stops, keeps handles, exits 130. */
export class PromptAbortedError extends Error {
  constructor() {
    super('prompt interrupted');
    this.name = 'PromptAbortedError';
  }
}

/** Messages, choice names and defaults come from servers: cleaned before the prompt library draws them. */
const line = (text: string) => sanitize(text, { maxLineLength: 500, maxLength: 4000 });
const cleanChoices = <T>(choices: ChoiceItem<T>[]): ChoiceItem<T>[] =>
  choices.map((c) => ({ ...c, name: sanitize(c.name, { singleLine: true, maxLength: 300 }), ...(c.description !== undefined ? { description: line(c.description) } : {}) }));

export function inquirerPrompter(output: NodeJS.WritableStream): Prompter {
  const load = () => import('@inquirer/prompts');
  // Prompts belong to the person, on stderr: stdout stays clean for `--json | jq` even in a terminal.
  const context = { output };
  const wrap = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if ((err as Error)?.name === 'ExitPromptError' || (err as Error)?.name === 'AbortPromptError') throw new PromptAbortedError();
      throw err;
    }
  };
  return cleanPrompter({
    confirm: (message, opts) => wrap(async () => (await load()).confirm({ message, default: opts?.default ?? false }, context)),
    input: (message, opts) =>
      wrap(async () =>
        (await load()).input({ message, ...(opts?.default !== undefined ? { default: opts.default } : {}), ...(opts?.validate ? { validate: opts.validate } : {}) }, context),
      ),
    password: (message) => wrap(async () => (await load()).password({ message, mask: '*' }, context)),
    select: (message, choices, opts) => wrap(async () => (await load()).select({ message, choices, ...(opts?.default !== undefined ? { default: opts.default } : {}) }, context)),
    checkbox: (message, choices, opts) =>
      wrap(async () =>
        (await load()).checkbox({ message, choices, ...(opts?.validate ? { validate: (items: readonly { value: unknown }[]) => opts.validate!(items.map((i) => i.value) as never) } : {}) }, context),
      ),
    editor: (message, opts) => wrap(async () => (await load()).editor({ message, ...(opts?.default !== undefined ? { default: opts.default } : {}) }, context)),
  });
}

/** The one way server text reaches a prompt: every message, choice and default string sanitised. */
export function cleanPrompter(p: Prompter): Prompter {
  const dflt = <O extends { default?: unknown }>(opts: O | undefined): O | undefined =>
    opts && typeof opts.default === 'string' ? { ...opts, default: sanitize(opts.default, { singleLine: true, maxLength: 4000 }) } : opts;
  return {
    confirm: (message, opts) => p.confirm(line(message), opts),
    input: (message, opts) => p.input(line(message), dflt(opts)),
    password: (message) => p.password(line(message)),
    select: (message, choices, opts) => p.select(line(message), cleanChoices(choices), opts),
    checkbox: (message, choices, opts) => p.checkbox(line(message), cleanChoices(choices), opts),
    editor: (message, opts) => p.editor(line(message), opts?.default !== undefined ? { default: sanitize(opts.default, { maxLength: 100_000 }) } : opts),
  };
}
