// Progress while a task runs: an ora spinner on a TTY (loaded only then), one line per change
// on stderr otherwise, nothing in --json mode (where stdout carries the NDJSON stream).
import type { Context } from '../context.js';
import type { TaskSnapshot } from '../tasks/task-snapshot.js';
import { sanitize, shortenIdsIn } from './sanitize.js';
import { makeStyle, statusWord } from './render.js';

export interface Progress {
  update(s: TaskSnapshot): void;
  /** A transient remark on the spinner line (cleared by the next update); a line of its own without a spinner. */
  note(text: string): void;
  /** A line that stays: printed above the spinner, which carries on below it. */
  say(text: string): void;
  /** Stop the spinner before other output (prompts, the final state); the next update restarts it. */
  stop(): void;
}

const elapsed = (ms: number) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

export async function startProgress(ctx: Context, label: string, opts: { multi?: boolean } = {}): Promise<Progress> {
  const st = makeStyle(ctx.color);
  const started = ctx.now();
  // A spinner line must fit the terminal (a wrapped line cannot be redrawn in place); log lines
  // in CI get a fixed, generous cap instead.
  const spinning = !ctx.json && ctx.terminal.isTTY && !opts.multi && !ctx.env.CI;
  const room = spinning ? Math.max(20, ctx.terminal.columns() - label.length - 40) : 300;
  const describe = (s: TaskSnapshot) => {
    const head = `${label}: ${statusWord(s.status, st, s.result?.isError === true)}`;
    if (!s.statusMessage) return head;
    const msg = shortenIdsIn(sanitize(s.statusMessage, { singleLine: true, maxLength: 2000 }), [s.taskId]);
    return `${head} · ${msg.length > room ? `${msg.slice(0, room - 1)}…` : msg}`;
  };

  // --json: stdout carries the documents, so no progress; a line that must stay still goes to stderr.
  if (ctx.json) return { update() {}, note() {}, say: (t) => ctx.stderr.write(`mcp-tasks: ${t}\n`), stop() {} };

  if (!spinning) {
    let lastLine = '';
    return {
      update(s) {
        const line = describe(s);
        if (line !== lastLine) ctx.stderr.write(`[${elapsed(ctx.now() - started)}] ${line}\n`);
        lastLine = line;
      },
      note(text) {
        ctx.stderr.write(`${text}\n`);
      },
      say(text) {
        ctx.stderr.write(`${text}\n`);
      },
      stop() {},
    };
  }

  const { default: ora } = await import('ora');
  const spinner = ora({ stream: ctx.terminal.stream, color: ctx.color ? 'cyan' : false, isEnabled: true, discardStdin: false }).start(`${label}: asking the server`);
  let text = `${label}: waiting`;
  let extra = '';
  const paint = () => {
    spinner.text = `${text} ${st.c.gray(`(${elapsed(ctx.now() - started)})`)}${extra ? ` ${st.c.yellow(extra)}` : ''}`;
  };
  let tick: NodeJS.Timeout | undefined = setInterval(paint, 1000);
  tick.unref();
  return {
    update(s) {
      text = describe(s);
      extra = '';
      if (!tick) {
        spinner.start();
        tick = setInterval(paint, 1000);
        tick.unref();
      }
      paint();
    },
    note(t) {
      extra = t;
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
      spinner.stop();
    },
  };
}
