// Commander wiring only: flags → options → a lazily imported run function. Keeping command
// modules behind dynamic imports means `--help` and fast paths never load the SDK.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { Context, GlobalOptions } from '../context.js';
import { DURATION_SYNTAX, examplesBlock, wrapText, COMPLETION_NEEDS_COMMAND } from './help-text.js';
import { versionInfo, versionText } from './version-info.js';
import { answerOptions, callOptions, cancelOptions, getOptions, watchOptions, type AnswerOptions, type CallOptions, type CancelOptions, type GetOptions, type WatchOptions } from './task-options.js';

export type ContextFactory = (globals: GlobalOptions) => Context;
/** What an action resolves to: the process exit code. */
export type RunResult = Promise<number>;

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

export interface ProgramOutput {
  writeOut(s: string): void;
  writeErr(s: string): void;
  outputError?(s: string, write: (s: string) => void): void;
  /** The width help is wrapped to (the terminal's; 80 when not a terminal). */
  getOutHelpWidth?(): number;
  getErrHelpWidth?(): number;
}

/** What help needs from the outside: the command as invoked (asked only when help is printed). */
export interface HelpEnv {
  invocation?(): string;
  /** The command that runs this installation without a registry lookup (see invocation.ts localCommand). */
  localCommand?(): string;
}

/** The run functions of the task commands, injectable so flag parsing is tested without running anything. */
export interface Runners {
  get(ref: string, opts: GetOptions, ctx: Context): RunResult;
  watch(refs: string[], opts: WatchOptions, ctx: Context): RunResult;
  answer(ref: string, opts: AnswerOptions, ctx: Context): RunResult;
  cancel(ref: string, opts: CancelOptions, ctx: Context): RunResult;
  call(server: string, tool: string, pairs: string[], opts: CallOptions, ctx: Context): RunResult;
}

// Loaded on first use only: --help never imports a command module.
const lazyRunners: Runners = {
  get: async (...a) => (await import('./commands/get.js')).runGet(...a),
  watch: async (...a) => (await import('./commands/watch.js')).runWatch(...a),
  answer: async (...a) => (await import('./commands/answer.js')).runAnswer(...a),
  cancel: async (...a) => (await import('./commands/cancel.js')).runCancel(...a),
  call: async (...a) => (await import('./commands/call.js')).runCall(...a),
};

/**
 * True when argv holds global options only, no command (then help is what was asked for). Read
 * from the program's own option definitions, so a global option is declared once. -V/--version is
 * left out: it prints the version.
 */
export function onlyGlobalOptions(program: Command, argv: readonly string[]): boolean {
  const byFlag = new Map<string, Option>();
  for (const o of program.options) {
    if (o.long === '--version') continue;
    if (o.short) byFlag.set(o.short, o);
    if (o.long) byFlag.set(o.long, o);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const o = byFlag.get(flag);
    const takesValue = o !== undefined && (o.required || o.optional);
    if (!o || (eq > 0 && !takesValue)) return false;
    // `--home <dir>`: the next word is its value, not a command.
    if (eq < 0 && o.required) i++;
  }
  return true;
}

export function buildProgram(version: string, makeContext: ContextFactory, done: (code: number) => void, output: ProgramOutput, injected: Partial<Runners> = {}, helpEnv: HelpEnv = {}): Command {
  const run: Runners = { ...lazyRunners, ...injected };
  const program = new Command('mcp-tasks');
  // Set before any subcommand exists: subcommands inherit them, so no path calls process.exit.
  program.exitOverride();
  // Help is plain text: its colours would not follow NO_COLOR / --no-color the way ours do.
  program.configureOutput({ getOutHasColors: () => false, getErrHasColors: () => false, ...output });
  program
    .description('Inspect and recover long-running MCP tasks: the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks) and the 2025-11-25 experimental tasks.')
    .option('-V, --version', 'print the name, version, Node and the protocol versions spoken (with --json: an object)')
    .option('--json', 'one JSON document on stdout (watch: one object per line)')
    .option('--no-color', 'plain text (also when NO_COLOR is set, or stdout is not a TTY and FORCE_COLOR is not set)')
    .option('--no-input', 'never prompt (implied when stdin is not a TTY or CI is set)')
    .option('-v, --verbose', 'diagnostics on stderr, with secrets and task ids redacted')
    .option('--home <dir>', 'where config and vault live (env MCP_TASKS_HOME)')
    .option('--stored-auth-only', 'never start a sign-in; exit 8 when one is needed')
    // No help-after-error line here: main.ts adds a next step naming the command as invoked.
    // Set before any subcommand exists (they share it): every --help lists the global options too.
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true });
  // Our own --version (commander's prints the bare number): read --json from the whole command line.
  program.on('option:version', () => {
    const info = versionInfo(version);
    const json = (program as unknown as { rawArgs: string[] }).rawArgs.includes('--json');
    output.writeOut(json ? `${JSON.stringify(info)}\n` : versionText(info));
    throw new CommanderError(0, 'commander.version', info.version);
  });

  // Our own help paragraphs wrap to the width commander wraps its columns to.
  const widthOf = (c: { error: boolean }) => (c.error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.()) ?? 80;
  const wrapped = (text: string) => (c: { error: boolean }) => wrapText(text, widthOf(c));

  const ctxOf = (cmd: Command) => makeContext(cmd.optsWithGlobals() as GlobalOptions);

  const server = program.command('server').description('named servers: add, list, show, remove, import, check, login, logout');
  server
    .command('add <name> [command...]')
    .description('add a Streamable HTTP server (--url) or a stdio server (-- <command> [args...])')
    .option('--url <url>', 'Streamable HTTP endpoint')
    .addOption(new Option('--header <"K: V">', 'static header (repeatable); "K: env:VAR" reads $VAR at connect time').argParser(collect))
    .option('--bearer-env <VAR>', 'read a bearer token from $VAR at connect time (the token is never stored)')
    .addOption(new Option('--env <K=V|K>', 'stdio environment (repeatable); K alone passes your $K through').argParser(collect))
    .option('--cwd <dir>', 'working directory of a stdio server')
    .addOption(new Option('--root <uri>', 'a root to answer roots/list requests with (repeatable)').argParser(collect))
    .option('--idempotency-meta <key>', 'the server deduplicates on _meta[<key>]: send the operation id there on every call')
    .option('--allow-http', 'allow plain http:// to a non-loopback host')
    .option('--force', 'replace an existing server of that name')
    .action(async (name: string, command: string[], opts, cmd: Command) => {
      const { runServerAdd } = await import('./commands/server.js');
      done(await runServerAdd(name, command, opts, ctxOf(cmd)));
    });
  server
    .command('list')
    .description('named servers (secrets redacted)')
    .action(async (_opts, cmd: Command) => {
      const { runServerList } = await import('./commands/server.js');
      done(runServerList(ctxOf(cmd)));
    });
  server
    .command('show <name>')
    .description('one server entry (secrets redacted)')
    .action(async (name: string, _opts, cmd: Command) => {
      const { runServerShow } = await import('./commands/server.js');
      done(await runServerShow(name, ctxOf(cmd)));
    });
  server
    .command('remove <name>')
    .description('forget a server (vaulted tasks are kept)')
    .action(async (name: string, _opts, cmd: Command) => {
      const { runServerRemove } = await import('./commands/server.js');
      done(await runServerRemove(name, ctxOf(cmd)));
    });
  server
    .command('import <file>')
    .description('import servers from an mcpServers JSON config (mcp.json)')
    .option('--only <names>', 'comma-separated subset to import')
    .option('--force', 'replace servers that already exist')
    .action(async (file: string, opts, cmd: Command) => {
      const { runServerImport } = await import('./commands/server.js');
      done(await runServerImport(file, opts, ctxOf(cmd)));
    });
  server
    .command('check <name>')
    .description('protocol generation, whether the tasks extension is advertised, tools with their hints')
    .action(async (name: string, _opts, cmd: Command) => {
      const { runServerCheck } = await import('./commands/server.js');
      done(await runServerCheck(name, ctxOf(cmd)));
    });

  server
    .command('login <name>')
    .description('OAuth sign-in for an HTTP server (browser and loopback redirect, or --client-credentials)')
    .option('--scope <scopes>', 'scopes to ask for (default: what the server names)')
    .option('--no-browser', 'print the URL instead of opening a browser')
    .option('--client-id <id>', 'a pre-registered client id (default: client metadata document or dynamic registration)')
    .option('--client-secret-env <VAR>', 'read the client secret from $VAR')
    .option('--client-key-env <VAR>', 'with --client-credentials: a PEM private key in $VAR (private_key_jwt)')
    .option('--client-key-alg <alg>', 'the signing algorithm for --client-key-env (default: from the key)')
    .option('--client-metadata-url <url>', 'the https URL of a client ID metadata document to use as client id')
    .option('--client-credentials', 'machine sign-in (client_credentials grant), for CI')
    .option('--timeout <duration>', 'how long to wait for the browser sign-in (default 5m)')
    .action(async (name: string, opts, cmd: Command) => {
      const { runServerLogin } = await import('./commands/server-auth.js');
      done(await runServerLogin(name, opts, ctxOf(cmd)));
    });
  server
    .command('logout <name>')
    .description("forget the server's tokens and client registration")
    .action(async (name: string, _opts, cmd: Command) => {
      const { runServerLogout } = await import('./commands/server-auth.js');
      done(await runServerLogout(name, ctxOf(cmd)));
    });

  program
    .command('tools <server> [tool]')
    .description("tools with annotations (read-only / destructive / idempotent hints); with a tool name, that tool's arguments")
    .action(async (name: string, tool: string | undefined, _opts, cmd: Command) => {
      const { runTools } = await import('./commands/tools.js');
      done(await runTools(name, ctxOf(cmd), tool));
    });

  program
    .command('call <server> <tool> [args...]')
    .description('call a tool declaring the tasks extension; follows the task to its end unless --detach')
    .addHelpText('after', wrapped('\nArguments: key=value (a string, or a number/boolean where the tool\'s schema asks for one), key:=json (typed JSON).'))
    .option('--args-json <json>', 'the whole argument object as JSON')
    .option('--args-file <file>', 'the argument object from a JSON file (- for stdin)')
    .option('--detach', 'print the handle and exit once the task exists')
    .option('--timeout <duration>', 'stop following after this long (exit 124, handle kept)')
    .addOption(new Option('--label <k=v>', 'label the task (repeatable); a label value works as a ref').argParser(collect))
    .option('--answers <file>', 'responses for input requests, by key (JSON; - for stdin)')
    .option('--accept-defaults', 'accept every form whose required fields all have defaults, with those defaults (others are left to --answers or a person)')
    .option('--idempotency-key <key>', 'name the operation (env MCP_TASKS_IDEMPOTENCY_KEY): a re-run with the same key follows or reports the first submission instead of sending again')
    .option('--new', 'send even though an identical call (same server, tool and arguments) is in doubt')
    .action(async (server: string, tool: string, args: string[], opts, cmd: Command) => {
      const ctx = ctxOf(cmd);
      done(await run.call(server, tool, args, callOptions(opts), ctx));
    });

  /** --server / --save / --rebind: shared by every command that acts on one task. */
  const withTargetOptions = (cmd: Command) =>
    cmd
      .option('--server <name>', 'act on a taskId that is not in the vault, on this server')
      .option('--save', 'with --server: add the task to the vault')
      .option('--rebind', "send the handle even though the named server's URL or command changed")
      .option('--yes', 'confirm --rebind without a terminal to ask in')
      .option('--new', 'with --save: add the task as a record of its own even though a submission to that server is in doubt');

  const refHelp = '\n<ref>: a taskId, a unique prefix (6+ characters) of a vaulted taskId, a label value, or - to read a taskId from stdin.\nA ref that begins with "-" goes after "--": get -- -AbC…';
  withTargetOptions(program.command('get <ref>'))
    .description('one tasks/get: print the state, and the result or error when terminal')
    .addHelpText('after', wrapped(refHelp))
    .action(async (ref: string, opts, cmd: Command) => {
      const ctx = ctxOf(cmd);
      done(await run.get(ref, getOptions(opts), ctx));
    });
  withTargetOptions(program.command('watch [ref...]'))
    .description("follow until terminal: pushed states where the server offers them, else polls at its pollIntervalMs")
    .addHelpText('after', wrapped(refHelp))
    .option('--active', 'watch every active task in the vault (no refs needed)')
    .option('--poll', 'poll with tasks/get only; do not subscribe to pushed states (subscriptions/listen)')
    .option('--timeout <duration>', 'stop after this long (exit 124, handle kept)')
    .option('--answers <file>', 'responses for input requests, by key (JSON; - for stdin)')
    .option('--accept-defaults', 'accept every form whose required fields all have defaults, with those defaults (others are left to --answers or a person)')
    .action(async (refs: string[], opts, cmd: Command) => {
      const ctx = ctxOf(cmd);
      done(await run.watch(refs, watchOptions(opts), ctx));
    });
  withTargetOptions(program.command('answer <ref> [answers...]'))
    .description('answer inputRequests with tasks/update; interactive forms in a terminal')
    .addHelpText(
      'after',
      wrapped(refHelp +
        '\n--answers F: a JSON object mapping each input request key to its response (an ElicitResult, a CreateMessageResult or a ListRootsResult); --template prints one to fill in.' +
        "\n[answers...]: inline form answers, typed by the form's schema like call's arguments: field=value (one form pending) or KEY.field=value (several); field:=json for typed JSON."),
    )
    .option('--answers <file>', 'responses by key (JSON; - for stdin)')
    .option('--accept-defaults', 'accept every form whose required fields all have defaults, with those defaults (others are left to --answers or a person)')
    .option('--template', 'print a JSON answers skeleton for the pending requests (nothing is sent)')
    .addOption(new Option('--decline <key>', 'decline this elicitation (repeatable)').argParser(collect))
    .addOption(new Option('--cancel <key>', 'cancel this elicitation (repeatable)').argParser(collect))
    .addOption(new Option('--again <key>', 'send a new answer to a key answered before, on purpose (repeatable)').argParser(collect))
    .action(async (ref: string, pairs: string[], opts, cmd: Command) => {
      const ctx = ctxOf(cmd);
      done(await run.answer(ref, { ...answerOptions(opts), ...(pairs.length ? { pairs } : {}) }, ctx));
    });
  withTargetOptions(program.command('cancel <ref>'))
    .description('request cancellation (tasks/cancel); --wait reports the state actually reached')
    .addHelpText('after', wrapped(refHelp))
    .option('--wait', 'follow the task to its terminal state and exit with its code')
    .option('--timeout <duration>', 'with --wait: stop after this long (exit 124)')
    .option('--force', 'send tasks/cancel even when the vault holds the task as finished')
    .action(async (ref: string, opts, cmd: Command) => {
      const ctx = ctxOf(cmd);
      done(await run.cancel(ref, cancelOptions(opts), ctx));
    });

  program
    .command('list')
    .description('vault records (active by default)')
    .option('--server <name>', 'only tasks on this server')
    .option('--status <status>', 'only this status or phase (working, completed, lost, in-doubt, …)')
    .addOption(new Option('--label <k=v>', 'only tasks with this label (repeatable)').argParser(collect))
    .option('--all', 'include finished tasks')
    .option('--limit <n>', 'only the N most recently created', positiveInt)
    .option('--refresh', 'poll each listed active task first (one tasks/get each), then list what was seen')
    .option('--origin <text>', 'only records whose origin (user@host, CI run) contains this text')
    .option('--mine', 'only records written by this user on this host')
    .option('--follow', 'team store: after the list, every record other machines add or change, as it happens (until Ctrl-C)')
    .option('--remote <server>', "the server's own task list (2025-11-25 tasks/list), marking the tasks this vault holds")
    .action(async (opts, cmd: Command) => {
      if (opts.remote !== undefined) {
        const { runListRemote } = await import('./commands/list-remote.js');
        return done(await runListRemote(opts.remote, ctxOf(cmd)));
      }
      const { runList } = await import('./commands/vault-view.js');
      done(await runList(opts, ctxOf(cmd)));
    });
  program
    .command('show <ref>')
    .description('one vault record: server identity, auth kind, operation, status history, cached result')
    .action(async (ref: string, _opts, cmd: Command) => {
      const { runShow } = await import('./commands/vault-view.js');
      done(await runShow(ref, ctxOf(cmd)));
    });

  program
    .command('recover [ref]')
    .description('submissions whose outcome is in doubt (request sent, no handle) and the safe next step; --resolve closes one')
    .addHelpText('after', wrapped('\n[ref]: an operation id or a 6+ character prefix of one, a label value, or a taskId prefix (a lost task).\n--resolve closes an in-doubt or lost record after you checked on the server what happened: it becomes terminal, keeps its history, and `prune` may then drop it.'))
    .option('--resolve <outcome>', 'after an out-of-band check: completed, not-run or failed')
    .option('--note <text>', 'with --resolve: what you found (kept in the record)')
    .option('--resubmit', 'send the operation again when that cannot duplicate its effect')
    .option('--force', 'with --resubmit: resubmit even an operation not known to be safe (asks in a terminal)')
    .option('--yes', 'with --resubmit --force: confirm without a terminal to ask in')
    .option('--detach', 'with --resubmit: print the new handle and exit')
    .option('--attach <taskId>', 'the task this in-doubt submission created, found on the server (- reads the taskId from stdin)')
    .action(async (opId: string | undefined, opts, cmd: Command) => {
      const { runRecover } = await import('./commands/recover.js');
      done(await runRecover(opId, opts, ctxOf(cmd)));
    });
  program
    .command('prune')
    .description('discard records whose terminal result is persisted')
    .option('--terminal', 'finished tasks (the default)')
    .option('--older-than <duration>', 'only records last updated before this long ago')
    .action(async (opts, cmd: Command) => {
      const { runPrune } = await import('./commands/vault-admin.js');
      done(await runPrune(opts, ctxOf(cmd)));
    });
  program
    .command('export <ref...>')
    .description('hand tasks to another machine: a bundle encrypted with $MCP_TASKS_EXPORT_KEY')
    .option('--out <file>', 'write the bundle here (default: stdout)')
    .action(async (refs: string[], opts, cmd: Command) => {
      const { runExport } = await import('./commands/vault-admin.js');
      done(await runExport(refs, opts, ctxOf(cmd)));
    });
  program
    .command('import <file>')
    .description('add the tasks of an export bundle to the vault (importing twice adds nothing)')
    .action(async (file: string, _opts, cmd: Command) => {
      const { runImport } = await import('./commands/vault-admin.js');
      done(await runImport(file, ctxOf(cmd)));
    });

  const vault = program.command('vault').description('the local vault itself: check it');
  vault
    .command('check')
    .description('read every record file and compare the listing with them; report each damaged one with what to do (changes nothing without --repair)')
    .addHelpText('after', wrapped('\nExit codes: 0 nothing damaged (or all of it repaired), 9 damage found and left as it is.'))
    .option('--repair', 'move damaged record files aside (never deleted) and rebuild the listing from the record files')
    .action(async (opts, cmd: Command) => {
      const { runVaultCheck } = await import('./commands/vault-admin.js');
      done(runVaultCheck({ ...(opts.repair ? { repair: true } : {}) }, ctxOf(cmd)));
    });
  const store = program.command('store').description('the team store (MCP_TASKS_STORE): status, init, keygen, key, push');
  store
    .command('status')
    .description('which store holds the handles, whether it is reachable, its schema version, how many records and whose')
    .action(async (_opts, cmd: Command) => {
      const { runStoreStatus } = await import('./commands/store.js');
      done(await runStoreStatus(ctxOf(cmd)));
    });
  store
    .command('init')
    .description('create or migrate the team store schema (idempotent; safe to run from every CI job)')
    .action(async (_opts, cmd: Command) => {
      const { runStoreInit } = await import('./commands/store.js');
      done(await runStoreInit(ctxOf(cmd)));
    });
  store
    .command('keygen')
    .description('print a new generated team key (256 random bits) for MCP_TASKS_TEAM_KEY: a store initialised with one opens without passphrase stretching')
    .action(async (_opts, cmd: Command) => {
      const { runStoreKeygen } = await import('./commands/store.js');
      done(await runStoreKeygen(ctxOf(cmd)));
    });
  const storeKey = store.command('key').description("keep the team key in this machine's OS keychain for the store MCP_TASKS_STORE names: save, forget");
  storeKey
    .command('save')
    .description('check a team key against the store, then keep it in the OS keychain: commands on this store need no MCP_TASKS_TEAM_KEY (the key is asked for, hidden, or read from stdin; never an argument)')
    .addHelpText('after', wrapped('\nMCP_TASKS_TEAM_KEY, where set, wins over the saved key. Keychains: the macOS Keychain, Windows Credential Manager, a Secret Service on Linux (GNOME Keyring, KWallet). Exit codes: 0 saved, 1 no key given, 9 a wrong key, a store without a schema, an unreachable store or no usable keychain (nothing saved).'))
    // A key typed after `save` is refused by the use case with what to do about it, not as an unknown argument.
    .allowExcessArguments()
    .action(async (_opts, cmd: Command) => {
      const { runStoreKeySave } = await import('./commands/store.js');
      done(await runStoreKeySave(cmd.args, ctxOf(cmd)));
    });
  storeKey
    .command('forget')
    .description("remove the store's team key from this machine's OS keychain (the store and its records are untouched)")
    .action(async (_opts, cmd: Command) => {
      const { runStoreKeyForget } = await import('./commands/store.js');
      done(await runStoreKeyForget(ctxOf(cmd)));
    });
  store
    .command('push [ref...]')
    .description('copy local vault records (all, or these) into the team store; pushing twice adds nothing')
    .action(async (refs: string[], _opts, cmd: Command) => {
      const { runStorePush } = await import('./commands/store.js');
      done(await runStorePush(refs, ctxOf(cmd)));
    });

  program
    .command('demo-server')
    .description('run the embedded demo tasks server (2026-07-28 tasks extension)')
    .option('--http <port>', 'serve Streamable HTTP on 127.0.0.1:<port> (0 picks a free port)')
    .option('--host <addr>', 'address to bind with --http', '127.0.0.1')
    .option('--stdio', 'serve over stdin/stdout (the default when --http is absent)')
    .option('--store <file>', 'durable task store (default: <home>/demo/tasks.json)')
    .addOption(new Option('--fault <name>', 'inject a fault (repeatable): drop-create-response, ttl=<ms>, rate-limit, slow-get=<ms>, hostile-text, hostile-ids, dash-task-ids, no-push').argParser(collect))
    .action(async (opts, cmd: Command) => {
      const { runDemoServer } = await import('./commands/demo-server.js');
      done(await runDemoServer(opts, ctxOf(cmd)));
    });

  program
    .command('completion <shell>')
    .description('print a shell completion script: bash, zsh or fish (servers, tools and refs from config and vault, no network)')
    .action(async (shell: string, _opts, cmd: Command) => {
      const { completionScript } = await import('./completion.js');
      const ctx = ctxOf(cmd);
      const script = completionScript(shell, ctx.invocation, helpEnv.localCommand?.() ?? ctx.invocation);
      ctx.stdout.write(script.text);
      if (script.note) ctx.stderr.write(`note: ${script.note}\n`);
      done(0);
    })
    .addHelpText('after', wrapped(`\n${COMPLETION_NEEDS_COMMAND}\n`));
  // What the completion scripts call for candidates (`__complete -- <cword> <words...>`).
  program
    .command('__complete [words...]', { hidden: true })
    .helpOption(false)
    .allowUnknownOption()
    .action(async (words: string[], _opts, cmd: Command) => {
      const { runComplete } = await import('./completion.js');
      done(await runComplete(program, words, ctxOf(cmd)));
    });

  // EXAMPLES and the duration syntax on every command's --help, the commands as invoked.
  const invocation = () => helpEnv.invocation?.() ?? 'mcp-tasks';
  const decorate = (cmd: Command, path: string) => {
    for (const sub of cmd.commands) if (sub.name() !== '__complete') decorate(sub, path ? `${path} ${sub.name()}` : sub.name());
    const takesDuration = cmd.options.some((o) => o.flags.includes('<duration>'));
    cmd.addHelpText('after', (c) => (takesDuration ? wrapText(`\n${DURATION_SYNTAX}.\n`, widthOf(c)) : '') + examplesBlock(path, invocation()));
  };
  decorate(program, '');

  return program;
}
