// The Context built from the process's facts, once, in main.ts: the composition root's part that
// picks the real prompt adapter, home directory, invocation and the id shortener for stderr.
import { resolveHome } from './home.js';
import { inquirerPrompter } from './prompts/prompter.js';
import { detectInvocation } from './invocation.js';
import { replaceTaskId, shortenIdsIn } from './output/sanitize.js';
import { realSleep, wantsColor, type Context, type GlobalOptions, type ProcessIO } from './context.js';

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
