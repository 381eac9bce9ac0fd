// In-process harness: `main(argv, io)` with buffers for stdout/stderr, a scripted stdin, an
// injected clock and sleep, and a scripted prompter, so a CLI case runs in milliseconds without
// spawning a process. Servers are still real (a demo server process, or none for
// cases that never reach one); only the CLI runs in the test process.
import type { ProcessIO } from '../../src/context.js';
import { main } from '../../src/main.js';
import type { Prompter } from '../../src/prompts/prompter.js';
import { PATH_WITHOUT_CLI, tempHome } from './cli.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface FakeClock {
  now(): number;
  /** Sleeping advances the clock at once: a poll loop runs without waiting on the wall clock. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Every sleep asked for, in order. */
  slept: number[];
}

export function fakeClock(startMs = Date.parse('2026-12-01T00:00:00Z')): FakeClock {
  let t = startMs;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms, signal) => {
      slept.push(ms);
      if (!signal?.aborted) t += ms;
      // Let other tasks (a second watched task, the server's answer) run between polls.
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    slept,
  };
}

/** A prompter that answers from a script, in order, and fails the test on an unexpected question. */
export function scriptedPrompter(answers: unknown[]): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const next = <T>(message: string): Promise<T> => {
    asked.push(message);
    if (answers.length === 0) return Promise.reject(new Error(`unexpected prompt: ${message}`));
    return Promise.resolve(answers.shift() as T);
  };
  return {
    asked,
    confirm: (m) => next(m),
    input: (m) => next(m),
    password: (m) => next(m),
    select: (m) => next(m),
    checkbox: (m) => next(m),
    editor: (m) => next(m),
  };
}

/**
 * Ctrl-C while the person answers: a select or confirm aborts `interrupt` and still returns the
 * first choice (or yes), as a prompt answered just as the signal arrives does.
 */
export function interruptingPrompter(interrupt: AbortController): Prompter {
  return {
    ...scriptedPrompter([]),
    select: async (_m, choices) => {
      interrupt.abort();
      return choices[0]!.value;
    },
    confirm: async () => {
      interrupt.abort();
      return true;
    },
  };
}

export interface InProcessOptions {
  home?: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  stdinIsTTY?: boolean;
  clock?: FakeClock;
  prompter?: Prompter;
  interrupt?: AbortSignal;
  /** stdout as a terminal of this many columns (default: a pipe). */
  stdoutColumns?: number;
  /** The environment as given, instead of the runner's (a temp home, CI=1, NO_COLOR, no keychain) plus `env`. */
  exactEnv?: NodeJS.ProcessEnv;
  /** How the CLI was invoked (what hints and help name), as bin.ts passes it. */
  script?: string;
}

const sink = (chunks: string[], isTTY: boolean, columns = 100) =>
  ({
    isTTY,
    columns,
    write: (t: string | Uint8Array) => {
      chunks.push(typeof t === 'string' ? t : Buffer.from(t).toString('utf8'));
      return true;
    },
  }) as unknown as NodeJS.WriteStream;

/** Run the CLI in this process: the same environment rules as the spawned runner (CI=1, NO_COLOR, no keychain). */
export async function runInProcess(argv: string[], opts: InProcessOptions = {}): Promise<InProcessResult> {
  const out: string[] = [];
  const err: string[] = [];
  const env: NodeJS.ProcessEnv = opts.exactEnv ?? { PATH: PATH_WITHOUT_CLI, HOME: process.env.HOME, MCP_TASKS_HOME: opts.home ?? tempHome(), CI: '1', NO_COLOR: '1', MCP_TASKS_NO_KEYCHAIN: '1' };
  for (const [k, v] of Object.entries(opts.exactEnv ? {} : (opts.env ?? {}))) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const io: ProcessIO = {
    stdout: opts.stdoutColumns !== undefined ? sink(out, true, opts.stdoutColumns) : sink(out, false),
    stderr: sink(err, false),
    stdinIsTTY: opts.stdinIsTTY ?? false,
    readStdin: () => opts.stdin ?? '',
    env,
    platform: process.platform,
    interrupt: opts.interrupt ?? new AbortController().signal,
    ...(opts.clock ? { now: opts.clock.now, sleep: opts.clock.sleep } : {}),
    ...(opts.prompter ? { prompter: opts.prompter } : {}),
    ...(opts.script ? { script: opts.script } : {}),
  };
  const code = await main(argv, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}
