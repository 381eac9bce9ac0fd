// Commander wiring only: flags → options → a lazily imported run function. Keeping command
// modules behind dynamic imports means `--help` and fast paths never load the SDK.
import { Command, Option } from 'commander';
import type { Context, GlobalOptions } from '../context.js';

export type ContextFactory = (globals: GlobalOptions) => Context;
/** What an action resolves to: the process exit code. */
export type RunResult = Promise<number>;

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function buildProgram(version: string, makeContext: ContextFactory, done: (code: number) => void): Command {
  const program = new Command('mcp-tasks');
  program
    .description('Inspect and recover long-running MCP tasks (io.modelcontextprotocol/tasks, 2026-07-28).')
    .version(version, '-V, --version')
    .option('--json', 'one JSON document on stdout (watch: one object per line)')
    .option('--no-color', 'plain text (also when NO_COLOR is set or stdout is not a TTY)')
    .option('--no-input', 'never prompt (implied when stdin is not a TTY or CI is set)')
    .option('-v, --verbose', 'diagnostics on stderr, with secrets and task ids redacted')
    .option('--home <dir>', 'where config and vault live (env MCP_TASKS_HOME)')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false });

  const ctxOf = (cmd: Command) => makeContext(cmd.optsWithGlobals() as GlobalOptions);

  program
    .command('demo-server')
    .description('run the embedded demo tasks server (2026-07-28 tasks extension)')
    .option('--http <port>', 'serve Streamable HTTP on 127.0.0.1:<port> (0 picks a free port)')
    .option('--host <addr>', 'address to bind with --http', '127.0.0.1')
    .option('--stdio', 'serve over stdin/stdout (the default when --http is absent)')
    .option('--store <file>', 'durable task store (default: <home>/demo/tasks.json)')
    .addOption(new Option('--fault <name>', 'inject a fault (repeatable): drop-create-response, ttl=<ms>, rate-limit, slow-get=<ms>, hostile-text').argParser(collect))
    .action(async (opts, cmd: Command) => {
      const { runDemoServer } = await import('./commands/demo-server.js');
      done(await runDemoServer(opts, ctxOf(cmd)));
    });

  return program;
}
