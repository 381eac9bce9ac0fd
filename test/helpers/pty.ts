// A real pseudo-terminal for end-to-end tests of the interactive prompts: the built CLI runs
// under util-linux `script -qfec "<command>" /dev/null`, which gives it a PTY on stdin, stdout
// and stderr. Tests type keystrokes into script's stdin and read back everything the terminal
// received. No prompt function is called directly: what is asserted is what a person would see.
//
// The child gets TERM=xterm, NO_COLOR=1, no CI (CI disables prompting), MCP_TASKS_NO_KEYCHAIN=1,
// a 120x40 window, and its own MCP_TASKS_HOME. Every process is tracked and killed when the test ends or the test
// process exits; every wait has a deadline.
import { delimiter } from 'node:path';
import { PATH_BIN_DIR } from './cli.js';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** bin/mcp-tasks.js, seen from the compiled build/test/helpers/pty.js. */
const BIN = fileURLToPath(new URL('../../../bin/mcp-tasks.js', import.meta.url));

export const KEY = {
  enter: '\r',
  up: '\x1b[A',
  down: '\x1b[B',
  backspace: '\x7f',
  ctrlC: '\x03',
} as const;

// CSI (including private modes), OSC (BEL or ST terminated), other two-byte escapes.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g;

/** What a person reads: escape sequences and carriage returns removed. */
export function stripAnsi(s: string): string {
  return s.replace(ANSI, '').replace(/\r/g, '');
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const live = new Set<PtyProcess>();
process.on('exit', () => {
  for (const p of live) p.kill();
});

export interface PtyOptions {
  /** MCP_TASKS_HOME of the child. */
  home: string;
  /** Extra environment (undefined removes a variable). */
  env?: Record<string, string | undefined>;
  cols?: number;
  rows?: number;
  /** Kill everything and fail after this long (default 30 s). */
  timeoutMs?: number;
}

export interface PtyResult {
  code: number | null;
  /** Every byte the terminal received, decoded as UTF-8. */
  raw: string;
  /** `raw` without escape sequences. */
  text: string;
}

export class PtyProcess {
  readonly script: ChildProcess;
  /** Every byte the terminal received so far, decoded as UTF-8. */
  raw = '';
  readonly done: Promise<PtyResult>;
  /** Pid of the CLI process inside the terminal (printed by the shell before it execs node). */
  private cliPid: number | undefined;
  /** Where in text() the next waitFor starts looking. */
  private cursor = 0;
  private readonly waiters: Array<() => void> = [];
  private exited = false;

  constructor(args: string[], opts: PtyOptions) {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (k.startsWith('MCP_TASKS_') || k === 'FORCE_COLOR' || k === 'NO_COLOR' || k === 'CI' || k.startsWith('NODE_TEST') || k === 'NODE_OPTIONS') continue;
      env[k] = v;
    }
    // No CI (it disables prompting), so opt out of the OS keychain explicitly: a test never touches it.
    Object.assign(env, { MCP_TASKS_HOME: opts.home, MCP_TASKS_NO_KEYCHAIN: '1', TERM: 'xterm', NO_COLOR: '1', SHELL: '/bin/sh', LANG: 'C.UTF-8', PATH: `${PATH_BIN_DIR}${delimiter}${process.env.PATH ?? ''}` });
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    // The shell prints its pid, then becomes the CLI (exec keeps the pid), so cleanup can reach it.
    const command = `stty cols ${opts.cols ?? 120} rows ${opts.rows ?? 40} 2>/dev/null; echo "PTYPID:$$"; exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
    const script = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.script = script;
    live.add(this);
    script.stdout!.setEncoding('utf8');
    script.stderr!.setEncoding('utf8');
    const onData = (d: string) => {
      this.raw += d;
      if (this.cliPid === undefined) {
        const m = /PTYPID:(\d+)/.exec(this.raw);
        if (m) this.cliPid = Number(m[1]);
      }
      this.wake();
    };
    script.stdout!.on('data', onData);
    script.stderr!.on('data', onData);
    script.stdin!.on('error', () => {});
    const timeoutMs = opts.timeoutMs ?? 30_000;
    this.done = new Promise<PtyResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(new Error(`mcp-tasks ${args.join(' ')} (in a PTY) did not finish within ${timeoutMs} ms\n--- screen\n${this.text().slice(-3000)}`));
      }, timeoutMs);
      script.on('error', (err) => {
        clearTimeout(timer);
        this.exited = true;
        live.delete(this);
        reject(err);
      });
      script.on('close', (code) => {
        clearTimeout(timer);
        this.exited = true;
        live.delete(this);
        script.stdin!.destroy();
        this.wake();
        resolve({ code, raw: this.raw, text: this.text() });
      });
    });
    this.done.catch(() => {}); // reported to whoever awaits it
  }

  /** The screen so far as plain text (the shell's pid line removed). */
  text(): string {
    return stripAnsi(this.raw).replace(/PTYPID:\d+\n?/, '');
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /**
   * Wait until `pattern` appears on the screen after the previous match; later waits look only
   * after this one, so the same prompt text asked twice is waited for twice.
   */
  async waitFor(pattern: RegExp | string, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.text();
      const rest = text.slice(this.cursor);
      let index = -1;
      let length = 0;
      if (typeof pattern === 'string') {
        index = rest.indexOf(pattern);
        length = pattern.length;
      } else {
        const m = rest.match(pattern);
        if (m && m.index !== undefined) {
          index = m.index;
          length = m[0].length;
        }
      }
      if (index >= 0) {
        this.cursor += index + length;
        return rest.slice(index, index + length);
      }
      if (this.exited) throw new Error(`the terminal closed before ${String(pattern)} appeared\n--- screen\n${text.slice(-3000)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${String(pattern)} did not appear on the screen in time\n--- screen\n${text.slice(-3000)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Type keys, one chunk at a time with a short pause, as a person would. */
  async type(...keys: string[]): Promise<void> {
    for (const k of keys) {
      if (this.exited) throw new Error(`the terminal closed before ${JSON.stringify(k)} could be typed\n--- screen\n${this.text().slice(-3000)}`);
      this.script.stdin!.write(k);
      await new Promise((r) => setTimeout(r, 40));
    }
  }

  /** Wait for `pattern`, then type `keys`. */
  async answer(pattern: RegExp | string, ...keys: string[]): Promise<void> {
    await this.waitFor(pattern);
    await this.type(...keys);
  }

  /**
   * Resize the terminal as a window manager would: the new size is set on the CLI's terminal and
   * the kernel sends it SIGWINCH. Call after something has appeared on the screen (the CLI's pid
   * is known by then).
   */
  resize(cols: number, rows = 40): void {
    if (this.cliPid === undefined) throw new Error('resize before the CLI started');
    const tty = readlinkSync(`/proc/${this.cliPid}/fd/2`);
    execFileSync('stty', ['-F', tty, 'cols', String(cols), 'rows', String(rows)]);
  }

  /** Kill the CLI inside the terminal and script itself (no-op once they are gone). */
  kill(): void {
    if (this.exited) return;
    if (this.cliPid !== undefined) {
      try {
        process.kill(this.cliPid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    try {
      this.script.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** Run `mcp-tasks ...args` in a fresh pseudo-terminal. */
export const spawnPty = (args: string[], opts: PtyOptions) => new PtyProcess(args, opts);
