// Everything a command needs from the outside world, built once in main.ts and injected,
// so commands and lifecycle logic are testable without touching process globals. This file
// holds the shapes (and small helpers); build-context.ts fills them in with the prompt adapter
// and the sanitizer, which sit on a floor above it.
import { readFileSync } from 'node:fs';

/** The one way a command asks a person something (prompts/prompter.ts adapts @inquirer/prompts to it). */
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
