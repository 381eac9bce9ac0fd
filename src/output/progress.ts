// Progress while a task runs: an ora spinner on a TTY (loaded only then), one line per change
// on stderr otherwise, nothing in --json mode (where stdout carries the NDJSON stream).
import type { Context } from '../context.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';
import { sanitize, shortenIdsIn } from './sanitize.js';
import { makeStyle, statusWord, type Style } from './render.js';

export interface Progress {
  update(s: TaskSnapshot): void;
  /** A transient remark on the spinner line (cleared by the next update); a line of its own without a spinner. */
  note(text: string): void;
  /** A wait before the next request (HTTP 429, backoff): "asking again in N s: <text>", counting down until `atMs`. */
  retry(text: string, atMs: number): void;
  /** A line that stays: printed above the spinner, which carries on below it. */
  say(text: string): void;
  /** Stop the spinner before other output (prompts, the final state); the next update restarts it. */
  stop(): void;
}

const elapsed = (ms: number) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

/** Columns a string takes on a terminal: wide (East Asian, emoji) characters count two, combining marks none. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch);
  return w;
}

const charWidth = (ch: string): number => {
  if (/\p{Mn}|\p{Me}|\u200b|\u200d|\ufe0f/u.test(ch)) return 0;
  const cp = ch.codePointAt(0)!;
  const wide =
    /\p{Extended_Pictographic}/u.test(ch) && cp > 0x2000 ||
    (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd);
  return wide ? 2 : 1;
};

/** Cut `text` to at most `width` columns, marking the cut with "…". */
export function fitWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  let out = '';
  let w = 0;
  for (const ch of text) {
    const cw = charWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** The pieces of a spinner line, plain; `spinnerLine` fits them to the terminal, least important cut first. */
export interface SpinnerParts {
  /** "generate_report on demo" */
  label: string;
  /** "working" */
  status: string;
  /** The server's status message (sanitised, one line). */
  message: string;
  /** The task's age, "3m12s". */
  age: string;
  /** A transient remark: a retry countdown. */
  extra: string;
}

/**
 * A spinner line that never wraps (a wrapped line cannot be redrawn in place): within `width`
 * columns, the status message shrinks first, then the remark, then the label; the status and
 * the age go last.
 */
export function spinnerLine(p: SpinnerParts, width: number): SpinnerParts {
  const w = displayWidth;
  const total = (q: SpinnerParts) =>
    (q.label ? w(q.label) + 2 : 0) + w(q.status) + (q.message ? 3 + w(q.message) : 0) + (q.age ? 3 + w(q.age) : 0) + (q.extra ? 1 + w(q.extra) : 0);
  const q = { ...p };
  const over = () => total(q) - width;
  if (over() > 0) {
    const room = w(q.message) - over();
    q.message = room >= 4 ? fitWidth(q.message, room) : '';
  }
  if (over() > 0) {
    const room = w(q.extra) - over();
    q.extra = room >= 6 ? fitWidth(q.extra, room) : '';
  }
  if (over() > 0) {
    const room = w(q.label) - over();
    q.label = room >= 4 ? fitWidth(q.label, room) : '';
  }
  if (over() > 0) q.age = '';
  if (over() > 0) q.status = fitWidth(q.status, width);
  return q;
}

/** Terminals known to rewrap their lines when resized (tmux, VTE, iTerm2, Terminal.app, kitty, WezTerm, Windows Terminal, Konsole, Alacritty, VS Code). */
export function reflowsOnResize(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.TMUX || env.VTE_VERSION || env.KITTY_WINDOW_ID || env.WT_SESSION || env.KONSOLE_VERSION || env.ALACRITTY_WINDOW_ID || env.WEZTERM_PANE) ||
    ['iTerm.app', 'Apple_Terminal', 'WezTerm', 'vscode'].includes(env.TERM_PROGRAM ?? '');
}

const stripStyle = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

export async function startProgress(ctx: Context, label: string, opts: { multi?: boolean; createdAt?: string | undefined } = {}): Promise<Progress> {
  const st = makeStyle(ctx.color);
  const started = ctx.now();
  label = sanitize(label, { singleLine: true, maxLength: 300 });
  // --json: stdout carries the documents, so no progress; a line that must stay still goes to stderr.
  if (ctx.json) return { update() {}, note() {}, retry() {}, say: (t) => ctx.stderr.write(`mcp-tasks: ${t}\n`), stop() {} };
  // Log lines in CI get a fixed, generous cap; the spinner line is fitted to the terminal as drawn.
  const spinning = ctx.terminal.isTTY && !opts.multi && !ctx.env.CI;
  if (!spinning) return lineProgress(ctx, label, st, started);
  const { default: ora } = await import('ora');
  return spinnerProgress(ctx, ora, label, st, started, opts.createdAt);
}

const messageOf = (s: TaskSnapshot) => (s.statusMessage ? shortenIdsIn(sanitize(s.statusMessage, { singleLine: true, maxLength: 2000 }), [s.taskId]) : '');

/** One line per change, for logs and for several tasks sharing a terminal. */
function lineProgress(ctx: Context, label: string, st: Style, started: number): Progress {
  const room = 300;
  const describe = (s: TaskSnapshot) => {
    const head = `${label}: ${statusWord(s.status, st, s.result?.isError === true)}`;
    const msg = messageOf(s);
    if (!msg) return head;
    return `${head} · ${msg.length > room ? `${msg.slice(0, room - 1)}…` : msg}`;
  };
  let lastLine = '';
  // Several tasks share the terminal: while one of them holds a prompt, the others' lines wait
  // (a line printed into an open prompt is garbled, or erased by its next redraw).
  const line = (text: string) => ctx.whenNoPrompt(() => ctx.stderr.write(`${text}\n`));
  return {
    update(s) {
      const text = describe(s);
      if (text !== lastLine) line(`[${elapsed(ctx.now() - started)}] ${text}`);
      lastLine = text;
    },
    note: line,
    retry(text, atMs) {
      const ms = Math.max(0, atMs - ctx.now());
      line(`${text}; asking again in ${ms < 1000 ? `${ms} ms` : `${Math.ceil(ms / 1000)} s`}`);
    },
    say: line,
    stop() {},
  };
}

/** One spinner line, redrawn in place, fitted to the terminal's width as it is now. */
function spinnerProgress(ctx: Context, ora: typeof import('ora').default, label: string, st: Style, started: number, createdAt: string | undefined): Progress {
  // The timer shows the task's age (from its createdAt), not how long this command has watched it.
  let createdAtMs = Date.parse(createdAt ?? '');
  const age = () => elapsed(ctx.now() - (Number.isFinite(createdAtMs) ? createdAtMs : started));
  const spinner = ora({ stream: ctx.terminal.stream, color: ctx.color ? 'cyan' : false, isEnabled: true, discardStdin: false });
  let status = 'asking the server';
  let statusColored = status;
  let message = '';
  let remark: (() => string) | undefined;
  const paint = () => {
    // The frame and its space take two columns; one more is left free so the line never touches the edge.
    const fit = spinnerLine({ label, status, message, age: age(), extra: remark?.() ?? '' }, Math.max(10, ctx.terminal.columns() - 3));
    const statusText = fit.status === status ? statusColored : fit.status;
    spinner.text = `${fit.label ? `${fit.label}: ` : ''}${statusText}${fit.message ? ` · ${fit.message}` : ''}${fit.age ? ` ${st.c.gray(`(${fit.age})`)}` : ''}${fit.extra ? ` ${st.c.yellow(fit.extra)}` : ''}`;
  };
  const onResize = resizeHandler(ctx, spinner, paint);
  let tick: NodeJS.Timeout | undefined;
  const run = () => {
    if (tick) return;
    paint();
    spinner.start();
    tick = setInterval(paint, 1000);
    tick.unref();
    ctx.terminal.stream.on('resize', onResize);
  };
  run();
  return {
    update(s) {
      status = statusWord(s.status, makeStyle(false), s.result?.isError === true);
      statusColored = statusWord(s.status, st, s.result?.isError === true);
      message = messageOf(s);
      const created = Date.parse(s.createdAt);
      if (Number.isFinite(created)) createdAtMs = created;
      remark = undefined;
      run();
      paint();
    },
    note(t) {
      remark = () => t;
      paint();
    },
    retry(t, atMs) {
      // Counts down on every repaint (once a second) until the next update clears it.
      remark = () => {
        const left = atMs - ctx.now();
        // The countdown leads, so a narrow terminal cuts the reason, not the count.
        return `${left > 0 ? `asking again in ${Math.ceil(left / 1000)} s` : 'asking again now'}: ${t}`;
      };
      paint();
    },
    say(t) {
      spinner.clear();
      ctx.stderr.write(`${t}\n`);
      if (tick) paint();
    },
    stop() {
      if (tick) clearInterval(tick);
      tick = undefined;
      ctx.terminal.stream.removeListener('resize', onResize);
      spinner.stop();
    },
  };
}

/** Redraw at the new width; clear the rows a reflowing terminal wrapped the old, wider line over. */
function resizeHandler(ctx: Context, spinner: { text: string; render(): unknown }, paint: () => void): () => void {
  let drawnColumns = ctx.terminal.columns();
  return () => {
    const columns = ctx.terminal.columns();
    // A terminal that reflows on resize has already wrapped the old, wider line over several
    // rows: those rows are the spinner's, and are cleared before it is drawn again at the new width.
    // (Elsewhere the rows above belong to earlier output and are left alone.)
    const rows = Math.ceil((2 + displayWidth(stripStyle(spinner.text))) / Math.max(1, columns)) - 1;
    if (columns < drawnColumns && rows > 0 && reflowsOnResize(ctx.env)) ctx.terminal.stream.write(`\r\x1b[2K${'\x1b[1A\x1b[2K'.repeat(rows)}`);
    drawnColumns = columns;
    paint();
    spinner.render();
  };
}
