// Interactive answers to a task's input requests, built with the Prompter (@inquirer/prompts).
// Input requests come from the server and get the trust treatment of a direct elicitation or
// sampling request: each prompt names the server and task, server text is sanitised and capped,
// URLs are shown with their origin emphasised and never opened by us, and no model reply is invented.
import type { Style } from '../output/render.js';
import { sanitize, shortenIdsIn } from '../output/sanitize.js';
import type { InputRequestSnapshot } from '../tasks/task-snapshot.js';
import { checkField } from '../tasks/input-responses.js';
import { enumValues } from '../tasks/input-fields.js';
import type { Prompter } from './prompter.js';

export interface AskContext {
  prompter: Prompter;
  st: Style;
  write: (text: string) => void;
  /** "server demo (built-in demo server) · task confirm_delete 7Hc2x9QkLm" */
  header: string;
  /** Picks the opener for a URL the person chose to open. */
  platform: NodeJS.Platform;
  /** The environment the opener starts with. */
  env: NodeJS.ProcessEnv;
  /** The task's id: shortened wherever the server's text repeats it. */
  taskId?: string | undefined;
  /** The command that answers this task later (`answer <ref>`, rendered as invoked); none before a task exists. */
  comeBack?: string | undefined;
}

type Field = Parameters<typeof checkField>[1] & { title?: string; description?: string; default?: unknown; oneOf?: Array<{ const?: unknown; title?: string }>; anyOf?: Array<{ const?: unknown; title?: string }>; enumNames?: string[] };

const clean = (s: unknown, max = 300) => sanitize(String(s ?? ''), { singleLine: true, maxLength: max });

/** Server text, set apart from ours: indented, quoted, capped. */
function serverSays(ask: AskContext, text: unknown): void {
  const t = shortenIdsIn(sanitize(String(text ?? ''), { singleLine: true, maxLength: 2000 }), [ask.taskId]);
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

/** The person refused the whole request from inside a field's question. */
type Refusal = { refused: 'decline' | 'cancel' };
const isRefusal = (v: unknown): v is Refusal => typeof v === 'object' && v !== null && 'refused' in v;
const REFUSE_VALUE = '\0mcp-tasks:refuse:';

/** Decline and cancel, offered after the server's question, as its last choices. */
function refusalChoices(): Array<{ name: string; value: string; description: string }> {
  return [
    { name: 'Decline', value: `${REFUSE_VALUE}decline`, description: 'refuse to provide this information (sent to the server as a decline)' },
    { name: 'Cancel', value: `${REFUSE_VALUE}cancel`, description: 'dismiss without choosing (sent to the server as a cancel)' },
  ];
}
const refusalOf = (v: unknown): Refusal | undefined =>
  typeof v === 'string' && v.startsWith(REFUSE_VALUE) ? { refused: v.slice(REFUSE_VALUE.length) as Refusal['refused'] } : undefined;

/**
 * A required free-text or number field left empty: the way to decline or cancel a form that
 * has no choices of its own, asked after the field's question.
 */
async function emptyRequired(ask: AskContext, title: string): Promise<Refusal | undefined> {
  const choice = await ask.prompter.select(`${title} is required`, [
    { name: 'Answer it', value: 'answer', description: 'back to the question' },
    ...refusalChoices(),
  ], { default: 'answer' });
  return refusalOf(choice);
}

/** Does asking this field offer decline and cancel (as choices, or on an empty required answer)? */
function offersRefusal(f: Field, required: boolean): boolean {
  if (f.type === 'array') return false;
  if (f.type === 'boolean' || enumValues(f)) return true;
  return required;
}

async function askField(ask: AskContext, name: string, f: Field, required: boolean): Promise<unknown> {
  const title = clean(f.title ?? name, 100);
  const label = `${title}${f.description ? ask.st.c.gray(` (${clean(f.description, 200)})`) : ''}${required ? '' : ask.st.c.gray(' [optional]')}`;
  const check = (v: unknown) => checkField(name, f, v);
  if (f.type === 'boolean') {
    // The question first, its answers, then decline and cancel; Enter alone keeps the default (No unless the server says).
    const choice = await ask.prompter.select<unknown>(label, [{ name: 'Yes', value: true }, { name: 'No', value: false }, ...refusalChoices()], {
      default: typeof f.default === 'boolean' ? f.default : false,
    });
    return refusalOf(choice) ?? choice;
  }
  if (f.type === 'array') {
    const picked = await ask.prompter.checkbox(label, multiChoices(f).map((c) => ({ ...c, value: c.value as string })), {
      validate: (vals) => check(vals) ?? true,
    });
    return picked;
  }
  if (enumValues(f)) {
    const choices: Array<{ name: string; value: unknown; description?: string }> = choicesFor(f);
    // An optional field left empty gets its default anyway (SEP-1034), so only one without a default offers it.
    if (!required && f.default === undefined) choices.push({ name: ask.st.c.gray('(leave empty)'), value: undefined });
    const choice = await ask.prompter.select<unknown>(label, [...choices, ...refusalChoices()], f.default !== undefined ? { default: f.default } : undefined);
    return refusalOf(choice) ?? choice;
  }
  const emptyHint = required ? ask.st.c.gray(' (Enter on empty: decline or cancel)') : '';
  if (f.type === 'number' || f.type === 'integer') {
    const bounds = [f.minimum !== undefined ? `≥ ${f.minimum}` : '', f.maximum !== undefined ? `≤ ${f.maximum}` : ''].filter(Boolean).join(', ');
    for (;;) {
      const text = await ask.prompter.input(`${label}${bounds ? ask.st.c.gray(` ${bounds}`) : ''}${emptyHint}`, {
        ...(f.default !== undefined ? { default: String(f.default) } : {}),
        validate: (v) => {
          if (v.trim() === '') return true;
          const n = Number(v);
          if (!Number.isFinite(n)) return 'enter a number';
          return check(n) ?? true;
        },
      });
      if (text.trim() !== '') return Number(text);
      if (!required) return undefined;
      const refused = await emptyRequired(ask, title);
      if (refused) return refused;
    }
  }
  const hint = [f.format ? `a valid ${f.format}` : '', f.minLength !== undefined ? `at least ${f.minLength} character${f.minLength === 1 ? '' : 's'}` : '', f.maxLength !== undefined ? `at most ${f.maxLength} characters` : ''].filter(Boolean).join(', ');
  for (;;) {
    const text = await ask.prompter.input(`${label}${hint ? ask.st.c.gray(` (${hint})`) : ''}${emptyHint}`, {
      ...(typeof f.default === 'string' ? { default: f.default } : {}),
      validate: (v) => (v === '' ? true : (check(v) ?? true)),
    });
    if (text !== '') return text;
    if (!required) return undefined;
    const refused = await emptyRequired(ask, title);
    if (refused) return refused;
  }
}

async function askForm(ask: AskContext, params: Record<string, unknown>): Promise<unknown> {
  const schema = (params.requestedSchema ?? {}) as { properties?: Record<string, Field>; required?: string[] };
  // The server's question first, then its fields; decline and cancel come after the question.
  serverSays(ask, params.message);
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {});
  const content: Record<string, unknown> = {};
  for (const [name, f] of fields) {
    const value = await askField(ask, name, f, required.has(name));
    if (isRefusal(value)) return { action: value.refused };
    if (value !== undefined) content[name] = value;
  }
  // A form none of whose questions offered a way out (no fields, only optional text, lists) asks at the end.
  if (!fields.some(([name, f]) => offersRefusal(f, required.has(name)))) {
    const action = await ask.prompter.select('Send this answer?', [{ name: 'Send it', value: 'accept' }, ...refusalChoices()], { default: 'accept' });
    const refused = refusalOf(action);
    if (refused) return { action: refused.refused };
  }
  return { action: 'accept', content };
}

/** Open a URL in the person's browser, only on their explicit choice (the one opener: open-url.ts). */
function openInBrowser(url: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): Promise<boolean> {
  return import('../open-url.js').then(({ openerFor, openUrl }) => openUrl(openerFor(url, platform), env), () => false);
}

/**
 * A URL as it may be shown: origin apart (what to check before trusting it), the rest after it,
 * all of it sanitised. Credentials in the URL are named, never shown; an unparsable URL is shown
 * cleaned and never offered to a browser.
 */
export function describeUrl(raw: string): { origin: string; rest: string; userInfo: boolean; openable: boolean } {
  try {
    const u = new URL(raw);
    // Not a web address (mailto:, javascript:, …): no host to emphasise, shown as it came, cleaned.
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return { origin: clean(u.protocol, 40), rest: clean(raw.slice(u.protocol.length), 2000), userInfo: false, openable: false };
    const origin = `${u.protocol}//${u.host}`;
    // Only a URL that survives sanitizing unchanged can be handed to a browser.
    const openable = clean(raw, 4000) === raw;
    return { origin: clean(origin, 200), rest: clean(`${u.pathname}${u.search}${u.hash}`, 2000), userInfo: Boolean(u.username || u.password), openable };
  } catch {
    return { origin: '(not a valid URL)', rest: ` ${clean(raw, 2000)}`, userInfo: false, openable: false };
  }
}

async function askUrl(ask: AskContext, params: Record<string, unknown>): Promise<unknown> {
  const raw = String(params.url ?? '');
  const { origin, rest, userInfo, openable } = describeUrl(raw);
  serverSays(ask, params.message);
  ask.write(`  The server asks you to open: ${ask.st.c.bold.underline(origin)}${ask.st.c.gray(rest)}\n`);
  if (userInfo) ask.write(ask.st.c.yellow(`  The URL carries a user name or password before the host (not shown); the site you would reach is ${origin}.\n`));
  ask.write(ask.st.c.gray(`  Check that you trust ${origin} before opening it. mcp-tasks does not open it for you unless you choose to below.\n`));
  let offerOpen = openable;
  for (;;) {
    // Enter alone is "not yet": a stray keypress must never approve what the URL asks for.
    const action = await ask.prompter.select('Have you completed the step at this URL?', [
      { name: 'Not yet', value: 'later', description: `send nothing now; this command ends here (exit 5) and the task keeps waiting${ask.comeBack ? `: answer later with \`${ask.comeBack}\`` : ''}` },
      ...(offerOpen ? [{ name: `Open ${origin} in my browser now`, value: 'open', description: 'then come back here' }] : []),
      { name: 'Yes, I opened it and completed the step', value: 'accept' },
      { name: 'Decline', value: 'decline', description: 'do not open it (sent to the server as a decline)' },
      { name: 'Cancel', value: 'cancel', description: 'dismiss without choosing (sent to the server as a cancel)' },
    ], { default: 'later' });
    if (action === 'later') {
      // The command ends after this (exit 5): say so now, and how to come back.
      ask.write(`  nothing sent; this command ends here (exit 5) and the task keeps waiting for this answer${ask.comeBack ? `: come back with \`${ask.comeBack}\`` : ''}.\n`);
      return undefined;
    }
    if (action !== 'open') return { action };
    offerOpen = false;
    const opened = await openInBrowser(raw, ask.platform, ask.env);
    ask.write(opened ? `  opened ${origin} in your browser; finish there, then answer here.\n` : `  could not start a browser here: copy the URL above instead.\n`);
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
