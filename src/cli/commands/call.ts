// `call <server> <tool> [args...]`: call a tool declaring the tasks extension. The vault records
// the intent before sending and the handle before anything is printed; without --detach the task
// is followed to a terminal state.
import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { ServerStore } from '../../servers/server-store.js';
import { identityOf } from '../../servers/server-entry.js';
import { decidePrior, idempotencyKeyOf, opIdForKey, refuseIdenticalInDoubt } from '../../app/call-intent.js';
import { noToolsError, withServerName } from '../../app/remote-error.js';
import { openSession, refusedToolError } from '../../session/open-session.js';
import { NoToolsError } from '../../session/task-session.js';
import { newRecord, openVault } from '../../app/task-target.js';
import { closeSession } from '../../app/with-task.js';
import { submitOperation } from '../../app/submit.js';
import { readAnswers } from '../../app/answering.js';
import { finish } from '../finish.js';
import { toolsFor } from '../../app/tool-cache.js';
import { buildArguments, SEE_TOOL_ARGS, validateArguments } from '../tool-args.js';
import { didYouMean } from '../did-you-mean.js';
import { safeName } from '../../output/sanitize.js';
import type { CallOptions } from '../task-options.js';
import type { VaultRecord } from '../../vault/vault-record.js';

export async function runCall(server: string, tool: string, pairs: string[], opts: CallOptions, ctx: Context): Promise<number> {
  const { timeoutMs, labels } = opts;
  if (opts.argsFile === '-' && opts.answers === '-') throw new CliError('usage', 'stdin cannot carry both the arguments and the answers', 'Give one of --args-file and --answers as a file.');
  // A broken answers file must stop us before any work is submitted, not halfway through.
  readAnswers(ctx, opts.answers);
  const entry = new ServerStore(ctx.home).get(server);
  const vault = openVault(ctx);
  // Open (or create) the vault before touching the server: a vault we cannot write must stop us before any work is submitted.
  await vault.prepare();

  const key = idempotencyKeyOf(opts.idempotencyKey, ctx.env);

  const session = await withServerName(server, () => openSession(ctx, entry, { serveInput: ctx.interactive || opts.answers !== undefined || opts.acceptDefaults === true }));
  const submitted: VaultRecord[] = [];
  // Set when an earlier submission under the same key is to be followed (after this session closes).
  let follow: { record: VaultRecord; note: string } | undefined;
  try {
    const code = await withServerName(server, async (): Promise<number | undefined> => {
      const tools = await untilInterrupted(ctx, server, toolsFor(ctx, entry, session, tool)).catch((err: unknown) => {
        if (err instanceof NoToolsError) throw noToolsError(err, tool);
        throw err;
      });
      const info = tools.find((t) => t.name === tool);
      if (!info) {
        const refused = session.refusedTools().find((r) => r.name === tool);
        if (refused) throw refusedToolError(server, refused);
        const names = tools.map((t) => safeName(t.name, 80)).slice(0, 15).join(', ') + (tools.length > 15 ? `, and ${tools.length - 15} more` : '');
        throw new CliError('not-found', `server "${server}" has no tool "${tool}"${didYouMean(tool, tools.map((t) => safeName(t.name, 80)))}`, `Its tools: ${names || '(none)'}. See \`mcp-tasks tools ${server}\`.`);
      }
      let args: Record<string, unknown>;
      try {
        args = buildArguments({ pairs, stdin: ctx.stdin, argsJson: opts.argsJson, argsFile: opts.argsFile, warn: (l) => ctx.stderr.write(`mcp-tasks: ${l}\n`) }, info.inputSchema);
        await validateArguments(tool, args, info.inputSchema);
      } catch (err) {
        // The hint names this server, so it runs as printed.
        if (err instanceof CliError && err.next === SEE_TOOL_ARGS) throw new CliError(err.kind, err.message, `Run \`mcp-tasks tools ${server} ${tool}\` to see the tool's arguments.`, err.exitCode);
        throw err;
      }

      const opId = key ? opIdForKey(identityOf(entry, ctx.home), key) : randomUUID();
      // A record under this key decides, never a second request: report it here, or follow its task once this session is closed.
      const onPrior = (prior: VaultRecord): number | undefined => {
        const decision = decidePrior(prior, entry, tool, args, key!, ctx.now(), opts.detach === true);
        if (decision.kind === 'follow') {
          follow = decision;
          return undefined;
        }
        ctx.stderr.write(`${decision.note}\n`);
        return finish(ctx, decision.outcome);
      };
      const now = () => new Date(ctx.now()).toISOString();
      // One intent, one effect: an earlier record under this key decides, never a second request.
      const prior = key ? await vault.get(opId) : undefined;
      if (prior) {
        return onPrior(prior);
      }
      if (!key && !opts.sendAnyway) await refuseIdenticalInDoubt(vault, { server: { name: entry.name }, operation: { name: tool, arguments: args } }, ctx.now());
      const a = info.annotations ?? {};
      const record: VaultRecord = newRecord(
        entry,
        ctx.home,
        {
          method: 'tools/call',
          name: tool,
          arguments: args,
          submittedAt: now(),
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
        now(),
        ctx.env,
      );
      if (session.protocolVersion) record.server.protocolVersion = session.protocolVersion;
      if (session.serverInfo) record.server.serverInfo = session.serverInfo;
      // The task will belong to whoever the stored sign-in acts for.
      const principal = session.signInPrincipal();
      if (principal) record.principal = principal;
      // 2025-11-25: the session the task will live in goes to disk with the intent, before the request.
      const resume = session.resumeState();
      if (resume) record.session = resume;
      // The intent is on disk before the request leaves: a crash from here on is recoverable.
      // Under a key, only the first of several racing processes creates it; the others decide on its record.
      if (key && !(await vault.create(record))) {
        return onPrior((await vault.get(opId))!);
      }
      if (!key) await vault.put(record);
      submitted.push(record);
      if (key && !entry.idempotencyMeta) {
        ctx.stderr.write(`note: server "${server}" declares no duplicate-prevention contract (server add … --idempotency-meta KEY), so the key stops re-runs from this vault only; another machine's run would send again\n`);
      }
      return finish(ctx, await submitOperation(ctx, session, vault, entry, record, { detach: opts.detach, timeoutMs, answers: opts.answers, acceptDefaults: opts.acceptDefaults }));
    });
    if (code !== undefined) return code;
  } finally {
    await closeSession(ctx, vault, session, submitted);
  }
  // The key's earlier submission has a live task: follow it as `watch` would.
  ctx.stderr.write(`${follow!.note}\n`);
  const { runWatch } = await import('./watch.js');
  return runWatch([follow!.record.opId], { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(opts.answers !== undefined ? { answers: opts.answers } : {}), ...(opts.acceptDefaults ? { acceptDefaults: true } : {}) }, ctx);
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
