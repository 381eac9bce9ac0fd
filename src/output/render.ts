// Rendering for people and for scripts, in one module. Formatters return strings; they never
// look at process.stdout themselves (colour is decided once, in the Context).
import type { ChalkInstance } from 'chalk';
import type { TaskStatus } from '../protocol/constants.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';
import { isLostOrInDoubt, UNKNOWN_OPERATION, type ListedRecord, type VaultRecord } from '../vault/vault-record.js';
import { safeJson, safeName, sanitize, shortenIdsIn, shortTaskId } from './sanitize.js';

export interface Style {
  c: ChalkInstance;
}

/**
 * Without colour (--json, pipes, CI, NO_COLOR) chalk is never loaded: a chainable stand-in whose
 * every style returns its text, as chalk at level 0 does.
 */
const plain: ChalkInstance = new Proxy(function () {} as unknown as ChalkInstance, {
  get: () => plain,
  apply: (_target, _this, args: unknown[]) => args.join(' '),
});
let colorChalk: ChalkInstance | undefined;

/** Loads chalk for a coloured run; main.ts awaits it before an action whose output is coloured. */
export async function loadColor(level: 1 | 2 | 3 = 1): Promise<void> {
  if (colorChalk) return;
  const { Chalk } = await import('chalk');
  colorChalk = new Chalk({ level });
}

export function makeStyle(color: boolean): Style {
  return { c: color && colorChalk ? colorChalk : plain };
}

/** The contract's JSON shape for every task-bearing command. */
export interface TaskJson {
  /** null for a submission that never received a handle (in doubt). */
  taskId: string | null;
  server: string;
  /** The vault phase instead when it says more: a lost or in-doubt task is not "working". */
  status: TaskStatus | 'unknown' | 'lost' | 'in-doubt' | 'resolved';
  /** `resolved`: the verdict given by hand after an out-of-band check (`recover --resolve`). */
  resolution?: VaultRecord['resolution'];
  /** For lost, in-doubt and resolved records: the last status the server reported, if any. */
  lastStatus?: TaskStatus;
  /** Why a task is lost or in doubt, in words. */
  reason?: string;
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
  ttlMs?: number | null;
  pollIntervalMs?: number;
  inputRequests?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  /** null for a task inspected by taskId that this vault did not submit: its operation is unknown. */
  operation: { method: string; name: string; arguments: Record<string, unknown> } | null;
  labels: Record<string, string>;
  /** Vault phase when it says more than status: lost, in-doubt. */
  phase?: string;
}

export function taskJson(rec: ListedRecord, snapshot?: TaskSnapshot): TaskJson {
  const s = snapshot ?? (rec.last ? { ...rec.last, ...(rec.result ? { result: rec.result } : {}), ...(rec.error ? { error: rec.error } : {}) } : undefined);
  const out: TaskJson = {
    taskId: rec.taskId ?? s?.taskId ?? null,
    server: rec.server.name,
    status: s?.status ?? 'unknown',
    operation: rec.operation.name === UNKNOWN_OPERATION ? null : { method: rec.operation.method, name: rec.operation.name, arguments: rec.operation.arguments },
    labels: rec.labels,
  };
  const gone = isLostOrInDoubt(rec.phase);
  if (s) {
    // A lost task's last message and pending requests are history, not its state.
    if (s.statusMessage !== undefined && !gone) out.statusMessage = s.statusMessage;
    out.createdAt = s.createdAt;
    out.lastUpdatedAt = s.lastUpdatedAt;
    out.ttlMs = s.ttlMs;
    if (s.pollIntervalMs !== undefined) out.pollIntervalMs = s.pollIntervalMs;
    if (s.inputRequests && !gone) out.inputRequests = s.inputRequests;
    if (s.result) out.result = s.result;
    if (s.error) out.error = s.error;
  }
  if (rec.resolution) {
    // Closed by hand after an out-of-band check: the verdict, not an observed task status.
    if (s?.status) out.lastStatus = s.status;
    out.status = 'resolved';
    out.resolution = rec.resolution;
  } else if (isLostOrInDoubt(rec.phase)) {
    // A script reading `status` must not see "working" for a task the server no longer knows.
    if (s?.status) out.lastStatus = s.status;
    out.status = rec.phase;
    out.phase = rec.phase;
    if (rec.reason) out.reason = rec.reason;
  }
  return out;
}

/** A record's `list --json` row: the contract's task JSON plus opId, phase and origin, through the one sanitizer (the vault stores it). */
export function listingRowJson(rec: VaultRecord): string {
  // Who wrote the record first (user, host, CI run), absent for records older than origins.
  return safeJson(Object.assign(taskJson(rec), { opId: rec.opId, phase: rec.phase }, rec.origin ? { origin: rec.origin } : {}));
}

export const jsonLine = (value: unknown) => safeJson(value) + '\n';

export function statusWord(status: TaskStatus | 'unknown' | 'lost' | 'in-doubt', st: Style, isError = false): string {
  const { c } = st;
  switch (status) {
    case 'completed':
      return isError ? c.yellow('completed with a tool error') : c.green('completed');
    case 'failed':
      return c.red('failed');
    case 'cancelled':
      return c.yellow('cancelled');
    case 'input_required':
      return c.magenta('input required');
    case 'working':
      return c.cyan('working');
    case 'lost':
      return c.red('lost');
    case 'in-doubt':
      return c.red('in doubt');
    default:
      return c.gray(status);
  }
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A CallToolResult for people: text as text, structured content as JSON, the rest named. */
export function renderCallToolResult(result: Record<string, unknown>, st: Style): string {
  const lines: string[] = [];
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
  for (const block of content) {
    const type = sanitize(String(block.type ?? 'unknown'), { singleLine: true, maxLength: 40 });
    if (type === 'text') lines.push(sanitize(String(block.text ?? '')));
    else if (type === 'image' || type === 'audio') {
      const size = typeof block.data === 'string' ? Math.floor((block.data.length * 3) / 4) : 0;
      lines.push(st.c.gray(`[${type} ${sanitize(String(block.mimeType ?? ''), { singleLine: true, maxLength: 80 })}, ${formatBytes(size)}]`));
    } else if (type === 'resource_link') {
      lines.push(st.c.gray(`[link ${sanitize(String(block.name ?? ''), { singleLine: true, maxLength: 200 })} ${sanitize(String(block.uri ?? ''), { singleLine: true, maxLength: 500 })}]`));
    } else if (type === 'resource') {
      const res = (block.resource ?? {}) as Record<string, unknown>;
      const size = typeof res.text === 'string' ? res.text.length : typeof res.blob === 'string' ? Math.floor((res.blob.length * 3) / 4) : 0;
      lines.push(st.c.gray(`[resource ${sanitize(String(res.uri ?? ''), { singleLine: true, maxLength: 500 })}, ${formatBytes(size)}]`));
    } else lines.push(st.c.gray(`[${type} content]`));
  }
  if (result.structuredContent !== undefined) {
    lines.push(sanitize(JSON.stringify(result.structuredContent, null, 2)));
  }
  return lines.join('\n');
}

export { shortTaskId };

/** The one-paragraph human view of a task's state (get, watch's final state). */
export function renderTask(rec: VaultRecord, s: TaskSnapshot | undefined, st: Style): string {
  const { c } = st;
  const lines: string[] = [];
  const gone = isLostOrInDoubt(rec.phase);
  const status = isLostOrInDoubt(rec.phase) ? rec.phase : (s?.status ?? 'unknown');
  const toolErr = s?.status === 'completed' && s.result?.isError === true;
  lines.push(`${c.bold(safeName(rec.operation.name))} on ${c.bold(safeName(rec.server.name))}: ${statusWord(status, st, toolErr)}`);
  // A lost task's last message and pending requests are history (`show` lists them), not its state.
  if (s?.statusMessage && !gone) lines.push(`  ${sanitize(s.statusMessage, { singleLine: true, maxLength: 300 })}`);
  if (rec.reason && gone) lines.push(`  ${safeName(rec.reason, 500)}`);
  if (gone && s?.status) lines.push(c.gray(`  last reported status: ${s.status}`));
  // A shortened id: this output ends up in terminals' scrollback and CI logs, and the whole
  // bearer handle is in the vault (`show`, `--json`) for whoever needs it.
  if (rec.taskId) lines.push(c.gray(`  task ${shortTaskId(rec.taskId)}`));
  if (s) lines.push(c.gray(`  created ${s.createdAt}, updated ${s.lastUpdatedAt}${s.ttlMs !== null ? `, ttl ${Math.round(s.ttlMs / 1000)} s` : ''}`));
  if (s?.status === 'input_required' && s.inputRequests && !gone) {
    lines.push(`  waiting for input: ${Object.keys(s.inputRequests).map((k) => sanitize(k, { singleLine: true, maxLength: 80 })).join(', ')}`);
  }
  if (s?.status === 'completed' && s.result) {
    const body = renderCallToolResult(s.result, st);
    if (body) lines.push('', body);
  }
  if (s?.status === 'failed' && s.error) {
    lines.push('', c.red(`error ${s.error.code}: ${sanitize(s.error.message, { maxLength: 2000 })}`));
  }
  // The whole bearer id, quoted back in the server's own text, is shortened like ours.
  return shortenIdsIn(lines.join('\n'), [rec.taskId, s?.taskId]) + '\n';
}

/** Pending input requests, for a person who must answer them elsewhere. */
/** `taskIds`: the task's own id, shortened wherever the server's text repeats it (human output). */
export function renderInputRequests(requests: Record<string, { method: string; params?: Record<string, unknown> }>, st: Style, taskIds: Array<string | undefined> = []): string {
  const lines: string[] = [];
  for (const [key, req] of Object.entries(requests)) {
    const k = sanitize(key, { singleLine: true, maxLength: 80 });
    const p = req.params ?? {};
    if (req.method === 'elicitation/create') {
      const mode = p.mode === 'url' ? 'url' : 'form';
      lines.push(`  ${st.c.bold(k)}: ${mode === 'url' ? 'open a URL' : 'a form'}: ${shortenIdsIn(sanitize(String(p.message ?? ''), { singleLine: true, maxLength: 300 }), taskIds)}`);
      if (mode === 'url') lines.push(`      ${sanitize(String(p.url ?? ''), { singleLine: true, maxLength: 500 })}`);
      else {
        const props = Object.keys(((p.requestedSchema as Record<string, unknown> | undefined)?.properties as Record<string, unknown> | undefined) ?? {});
        if (props.length) lines.push(`      fields: ${props.map((x) => sanitize(x, { singleLine: true, maxLength: 60 })).join(', ')}`);
      }
    } else if (req.method === 'sampling/createMessage') {
      lines.push(`  ${st.c.bold(k)}: a model reply (sampling/createMessage)`);
    } else if (req.method === 'roots/list') {
      lines.push(`  ${st.c.bold(k)}: the list of roots (roots/list)`);
    } else lines.push(`  ${st.c.bold(k)}: ${sanitize(req.method, { singleLine: true, maxLength: 80 })}`);
  }
  return lines.join('\n') + '\n';
}

/** Visible width: colour codes take no columns. */
export const visibleLength = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').length;

const cut = (text: string, room: number) => (text.length > room ? `${text.slice(0, Math.max(1, room - 1))}…` : text);

export interface TableOptions {
  /** The terminal's width; undefined (a pipe) cuts nothing. */
  width?: number;
  /** The column that gives way when the row is wider than the terminal (plain text; styled after the cut). */
  flex?: number;
  flexStyle?: (text: string) => string;
}

/** Aligned columns under upper-case headers, two spaces apart (as gh prints them). */
export function renderTable(headers: string[], rows: string[][], opts: TableOptions = {}): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => visibleLength(r[i] ?? ''))));
  const flex = opts.flex;
  if (flex !== undefined && opts.width !== undefined) {
    const others = widths.reduce((sum, w, i) => (i === flex ? sum : sum + w + 2), 0);
    widths[flex] = Math.max(Math.min(widths[flex]!, 4), Math.min(widths[flex]!, opts.width - others - 1));
  }
  const line = (cells: string[], isHeader: boolean) =>
    cells
      .map((c, i) => {
        let text = c;
        if (i === flex) {
          text = cut(c, widths[i]!);
          if (!isHeader && opts.flexStyle) text = opts.flexStyle(text);
        }
        return i === cells.length - 1 ? text : text + ' '.repeat(Math.max(0, widths[i]! - visibleLength(text)));
      })
      .join('  ')
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase()), true), ...rows.map((r) => line(r, false))].join('\n') + '\n';
}

/** Tab-separated rows, no header, no colour: for a pipe (as gh prints them). Tabs and newlines inside cells become spaces. */
export const renderTsv = (rows: string[][]): string => rows.map((r) => r.map((c) => c.replace(/[\t\n]/g, ' ')).join('\t')).join('\n') + (rows.length ? '\n' : '');

/** Tools with their hints, one line each (tools, server check); the description fits the terminal's width. */
export function renderToolLines(tools: Array<{ name: string; description?: string; annotations?: Record<string, unknown>; execution?: { taskSupport?: string } }>, st: Style, width?: number): string {
  const nameWidth = Math.max(4, ...tools.map((t) => Math.min(t.name.length, 40)));
  return tools
    .map((t) => {
      const a = t.annotations ?? {};
      // 2025-11-25 tools say whether they run as tasks (execution.taskSupport).
      const support = t.execution?.taskSupport ? `task: ${sanitize(t.execution.taskSupport, { singleLine: true, maxLength: 20 })}` : '';
      const hints = [a.readOnlyHint ? st.c.green('read-only') : '', a.destructiveHint ? st.c.red('destructive') : '', a.idempotentHint ? st.c.cyan('idempotent') : '', support].filter(Boolean).join(' ');
      const full = t.description ? sanitize(t.description, { singleLine: true, maxLength: 2000 }) : '';
      const lead = `    ${sanitize(t.name, { singleLine: true, maxLength: 40 }).padEnd(nameWidth)}  ${hints ? `[${hints}] ` : ''}`;
      // In a terminal the description ends at its edge; into a pipe it is whole.
      const desc = width === undefined ? full : cut(full, Math.max(8, width - visibleLength(lead) - 1));
      return `${lead}${st.c.gray(desc)}`.trimEnd() + '\n';
    })
    .join('');
}

type ArgSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
  items?: ArgSchema;
  anyOf?: ArgSchema[];
  oneOf?: ArgSchema[];
};

const text = (v: unknown, max = 60) => sanitize(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)), { singleLine: true, maxLength: max });

function typeOf(s: ArgSchema): string {
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length) return alts.map(typeOf).join('|');
  const t = s.type === undefined ? (s.enum ? 'enum' : s.const !== undefined ? 'const' : 'any') : Array.isArray(s.type) ? s.type.join('|') : s.type;
  return text(t === 'array' && s.items ? `array<${typeOf(s.items)}>` : t, 40);
}

function rangeOf(s: ArgSchema): string {
  if (s.enum) return s.enum.map((v) => text(v, 40)).join('|');
  if (s.const !== undefined) return `= ${text(s.const)}`;
  const bound = (lo: number | undefined, hi: number | undefined, loX?: number, hiX?: number) => {
    const l = loX !== undefined ? `>${loX}` : lo !== undefined ? `${lo}` : '';
    const h = hiX !== undefined ? `<${hiX}` : hi !== undefined ? `${hi}` : '';
    if (!l && !h) return '';
    if (loX === undefined && hiX === undefined && l && h) return `${l}..${h}`;
    return [l && (loX !== undefined ? l : `>=${l}`), h && (hiX !== undefined ? h : `<=${h}`)].filter(Boolean).join(' ');
  };
  const parts = [
    typeof s.minimum === 'number' || typeof s.maximum === 'number' || typeof s.exclusiveMinimum === 'number' || typeof s.exclusiveMaximum === 'number' ? bound(s.minimum, s.maximum, s.exclusiveMinimum, s.exclusiveMaximum) : '',
    s.minLength !== undefined || s.maxLength !== undefined ? `length ${bound(s.minLength, s.maxLength)}` : '',
    s.minItems !== undefined || s.maxItems !== undefined ? `items ${bound(s.minItems, s.maxItems)}` : '',
    s.format ? `format ${text(s.format, 30)}` : '',
    s.pattern ? `pattern ${text(s.pattern, 40)}` : '',
    s.items?.enum ? s.items.enum.map((v) => text(v, 40)).join('|') : '',
  ];
  return parts.filter(Boolean).join(', ');
}

/** A tool's arguments (its inputSchema's properties) as a table; server text sanitised throughout. */
export function renderArgumentTable(inputSchema: Record<string, unknown> | undefined, st: Style, width?: number): string {
  const props = (inputSchema?.properties ?? {}) as Record<string, ArgSchema>;
  const required = new Set(Array.isArray(inputSchema?.required) ? (inputSchema.required as unknown[]).map(String) : []);
  const names = Object.keys(props);
  if (names.length === 0) return '\nno arguments\n';
  const rows = names.map((name) => {
    const s = props[name] && typeof props[name] === 'object' ? props[name] : {};
    return [sanitize(name, { singleLine: true, maxLength: 60 }), typeOf(s), required.has(name) ? 'yes' : 'no', s.default === undefined ? '' : text(s.default), rangeOf(s), text(s.description ?? s.title ?? '', 2000)];
  });
  return `\n${renderTable(['name', 'type', 'required', 'default', 'range', 'description'], rows, { ...(width !== undefined ? { width } : {}), flex: 5, flexStyle: (t) => st.c.gray(t) })}`;
}
