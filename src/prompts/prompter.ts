// Every question the CLI asks goes through this interface, so prompting stays behind one
// seam; the adapter loads @inquirer/prompts only when a question is actually asked.
export interface ChoiceItem<T> {
  name: string;
  value: T;
  description?: string;
}

export interface Prompter {
  confirm(message: string, opts?: { default?: boolean }): Promise<boolean>;
  input(message: string, opts?: { default?: string; validate?: (v: string) => true | string }): Promise<string>;
  password(message: string): Promise<string>;
  select<T>(message: string, choices: ChoiceItem<T>[], opts?: { default?: T }): Promise<T>;
  checkbox<T>(message: string, choices: ChoiceItem<T>[], opts?: { validate?: (v: T[]) => true | string }): Promise<T[]>;
  editor(message: string, opts?: { default?: string }): Promise<string>;
}

/** Ctrl-C inside a prompt: the command stops, keeps handles, exits 130. */
export class PromptAbortedError extends Error {
  constructor() {
    super('prompt interrupted');
    this.name = 'PromptAbortedError';
  }
}

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
  return {
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
  };
}
