// Builds the program, runs it, and reports what a command threw: its message through the
// presenter, its exit code from exitCodeOf (app/exit-code.ts, the one exit-code decision).
import { CommanderError, type Command } from 'commander';
import { colorLevel, wantsColor, type Context, type GlobalOptions, type ProcessIO } from './context.js';
import { buildContext } from './build-context.js';
import { CliError, ExitCode, usageError } from './errors.js';
import { buildProgram, onlyGlobalOptions } from './cli/program.js';
import { VERSION } from './version.js';
import { toCliError } from './app/remote-error.js';
import { exitCodeOf } from './app/exit-code.js';
import { presentError, presentUnexpected } from './output/present-error.js';
import { explainOptionLikeRef, optionLikeRefBeforeParse } from './cli/option-like-ref.js';
import { detectInvocation, localCommand } from './invocation.js';
import { cmd, hint, renderHint } from './hint.js';
import { resolveHome } from './home.js';

/**
 * The commands that read or write the handle store (the others never open it), each with the
 * module its action loads (cli/program.ts), by source path: with a team store, that module loads
 * a piece at a time while the store's connection opens (fs/load-in-steps.ts).
 */
export const STORE_COMMANDS = new Map(
  Object.entries({
    call: 'call',
    get: 'get',
    watch: 'watch',
    answer: 'answer',
    cancel: 'cancel',
    list: 'vault-view',
    show: 'vault-view',
    recover: 'recover',
    prune: 'vault-admin',
    export: 'vault-admin',
    import: 'vault-admin',
  }).map(([command, module]) => [command, `src/cli/commands/${module}.ts`]),
);

/** The commands whose first operand is a task ref, the first thing they look up in the store. */
const REF_COMMANDS = new Set(['get', 'watch', 'answer', 'cancel', 'show']);

export async function main(argv: string[], io: ProcessIO): Promise<number> {
  let ctx: Context | undefined;
  let exitCode: number = ExitCode.Ok;
  const makeContext = (g: GlobalOptions) => (ctx = buildContext(g, io));
  // A usage error's next step, decided once it happens: `<as invoked> <the command> --help`.
  const invocation = () => detectInvocation(io.env, io.script);
  const helpCommand = () => cmd(...commandPath(program, argv), '--help');
  const seeUsage = () => renderHint(hint`  next: \`${helpCommand()}\` shows the usage\n`, invocation());
  const program = buildProgram(
    VERSION,
    makeContext,
    (code) => (exitCode = code),
    {
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(`${explainOptionLikeRef(s, argv, invocation())}${seeUsage()}`),
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns) || 80,
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns) || 80,
    },
    {},
    { invocation, localCommand: () => localCommand(io.env, io.script) },
  );
  // chalk only for an action whose output is coloured (a TTY or FORCE_COLOR): --json, pipes and --help never load it.
  program.hook('preAction', async (_program, action) => {
    const globals = action.optsWithGlobals() as GlobalOptions;
    // A team store opens while the command's modules load (its connection, its key): a command line that parsed will use it.
    const storeModule = io.env.MCP_TASKS_STORE && action.parent === program ? STORE_COMMANDS.get(action.name()) : undefined;
    // The ref a command looks up first is looked up as the store opens (not `-`: stdin is read later).
    const ref = REF_COMMANDS.has(action.name()) && action.args[0] !== '-' ? action.args[0] : undefined;
    const kept = storeModule ? await import('./vault/postgres/pg-connect.js').then((m) => m.warmTeamStore(resolveHome(globals.home, io.env, io.platform), io.env, ref)).catch(() => false) : false;
    if (wantsColor(globals, io)) await (await import('./output/render.js')).loadColor(colorLevel(io.env));
    // The command's modules, a step at a time while the store's connection opens (on Node 22+);
    // at once through a connection keeper, whose answers come too soon for steps to gain anything.
    if (storeModule && !kept) await (await import('./fs/load-in-steps.js')).loadInSteps(storeModule);
  });
  // No command at all: the help is what was asked for (gh, git), on stdout, exit 0.
  if (onlyGlobalOptions(program, argv)) {
    program.outputHelp();
    return ExitCode.Ok;
  }
  // A usage error printed on stderr as commander prints its own; with --json, also the error document.
  const usageExit = (printed: string): number => {
    const usage = usageError(printed.trim().replace(/^error: /, ''), hint`Run \`${helpCommand()}\` for usage.`);
    if (argv.includes('--json')) presentError({ json: true, verbose: false, stdout: io.stdout, stderr: io.stderr, invocation: invocation() }, usage);
    return exitCodeOf(usage);
  };
  const pastedRef = optionLikeRefBeforeParse(argv, (flag) => optionTakesValue(program, flag), invocation());
  if (pastedRef) {
    io.stderr.write(`${pastedRef}${seeUsage()}`);
    return usageExit(pastedRef);
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; parse errors were already printed by commander on stderr.
      if (err.exitCode === 0) return ExitCode.Ok;
      return usageExit(explainOptionLikeRef(err.message, argv, invocation()));
    }
    return reportError(err, ctx ?? buildContext({}, io));
  } finally {
    if (io.env.MCP_TASKS_TIMING === '1') {
      // Only after the command: loading the vault module here must not count in --help's start-up.
      const vaultMs = ctx ? (await import('./vault/vault.js')).vaultTiming.ms : 0;
      io.stderr.write(`mcp-tasks timing: vault-ms=${vaultMs.toFixed(1)} max-rss-kb=${process.resourceUsage().maxRSS}\n`);
    }
  }
}

/** The subcommand names at the head of argv (`server add`), skipping options and their values: whose --help to point at. */
function commandPath(program: Command, argv: string[]): string[] {
  const path: string[] = [];
  let cmd = program;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (!word.includes('=') && optionTakesValue(program, word)) i++;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    path.push(sub.name());
    cmd = sub;
  }
  return path;
}

/** Whether some command's option (or a global one) named `flag` takes a value: the next word is that value. */
function optionTakesValue(program: Command, flag: string): boolean {
  const commands = (c: Command): Command[] => [c, ...c.commands.flatMap(commands)];
  return commands(program).some((c) => c.options.some((o) => (o.required || o.optional) && (o.long === flag || o.short === flag)));
}

export function reportError(thrown: unknown, ctx: Context): number {
  const err = toCliError(thrown) ?? thrown;
  if (err instanceof CliError) presentError(ctx, err);
  else presentUnexpected(ctx, err);
  return exitCodeOf(err);
}
