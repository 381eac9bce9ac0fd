// Interactive answers to a task's input requests, built with the Prompter (@inquirer/prompts).
// Input requests come from the server and get the trust treatment of a direct elicitation or
// sampling request: each prompt names the server and task, server text is sanitised and capped,
// URLs are shown with their origin emphasised and never opened by us, and no model reply is invented.
import type { Style } from '../output/render.js';
import { sanitize } from '../output/sanitize.js';
import type { InputRequestSnapshot } from '../tasks/task-snapshot.js';
import { checkField, enumValues } from '../tasks/input-responses.js';
import type { Prompter } from './prompter.js';

export interface AskContext {
  prompter: Prompter;
  st: Style;
  write: (text: string) => void;
  /** "server demo (built-in demo server) · task confirm_delete 7Hc2x9QkLm" */
  header: string;
  /** Picks the opener for a URL the person chose to open. */
  platform: NodeJS.Platform;
}

type Field = Parameters<typeof checkField>[1] & { title?: string; description?: string; default?: unknown; oneOf?: Array<{ const?: unknown; title?: string }>; anyOf?: Array<{ const?: unknown; title?: string }>; enumNames?: string[] };

const clean = (s: unknown, max = 300) => sanitize(String(s ?? ''), { singleLine: true, maxLength: max });

/** Server text, set apart from ours: indented, quoted, capped. */
function serverSays(ask: AskContext, text: unknown): void {
  const t = sanitize(String(text ?? ''), { singleLine: true, maxLength: 2000 });
  ask.write(`  ${ask.st.c.gray('server says:')} “${t.length > 300 ? `${t.slice(0, 299)}…` : t}”\n`);
}

/** Titles for a select field: oneOf/anyOf titles, legacy enumNames, else the values. */
function choicesFor(f: Field): Array<{ name: string; value: unknown }> {
  const titled = f.oneOf ?? f.anyOf;
  if (Array.isArray(titled)) return titled.map((o) => ({ name: clean((o as { title?: string }).title ?? o.const, 100), value: o.const }));
  const values = f.enum ?? [];
  return values.map((v, i) => ({ name: clean(f.enumNames?.[i] ?? v, 100), value: v }));
}

function multiChoices(f: Field): Array<{ name: string; value: unknown }> {
  const items = (f.items ?? {}) as Field;
  return choicesFor(items);
}

async function askField(ask: AskContext, name: string, f: Field, required: boolean): Promise<unknown> {
  const label = `${clean(f.title ?? name, 100)}${f.description ? ask.st.c.gray(` (${clean(f.description, 200)})`) : ''}${required ? '' : ask.st.c.gray(' [optional]')}`;
  const check = (v: unknown) => checkField(name, f, v);
  if (f.type === 'boolean') {
    return ask.prompter.confirm(label, { default: typeof f.default === 'boolean' ? f.default : false });
  }
  if (f.type === 'array') {
    const picked = await ask.prompter.checkbox(label, multiChoices(f).map((c) => ({ ...c, value: c.value as string })), {
      validate: (vals) => check(vals) ?? true,
    });
    return picked;
  }
  if (enumValues(f)) {
    const choices = choicesFor(f);
    // An optional field left empty gets its default anyway (SEP-1034), so only one without a default offers it.
    if (!required && f.default === undefined) choices.push({ name: ask.st.c.gray('(leave empty)'), value: undefined });
    return ask.prompter.select(label, choices, f.default !== undefined ? { default: f.default } : undefined);
  }
  if (f.type === 'number' || f.type === 'integer') {
    const bounds = [f.minimum !== undefined ? `≥ ${f.minimum}` : '', f.maximum !== undefined ? `≤ ${f.maximum}` : ''].filter(Boolean).join(', ');
    const text = await ask.prompter.input(`${label}${bounds ? ask.st.c.gray(` ${bounds}`) : ''}`, {
      ...(f.default !== undefined ? { default: String(f.default) } : {}),
      validate: (v) => {
        if (v.trim() === '' && !required) return true;
        const n = Number(v);
        if (v.trim() === '' || !Number.isFinite(n)) return 'enter a number';
        return check(n) ?? true;
      },
    });
    return text.trim() === '' ? undefined : Number(text);
  }
  const hint = [f.format ? `a valid ${f.format}` : '', f.minLength !== undefined ? `at least ${f.minLength} character${f.minLength === 1 ? '' : 's'}` : '', f.maxLength !== undefined ? `at most ${f.maxLength} characters` : ''].filter(Boolean).join(', ');
  const text = await ask.prompter.input(`${label}${hint ? ask.st.c.gray(` (${hint})`) : ''}`, {
    ...(typeof f.default === 'string' ? { default: f.default } : {}),
    validate: (v) => (v === '' && !required ? true : (check(v) ?? true)),
  });
  return text === '' && !required ? undefined : text;
}

async function askForm(ask: AskContext, params: Record<string, unknown>): Promise<unknown> {
  const schema = (params.requestedSchema ?? {}) as { properties?: Record<string, Field>; required?: string[] };
  serverSays(ask, params.message);
  const action = await ask.prompter.select('Your answer', [
    { name: 'Fill in the form', value: 'accept' },
    { name: 'Decline', value: 'decline', description: 'refuse to provide this information' },
    { name: 'Cancel', value: 'cancel', description: 'dismiss without choosing' },
  ]);
  if (action !== 'accept') return { action };
  const content: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, f] of Object.entries(schema.properties ?? {})) {
    const value = await askField(ask, name, f, required.has(name));
    if (value !== undefined) content[name] = value;
  }
  return { action: 'accept', content };
}

/** Open a URL in the person's browser, only on their explicit choice; never through a shell. */
function openInBrowser(url: string, platform: NodeJS.Platform): Promise<boolean> {
  const [cmd, args] =
    platform === 'darwin' ? ['open', [url]] : platform === 'win32' ? ['rundll32', ['url.dll,FileProtocolHandler', url]] : ['xdg-open', [url]];
  return new Promise((resolve) => {
    import('node:child_process').then(({ spawn }) => {
      const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    }, () => resolve(false));
  });
}

async function askUrl(ask: AskContext, params: Record<string, unknown>): Promise<unknown> {
  const raw = String(params.url ?? '');
  let origin = '(not a valid URL)';
  let rest = clean(raw, 2000);
  let openable = false;
  try {
    const u = new URL(raw);
    origin = `${u.protocol}//${u.host}`;
    rest = clean(raw.slice(origin.length), 2000);
    // Only web pages, and only a URL that survives sanitizing unchanged, can be handed to a browser.
    openable = (u.protocol === 'https:' || u.protocol === 'http:') && clean(raw, 4000) === raw;
  } catch { /* shown as is */ }
  serverSays(ask, params.message);
  ask.write(`  The server asks you to open: ${ask.st.c.bold.underline(clean(origin, 200))}${ask.st.c.gray(rest)}\n`);
  ask.write(ask.st.c.gray(`  Check that you trust ${clean(origin, 200)} before opening it. mcp-tasks does not open it for you unless you choose to below.\n`));
  let offerOpen = openable;
  for (;;) {
    const action = await ask.prompter.select('When you are done', [
      { name: 'I opened it and completed the step', value: 'accept' },
      ...(offerOpen ? [{ name: `Open ${clean(origin, 200)} in my browser now`, value: 'open', description: 'then come back here' }] : []),
      { name: 'Decline', value: 'decline', description: 'do not open it' },
      { name: 'Cancel', value: 'cancel' },
    ]);
    if (action !== 'open') return { action };
    offerOpen = false;
    const opened = await openInBrowser(raw, ask.platform);
    ask.write(opened ? `  opened ${clean(origin, 200)} in your browser; finish there, then answer here.\n` : `  could not start a browser here: copy the URL above instead.\n`);
  }
}

async function askSampling(ask: AskContext, params: Record<string, unknown>): Promise<unknown> {
  ask.write(`The server asks for a model reply (sampling). mcp-tasks runs no model: you can write the reply yourself or leave it unanswered.\n`);
  if (params.systemPrompt) ask.write(ask.st.c.gray(`  system: ${clean(params.systemPrompt, 1000)}\n`));
  const messages = Array.isArray(params.messages) ? (params.messages as Array<{ role?: string; content?: unknown }>) : [];
  for (const m of messages.slice(-10)) {
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    const text = blocks.map((b) => ((b as { type?: string })?.type === 'text' ? (b as { text?: string }).text : `[${(b as { type?: string })?.type ?? 'content'}]`)).join(' ');
    const body = sanitize(String(text ?? ''), { maxLength: 2000, maxLineLength: 500 }).split('\n').join('\n      ');
    ask.write(`  ${ask.st.c.bold(clean(m.role, 20))}: ${body}\n`);
  }
  if (params.maxTokens) ask.write(ask.st.c.gray(`  (at most ${clean(params.maxTokens, 20)} tokens)\n`));
  const choice = await ask.prompter.select('Reply', [
    { name: 'Write the reply', value: 'write' },
    { name: 'Leave unanswered', value: 'skip', description: 'the task keeps waiting; you can cancel it' },
  ]);
  if (choice !== 'write') return undefined;
  const text = await ask.prompter.input('Reply text', { validate: (v) => (v.trim() ? true : 'write something, or press Ctrl-C') });
  return { role: 'assistant', content: { type: 'text', text }, model: 'human-via-mcp-tasks', stopReason: 'endTurn' };
}

/**
 * Ask a person for one input request. Returns the response, or undefined to leave it unanswered.
 * roots/list is answered from the server entry's configured roots without a question.
 */
export async function askForInput(ask: AskContext, key: string, request: InputRequestSnapshot, roots: string[]): Promise<unknown> {
  ask.write(`\n${ask.st.c.cyan('?')} ${ask.st.c.bold(`Input request "${clean(key, 80)}"`)}\n${ask.st.c.gray(`  from ${ask.header}`)}\n`);
  const params = request.params ?? {};
  switch (request.method) {
    case 'elicitation/create':
      return params.mode === 'url' ? askUrl(ask, params) : askForm(ask, params);
    case 'sampling/createMessage':
      return askSampling(ask, params);
    case 'roots/list':
      ask.write(`  answering with the roots configured for this server: ${roots.length ? roots.join(', ') : '(none)'}\n`);
      return { roots: roots.map((uri) => ({ uri })) };
    default:
      ask.write(`  mcp-tasks cannot answer ${clean(request.method, 80)} requests; leaving it unanswered\n`);
      return undefined;
  }
}
