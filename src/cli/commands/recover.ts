// `recover [<op-id> [--resubmit [--force]]]`: submissions whose outcome is in doubt (request sent,
// no handle came back) and the safe next step. A resubmission happens only when it cannot
// duplicate an effect: a read-only or idempotent tool, or a server that deduplicates on the
// operation id we sent; otherwise only with --force (and a confirmation in a terminal).
import { safeJson } from '../../output/sanitize.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { openVault } from '../../app/task-target.js';
import { closeSession, openSessionFor } from '../../app/with-task.js';
import { submitOperation } from '../../app/submit.js';
import { finish } from '../finish.js';
import { forceConfirmation } from '../../output/present-recover.js';
import type { ResubmitVerdict } from '../../app/outcomes.js';
import { describeIdentity, identityOf, sameIdentity } from '../../servers/server-entry.js';
import { ServerStore } from '../../servers/server-store.js';
import { byCreatedAt, typeableRef, type VaultRecord } from '../../vault/vault-record.js';
import { didYouMean } from '../did-you-mean.js';
import { writerGone } from '../../vault/writer.js';

/** A record still `submitting` after this long belongs to a process that died mid-submit. */
const STALE_SUBMITTING_MS = 2 * 60 * 1000;

export type { ResubmitVerdict };

/** Pure: may this operation be sent again without risking a duplicated effect? */
export function resubmitVerdict(rec: VaultRecord): ResubmitVerdict {
  const a = rec.operation.annotations ?? {};
  if (rec.operation.idempotencyMeta) return { safe: true, why: `the server deduplicates on _meta["${rec.operation.idempotencyMeta}"], and the same operation id is sent again` };
  if (a.readOnlyHint) return { safe: true, why: `${rec.operation.name} is annotated read-only` };
  if (a.idempotentHint) return { safe: true, why: `${rec.operation.name} is annotated idempotent` };
  return {
    safe: false,
    why: `${rec.operation.name} is ${a.destructiveHint === false ? 'not known to be idempotent' : 'possibly destructive and not idempotent'}, and the server declares no duplicate-prevention contract`,
  };
}

export function inDoubtRecords(records: VaultRecord[], nowMs: number): VaultRecord[] {
  return records
    .filter((r) => !r.taskId && (r.phase === 'in-doubt' || (r.phase === 'submitting' && (writerGone(r) || nowMs - Date.parse(r.updatedAt) > STALE_SUBMITTING_MS))))
    .sort(byCreatedAt);
}

export interface RecoverOptions {
  resubmit?: boolean;
  force?: boolean;
  /** With --force: confirmed, for when there is no terminal to ask in. */
  yes?: boolean;
  detach?: boolean;
  /** Close an in-doubt or lost record after an out-of-band check. */
  resolve?: string;
  note?: string;
}

export const RESOLUTIONS = ['completed', 'not-run', 'failed'] as const;
type Resolution = (typeof RESOLUTIONS)[number];

/** `--resolve`: record what an out-of-band check found; the record becomes terminal (history kept). */
function resolveRecord(ctx: Context, vault: ReturnType<typeof openVault>, rec: VaultRecord, outcome: Resolution, note: string | undefined): number {
  if (rec.phase !== 'in-doubt' && rec.phase !== 'lost' && rec.phase !== 'submitting') {
    throw new CliError('invalid-input', `${rec.operation.name} on ${rec.server.name} is ${rec.phase}, not in doubt or lost: there is nothing to resolve`, rec.taskId ? `\`mcp-tasks show ${typeableRef(rec)}\` shows what is known about it.` : '`mcp-tasks recover` lists the records in doubt.');
  }
  const at = new Date(ctx.now()).toISOString();
  const updated = vault.update(rec.opId, (r) => {
    r.resolution = { outcome, ...(note ? { note } : {}), at, was: r.phase, ...(r.reason ? { reason: r.reason } : {}) };
    r.history.push({ at, status: outcome === 'completed' ? 'completed' : outcome === 'failed' ? 'failed' : 'cancelled', statusMessage: `resolved by hand: ${outcome}${note ? ` (${note})` : ''}` });
    r.phase = 'terminal';
    r.updatedAt = at;
    delete r.reason;
  });
  return finish(ctx, { kind: 'resolved', before: rec, outcome, note, resolution: updated?.resolution ?? null });
}

export async function runRecover(opId: string | undefined, opts: RecoverOptions, ctx: Context): Promise<number> {
  const vault = openVault(ctx);
  const candidates = inDoubtRecords(vault.query({ listedByDefault: true }), ctx.now());

  if (!opId) {
    if (opts.resubmit) throw new CliError('usage', '--resubmit needs the operation id of one in-doubt submission', 'Run `mcp-tasks recover` to list them.');
    return finish(ctx, { kind: 'in-doubt-list', records: candidates.map((record) => ({ record, verdict: resubmitVerdict(record) })) });
  }

  // Refs as everywhere: an operation id or its prefix, a label value, a taskId or its prefix.
  const matches = candidates.filter((r) => r.opId === opId || (opId.length >= 6 && r.opId.startsWith(opId)));
  const rec = matches.length === 1 ? matches[0]! : matches.length === 0 ? vault.resolve(opId) : undefined;
  if (matches.length > 1) throw new CliError('invalid-input', `"${opId}" matches ${matches.length} submissions`, 'Give more characters of the operation id.');
  if (opts.resolve !== undefined) {
    if (!RESOLUTIONS.includes(opts.resolve as Resolution)) throw new CliError('usage', `--resolve "${opts.resolve}" is not one of ${RESOLUTIONS.join(', ')}${didYouMean(opts.resolve, RESOLUTIONS)}`, `e.g. \`mcp-tasks recover ${opId} --resolve not-run --note "checked the server: no such job"\`.`);
    if (!rec) throw new CliError('not-found', `no record in the vault matches "${opId}"`, 'Run `mcp-tasks recover` (in doubt) or `mcp-tasks list` (lost) to see them.');
    return resolveRecord(ctx, vault, rec, opts.resolve as Resolution, opts.note);
  }
  if (!rec || (rec.taskId && rec.phase !== 'in-doubt')) {
    if (rec?.taskId) {
      const ref = typeableRef(rec);
      if (rec.phase === 'lost') throw new CliError('invalid-input', `${rec.operation.name} on ${rec.server.name} is lost: ${rec.reason ?? 'the server no longer knows it'}`, `Check the server's own records for its effect, then close it: \`mcp-tasks recover ${ref} --resolve completed|not-run|failed --note "what you found"\`.`, ExitCode.InDoubt);
      throw new CliError('invalid-input', `${rec.operation.name} on ${rec.server.name} is not in doubt: it has a task handle`, `Follow it with \`mcp-tasks watch ${ref}\`.`);
    }
    throw new CliError('not-found', `no in-doubt submission matches "${opId}"`, 'Run `mcp-tasks recover` to list them.');
  }
  const verdict = resubmitVerdict(rec);

  if (!opts.resubmit) return finish(ctx, { kind: 'in-doubt-record', record: rec, verdict });

  if (!verdict.safe) {
    if (!opts.force) {
      throw new CliError('usage', `refusing to resubmit ${rec.operation.name}: ${verdict.why}`, `Check on the server whether the first request ran. If it did not, resubmit with \`mcp-tasks recover ${rec.opId.slice(0, 8)} --resubmit --force${forceConfirmation(ctx)}\`.`);
    }
    if (!ctx.interactive && !opts.yes) {
      // --force is confirmed in a terminal; without one it is never taken as confirmation on its own.
      throw new CliError('usage', `refusing to resubmit ${rec.operation.name} (${rec.server.name}): --force needs confirmation and there is no terminal to ask in; nothing was sent`, `If the first request did not run, confirm with \`mcp-tasks recover ${rec.opId.slice(0, 8)} --resubmit --force --yes\`.`);
    }
    if (ctx.interactive) {
      const destructive = rec.operation.annotations?.destructiveHint !== false ? ' It may be DESTRUCTIVE (destructiveHint).' : '';
      const ok = await ctx.prompter.confirm(`Resubmit ${rec.operation.name} on ${rec.server.name} with ${safeJson(rec.operation.arguments)}? The first request may already have run; this could do it twice.${destructive}`, { default: false });
      if (!ok) return finish(ctx, { kind: 'resubmit-declined' });
    }
  }

  const entry = new ServerStore(ctx.home).get(rec.server.name);
  if (!sameIdentity(identityOf(entry, ctx.home), rec.server.identity)) {
    throw new CliError('invalid-input', `server "${rec.server.name}" now points at ${describeIdentity(identityOf(entry, ctx.home))}, not ${describeIdentity(rec.server.identity)} where this operation was sent`, 'Restore the server entry before resubmitting.');
  }
  // New work goes out in a new session (2025-11-25), recorded before the request like the first one.
  const { session: _oldSession, ...withoutSession } = rec;
  const session = await openSessionFor(ctx, { record: withoutSession, entry, persisted: true, taskId: '' });
  try {
    const at = new Date(ctx.now()).toISOString();
    const resume = session.resumeState();
    const updated = vault.update(rec.opId, (r) => {
      r.phase = 'submitting';
      r.updatedAt = at;
      delete r.reason;
      if (resume) r.session = resume;
      else delete r.session;
    })!;
    if (!ctx.json) ctx.stderr.write(`resubmitting ${rec.operation.name} on ${rec.server.name} (${verdict.safe ? verdict.why : 'forced'})\n`);
    return finish(ctx, await submitOperation(ctx, session, vault, entry, updated, { detach: opts.detach, resubmission: true }));
  } finally {
    await closeSession(ctx, vault, session, [rec]);
  }
}
