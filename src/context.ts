// Everything a command needs from the outside world, built once in main.ts and injected,
// so commands and lifecycle logic are testable without touching process globals.
import { readFileSync } from 'node:fs';
import { resolveHome } from './home.js';
import { inquirerPrompter, type Prompter } from './prompts/prompter.js';
import { detectInvocation } from './invocation.js';
import { replaceTaskId, shortenIdsIn } from './output/sanitize.js';

export interface GlobalOptions {
  json?: boolean;
  color?: boolean; // commander's --no-color sets this to false
  input?: boolean; // --no-input sets this to false
  verbose?: boolean;
  home?: string;
  storedAuthOnly?: boolean;
}

export interface Output {
  /** Bytes for output already encoded (`list --json` copies the vault's stored rows). */
  write(text: string | Uint8Array): void;
  isTTY: boolean;
  /** The terminal's width when this stream is one (tables fit it); undefined for a pipe or file. */
  columns?(): number | undefined;
}

/** Standard input: read whole, once; a second reader (a taskId, then answers) gets the same text. */
export interface Input {
  isTTY: boolean;
  readAll(): string;
}

/** The stream prompts and spinners draw on (stderr: stdout stays clean for `--json | jq`). */
export interface Terminal {
  stream: NodeJS.WritableStream;
  isTTY: boolean;
  /** Its width now (a terminal can be resized while a spinner runs); 80 when unknown. */
  columns(): number;
}

export interface Context {
  stdin: Input;
  stdout: Output;
  stderr: Output;
  terminal: Terminal;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  json: boolean;
  color: boolean;
  /** Prompting allowed: a TTY on stdin, not CI, no --no-input. */
  interactive: boolean;
  verbose: boolean;
  /** --stored-auth-only: never start a sign-in (exit 8 instead). */
  storedAuthOnly: boolean;
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Diagnostics on stderr with -v; every registered secret is replaced before printing. */
  debug(line: string): void;
  /** Register a secret (a taskId, a token) that must never appear in diagnostics. */
  redact(secret: string | undefined): void;
  /**
   * Register a task id whose handle the vault holds (or the user gave): whatever its length, it is
   * redacted in diagnostics and shortened on stderr and in human output (`shortenTaskIds`).
   */
  redactTaskId(taskId: string | undefined): void;
  /** Text for human output with every registered task id shortened (server text often echoes it). */
  shortenTaskIds(text: string): string;
  /** Fires on Ctrl-C: long-running commands stop and keep their handles. */
  interrupt: AbortSignal;
  /** Questions for a person; only used when `interactive`. */
  prompter: Prompter;
  /** One person, one prompt at a time: several watched tasks asking at once take turns. */
  promptTurn<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Output from outside the prompt's turn (other tasks' progress and results): run now, or held
   * while a prompt turn is open and run, in order, when it ends.
   */
  whenNoPrompt(write: () => void): void;
  /** The command as the user invoked it (`npx mcp-tasks`, `mcp-tasks`, `node …/mcp-tasks.js`): every printed command starts with it. */
  readonly invocation: string;
}

export interface ProcessIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdinIsTTY: boolean;
  /** All of stdin as text (blocking); called at most once per context. */
  readStdin: () => string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  interrupt: AbortSignal;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  prompter?: Prompter;
  /** The script node ran (process.argv[1]): tells `mcp-tasks` on PATH from `node bin/mcp-tasks.js`. */
  script?: string;
}

/** A file named on the command line, or stdin for `-` (read once, through the Context). */
export function readFileArg(stdin: Pick<Input, 'readAll'>, path: string): string {
  return path === '-' ? stdin.readAll() : readFileSync(path, 'utf8');
}

export const realSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * FORCE_COLOR as chalk reads it: "" or "true" is level 1, "false" 0, a number its level (at most 3);
 * anything else (or unset) forces nothing.
 */
export function forcedColorLevel(env: NodeJS.ProcessEnv): number | undefined {
  const v = env.FORCE_COLOR;
  if (v === undefined) return undefined;
  if (v === '' || v === 'true') return 1;
  if (v === 'false') return 0;
  const n = Number.parseInt(v, 10);
  return Number.isNaN(n) ? undefined : Math.max(0, Math.min(n, 3));
}

/** The chalk level for a coloured run: FORCE_COLOR's when it names one, else basic 16 colours. */
export const colorLevel = (env: NodeJS.ProcessEnv): 1 | 2 | 3 => (Math.max(1, forcedColorLevel(env) ?? 1) as 1 | 2 | 3);

/**
 * Colour: never with --json, --no-color or NO_COLOR (they win, as documented); else FORCE_COLOR
 * decides when set (chalk's rule, even into a pipe); else a TTY on stdout.
 */
export function wantsColor(opts: GlobalOptions, io: Pick<ProcessIO, 'stdout' | 'env'>): boolean {
  if (opts.color === false || opts.json || ('NO_COLOR' in io.env && io.env.NO_COLOR !== '')) return false;
  const forced = forcedColorLevel(io.env);
  return forced !== undefined ? forced > 0 : Boolean(io.stdout.isTTY);
}

export function buildContext(opts: GlobalOptions, io: ProcessIO): Context {
  const env = io.env;
  const json = Boolean(opts.json);
  const color = wantsColor(opts, io);
  const interactive = opts.input !== false && io.stdinIsTTY && !env.CI;
  const verbose = Boolean(opts.verbose);
  const secrets = new Set<string>();
  const taskIds = new Set<string>();
  const scrub = (line: string) => {
    let out = line;
    for (const secret of secrets) out = out.split(secret).join('[redacted]');
    for (const id of taskIds) out = replaceTaskId(out, id, '[redacted]');
    return out;
  };
  const shortenTaskIds = (text: string) => (taskIds.size ? shortenIdsIn(text, taskIds) : text);
  let stdinText: string | undefined;
  let promptQueue: Promise<unknown> = Promise.resolve();
  let promptOpen = false;
  const held: Array<() => void> = [];
  let invocation: string | undefined;
  return {
    // Looked up only when a hint is printed (it may stat PATH entries).
    get invocation() {
      return (invocation ??= detectInvocation(env, io.script));
    },
    stdin: { isTTY: io.stdinIsTTY, readAll: () => (stdinText ??= io.readStdin()) },
    stdout: { write: (t) => void io.stdout.write(t), isTTY: Boolean(io.stdout.isTTY), columns: () => (io.stdout.isTTY ? io.stdout.columns || 80 : undefined) },
    // Everything on stderr is for people (notes, hints, errors quoting the server): ids short there.
    stderr: { write: (t) => void io.stderr.write(typeof t === 'string' ? shortenTaskIds(t) : t), isTTY: Boolean(io.stderr.isTTY) },
    terminal: { stream: io.stderr, isTTY: Boolean(io.stderr.isTTY), columns: () => io.stderr.columns || 80 },
    platform: io.platform,
    env,
    home: resolveHome(opts.home, env, io.platform),
    json,
    color,
    interactive,
    verbose,
    storedAuthOnly: Boolean(opts.storedAuthOnly),
    now: io.now ?? (() => Date.now()),
    sleep: io.sleep ?? realSleep,
    debug: (line) => {
      if (verbose) io.stderr.write(`mcp-tasks: ${scrub(line)}\n`);
    },
    redact: (secret) => {
      // Short strings would blank out ordinary words; ids and tokens are long.
      if (secret && secret.length >= 8) secrets.add(secret);
    },
    redactTaskId: (taskId) => {
      if (taskId) taskIds.add(taskId);
    },
    shortenTaskIds,
    interrupt: io.interrupt,
    prompter: io.prompter ?? inquirerPrompter(io.stderr),
    promptTurn: <T>(fn: () => Promise<T>): Promise<T> => {
      const turn = promptQueue.then(async () => {
        promptOpen = true;
        try {
          return await fn();
        } finally {
          promptOpen = false;
          for (const write of held.splice(0)) write();
        }
      });
      promptQueue = turn.catch(() => undefined);
      return turn;
    },
    whenNoPrompt: (write) => {
      if (promptOpen) held.push(write);
      else write();
    },
  };
}
