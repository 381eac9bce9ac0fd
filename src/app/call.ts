// The use case behind `call <server> <tool> [args...]`: call a tool declaring the tasks extension.
// The store records the intent before sending and the handle before anything is printed; an
// earlier record under the same idempotency key decides instead of a second request.
import { randomUUID } from 'node:crypto';
import type { Context } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { ServerStore } from '../servers/server-store.js';
import { identityOf, type ServerEntry } from '../servers/server-entry.js';
import { decidePrior, idempotencyKeyOf, opIdForKey, refuseIdenticalInDoubt } from './call-intent.js';
import { noToolsError, withServerName } from './remote-error.js';
import { openSession, refusedToolError } from '../session/open-session.js';
import { NoToolsError, type TaskSession, type ToolInfo } from '../session/task-session.js';
import { newRecord } from './task-target.js';
import { closeSession } from './with-task.js';
import { submitOperation } from './submit.js';
import { readAnswers } from './answering.js';
import { toolsFor } from './tool-cache.js';
import { buildArguments, loadValidator, SEE_TOOL_ARGS, validateArguments } from './tool-args.js';
import { didYouMean } from '../output/did-you-mean.js';
import { safeName } from '../output/sanitize.js';
import type { Say } from '../output/notes.js';
import type { Outcome } from './outcomes.js';
import type { HandleStore } from '../vault/handle-store.js';
import type { VaultRecord } from '../vault/vault-record.js';
import { cmd, hint, shellQuote } from '../hint.js';

export interface CallOptions {
  argsJson?: string;
  argsFile?: string;
  detach?: boolean;
  timeoutMs?: number;
  labels: Record<string, string>;
  answers?: string;
  /** Accept every form whose required fields all have defaults, with those defaults. */
  acceptDefaults?: boolean;
  /** Names the operation: its opId is derived from it, so every retry is the same submission. */
  idempotencyKey?: string;
  /** Send although an identical call is in doubt. */
  sendAnyway?: boolean;
}

/** What a call came to: an outcome to present, or an earlier submission under the key to follow. */
export type CallDecision = { kind: 'outcome'; outcome: Outcome } | { kind: 'follow'; record: VaultRecord };

/** What the use case needs from outside: the store, and a way to say a line while it works. */
export interface CallDeps {
  vault: HandleStore;
  say: Say;
}

export async function call(ctx: Context, deps: CallDeps, server: string, tool: string, pairs: string[], opts: CallOptions): Promise<CallDecision> {
  const { vault, say } = deps;
  if (opts.argsFile === '-' && opts.answers === '-') throw new CliError('usage', 'stdin cannot carry both the arguments and the answers', 'Give one of --args-file and --answers as a file.');
  // A broken answers file must stop us before any work is submitted, not halfway through.
  readAnswers(ctx, opts.answers);
  const entry = new ServerStore(ctx.home).get(server);
  // The store opens (a team store: its driver, connection and key) while the session's handshake
  // runs; a store we cannot write stops us before any request that may create work.
  const opening = withServerName(server, () => openSession(ctx, entry, { serveInput: ctx.interactive || opts.answers !== undefined || opts.acceptDefaults === true }));
  opening.catch(() => {}); // its failure is reported below, after the store's
  // The validator (the SDK's AJV) loads while the handshake waits on the network, not after it.
  void loadValidator().catch(() => {});
  try {
    await vault.prepare();
  } catch (err) {
    await opening.then((s) => s.close(), () => {});
    throw err;
  }
  const key = idempotencyKeyOf(opts.idempotencyKey, ctx.env);
  const session = await opening;
  const submitted: VaultRecord[] = [];
  try {
    return await withServerName(server, async (): Promise<CallDecision> => {
      const info = await toolNamed(ctx, session, entry, tool);
      const args = argumentsFor(ctx, server, tool, pairs, opts, info, say);
      const opId = key ? opIdForKey(identityOf(entry, ctx.home), key) : randomUUID();
      // A record under this key decides, never a second request: report it, or follow its task once this session is closed.
      const onPrior = (prior: VaultRecord): CallDecision => {
        const decision = decidePrior(prior, entry, tool, args, key!, ctx.now(), opts.detach === true);
        say(decision.note);
        return decision.kind === 'follow' ? { kind: 'follow', record: decision.record } : { kind: 'outcome', outcome: decision.outcome };
      };
      // The store is read (a team store: a round trip) while the arguments are checked against
      // the tool's schema (its validator loads and compiles); an invalid call still reports that first.
      const known = key ? vault.get(opId) : opts.sendAnyway ? Promise.resolve(undefined) : refuseIdenticalInDoubt(vault, { server: { name: entry.name }, operation: { name: tool, arguments: args } }, ctx.now()).then(() => undefined);
      known.catch(() => {});
      await checkArguments(server, tool, args, info);
      const prior = await known;
      if (prior) return onPrior(prior);
      const record = callRecord(ctx, session, entry, tool, args, info, key, opts.labels, opId);
      // The intent is stored before the request leaves: a crash from here on is recoverable.
      // Under a key, only the first of several racing processes creates it; the others decide on its record.
      if (key && !(await vault.create(record))) return onPrior((await vault.get(opId))!);
      if (!key) await vault.put(record);
      submitted.push(record);
      if (key && !entry.idempotencyMeta) {
        say(`note: server "${server}" declares no duplicate-prevention contract (server add … --idempotency-meta KEY), so the key stops re-runs from this vault only; another machine's run would send again`);
      }
      const outcome = await submitOperation(ctx, session, vault, entry, record, { detach: opts.detach, timeoutMs: opts.timeoutMs, answers: opts.answers, acceptDefaults: opts.acceptDefaults });
      return { kind: 'outcome', outcome };
    });
  } finally {
    await closeSession(ctx, vault, session, submitted);
  }
}

/** The tool to call, from the (cached) list; a refused, unknown or absent one is a one-line error naming what there is. */
async function toolNamed(ctx: Context, session: TaskSession, entry: ServerEntry, tool: string): Promise<ToolInfo> {
  const server = entry.name;
  const tools = await untilInterrupted(ctx, server, toolsFor(ctx, entry, session, tool)).catch((err: unknown) => {
    if (err instanceof NoToolsError) throw noToolsError(err, tool);
    throw err;
  });
  const info = tools.find((t) => t.name === tool);
  if (info) return info;
  const refused = session.refusedTools().find((r) => r.name === tool);
  if (refused) throw refusedToolError(server, refused);
  const names = tools.map((t) => safeName(t.name, 80)).slice(0, 15).join(', ') + (tools.length > 15 ? `, and ${tools.length - 15} more` : '');
  throw new CliError('not-found', `server "${server}" has no tool "${tool}"${didYouMean(tool, tools.map((t) => safeName(t.name, 80)))}`, hint`Its tools: ${names || '(none)'}. See \`${cmd('tools', server)}\`.`);
}

/** The call's arguments, typed by the tool's inputSchema. */
function argumentsFor(ctx: Context, server: string, tool: string, pairs: string[], opts: CallOptions, info: ToolInfo, say: Say): Record<string, unknown> {
  try {
    return buildArguments({ pairs, stdin: ctx.stdin, argsJson: opts.argsJson, argsFile: opts.argsFile, warn: (l) => say(`mcp-tasks: ${l}`) }, info.inputSchema);
  } catch (err) {
    throw namingServer(server, tool, err);
  }
}

/** The arguments checked against the tool's inputSchema, before anything is sent. */
async function checkArguments(server: string, tool: string, args: Record<string, unknown>, info: ToolInfo): Promise<void> {
  try {
    await validateArguments(tool, args, info.inputSchema);
  } catch (err) {
    throw namingServer(server, tool, err);
  }
}

/** An argument error whose hint names this server, so it runs as printed. */
function namingServer(server: string, tool: string, err: unknown): unknown {
  if (err instanceof CliError && err.next === SEE_TOOL_ARGS) return new CliError(err.kind, err.message, hint`Run \`${cmd('tools', server, shellQuote(tool))}\` to see the tool's arguments.`, err.exitCode);
  return err;
}

/** The record of this call's intent: the operation, the server as the session found it, who it acts for. */
function callRecord(ctx: Context, session: TaskSession, entry: ServerEntry, tool: string, args: Record<string, unknown>, info: ToolInfo, key: string | undefined, labels: Record<string, string>, opId: string): VaultRecord {
  const now = new Date(ctx.now()).toISOString();
  const a = info.annotations ?? {};
  const record = newRecord(
    entry,
    ctx.home,
    {
      method: 'tools/call',
      name: tool,
      arguments: args,
      submittedAt: now,
      ...(entry.idempotencyMeta ? { idempotencyMeta: entry.idempotencyMeta } : {}),
      ...(key ? { idempotencyKey: key } : {}),
      annotations: {
        ...(a.readOnlyHint !== undefined ? { readOnlyHint: a.readOnlyHint } : {}),
        ...(a.destructiveHint !== undefined ? { destructiveHint: a.destructiveHint } : {}),
        ...(a.idempotentHint !== undefined ? { idempotentHint: a.idempotentHint } : {}),
      },
    },
    labels,
    opId,
    now,
    ctx.env,
  );
  if (session.protocolVersion) record.server.protocolVersion = session.protocolVersion;
  if (session.serverInfo) record.server.serverInfo = session.serverInfo;
  // The task will belong to whoever the stored sign-in acts for.
  const principal = session.signInPrincipal();
  if (principal) record.principal = principal;
  // What a later process needs to rejoin the task's server-side scope goes to disk with the intent, before the request.
  const resume = session.resumeState();
  if (resume) record.session = resume;
  return record;
}

/**
 * Before the intent is written nothing has been sent: an interrupt (Ctrl-C, SIGTERM) ends the
 * command at once (exit 130) instead of waiting for a slow or silent answer to run out its timeout.
 */
function untilInterrupted<T>(ctx: Context, server: string, work: Promise<T>): Promise<T> {
  const signal = ctx.interrupt;
  const stopped = () => new CliError('interrupted', `interrupted while asking server "${server}" for its tools; the call was not sent, nothing was started`, 'Run the same command again when ready.', ExitCode.Interrupted);
  if (signal.aborted) return Promise.reject(stopped());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stopped());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
