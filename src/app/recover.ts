// The use case behind `recover [<op-id> [--resubmit [--force]] | --attach - | --resolve OUTCOME]`: submissions whose
// outcome is in doubt (request sent, no handle came back) and the safe next step. A resubmission
// is "safe" only where the server's duplicate-prevention contract covers it (the same operation
// id sent again under its _meta key); tool annotations are the server's claim, never proof, so
// everything else needs --force and a person's confirmation (--yes without a terminal).
import { safeJson } from '../output/sanitize.js';
import { sayOn } from '../output/notes.js';
import type { Context } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { readRef, type TaskTarget } from './task-target.js';
import type { HandleStore } from '../vault/handle-store.js';
import { closeSession, openSessionFor, taskScope } from './with-task.js';
import { submitOperation } from './submit.js';
import { forceConfirmation, resolveCommands } from '../output/present-recover.js';
import { report, type Outcome, type ResubmitVerdict } from './outcomes.js';
import { toCliError } from './remote-error.js';
import { describeIdentity, identityOf, sameIdentity, type ServerEntry } from '../servers/server-entry.js';
import { ServerStore } from '../servers/server-store.js';
import { typeableRef, type VaultRecord } from '../vault/vault-record.js';
import { inDoubtRecords } from './in-doubt.js';
import { reportedPhase } from '../vault/writer.js';
import { isUnknownTaskError } from '../session/task-session.js';
import { cmd, hint } from '../hint.js';

export type { ResubmitVerdict };

/** Pure: may this operation be sent again without risking a duplicated effect? Only a server contract says so. */
export function resubmitVerdict(rec: VaultRecord): ResubmitVerdict {
  const a = rec.operation.annotations ?? {};
  if (rec.operation.idempotencyMeta) return { safe: true, why: `the server deduplicates on _meta["${rec.operation.idempotencyMeta}"], and the same operation id is sent again` };
  const claims = [a.readOnlyHint ? 'read-only' : '', a.idempotentHint ? 'idempotent' : ''].filter(Boolean);
  const claim = claims.length ? `; the server annotates it ${claims.join(' and ')}, a hint from the server, not proof` : '';
  return {
    safe: false,
    why: `the server declares no duplicate-prevention contract for ${rec.operation.name}${a.destructiveHint === false ? '' : ', which may be destructive'}${claim}`,
  };
}

export { inDoubtRecords };

export interface RecoverOptions {
  resubmit?: boolean;
  force?: boolean;
  /** With --force: confirmed, for when there is no terminal to ask in. */
  yes?: boolean;
  detach?: boolean;
  /** Close an in-doubt or lost record after an out-of-band check. */
  resolve?: Resolution;
  note?: string;
  /** The taskId the in-doubt submission turned out to have (`-`: read from stdin). */
  attach?: string;
}

/** What an out-of-band check found (`--resolve`). */
export type Resolution = 'completed' | 'not-run' | 'failed';

/** `--resolve`: record what an out-of-band check found; the record becomes terminal (history kept). */
async function resolveRecord(ctx: Context, vault: HandleStore, rec: VaultRecord, outcome: Resolution, note: string | undefined): Promise<Outcome> {
  const phase = reportedPhase(rec, ctx.now());
  if (phase !== 'in-doubt' && phase !== 'lost' && phase !== 'submitting') {
    throw new CliError('invalid-input', `${rec.operation.name} on ${rec.server.name} is ${rec.resolution ? `already resolved as ${rec.resolution.outcome}` : rec.phase}, not in doubt or lost: there is nothing to resolve`, rec.taskId || rec.resolution ? hint`\`${cmd('show', typeableRef(rec))}\` shows what is known about it.` : hint`\`${cmd('recover')}\` lists the records in doubt.`);
  }
  const at = new Date(ctx.now()).toISOString();
  const updated = await vault.update(rec.opId, (r) => {
    r.resolution = { outcome, ...(note ? { note } : {}), at, was: phase, ...(r.reason ? { reason: r.reason } : {}) };
    r.history.push({ at, status: outcome === 'completed' ? 'completed' : outcome === 'failed' ? 'failed' : 'cancelled', statusMessage: `resolved by hand: ${outcome}${note ? ` (${note})` : ''}` });
    r.phase = 'terminal';
    r.updatedAt = at;
    delete r.reason;
  });
  return { kind: 'resolved', before: rec, outcome, note, resolution: updated?.resolution ?? null };
}

/** The record `recover <ref>` acts on: an in-doubt submission by operation id (or prefix), else any ref. */
async function findRecord(vault: HandleStore, candidates: VaultRecord[], opId: string): Promise<VaultRecord | undefined> {
  const matches = candidates.filter((r) => r.opId === opId || (opId.length >= 6 && r.opId.startsWith(opId)));
  if (matches.length > 1) throw new CliError('invalid-input', `"${opId}" matches ${matches.length} submissions`, 'Give more characters of the operation id.');
  return matches[0] ?? (await vault.resolve(opId));
}

/** The entry to send this record's operation or handle to: only the identity it was created on. */
function entryFor(ctx: Context, rec: VaultRecord, doing: string): ServerEntry {
  const entry = new ServerStore(ctx.home).get(rec.server.name);
  if (!sameIdentity(identityOf(entry, ctx.home), rec.server.identity)) {
    throw new CliError('invalid-input', `server "${rec.server.name}" now points at ${describeIdentity(identityOf(entry, ctx.home))}, not ${describeIdentity(rec.server.identity)} where this operation was sent`, `Restore the server entry before ${doing}.`);
  }
  return entry;
}

/** `recover`: the in-doubt list, one record's verdict, or what --resolve, --attach or --resubmit did. */
export async function recover(ctx: Context, vault: HandleStore, opId: string | undefined, opts: RecoverOptions): Promise<Outcome> {
  const candidates = inDoubtRecords(await vault.query({ listedByDefault: true }), ctx.now());

  if (!opId) {
    if (opts.resubmit || opts.attach !== undefined) throw new CliError('usage', `${opts.attach !== undefined ? '--attach' : '--resubmit'} needs the operation id of one in-doubt submission`, hint`Run \`${cmd('recover')}\` to list them.`);
    return { kind: 'in-doubt-list', records: candidates.map((record) => ({ record, verdict: resubmitVerdict(record) })) };
  }

  // Refs as everywhere: an operation id or its prefix, a label value, a taskId or its prefix.
  const rec = await findRecord(vault, candidates, opId);
  if (opts.resolve !== undefined) {
    if (!rec) throw new CliError('not-found', `no record in the vault matches "${opId}"`, hint`Run \`${cmd('recover')}\` (in doubt) or \`${cmd('list')}\` (lost) to see them.`);
    return resolveRecord(ctx, vault, rec, opts.resolve, opts.note);
  }
  if (!rec) throw new CliError('not-found', `no in-doubt submission matches "${opId}"`, hint`Run \`${cmd('recover')}\` to list them.`);
  // A verdict sticks: a record closed by hand is reported as closed, and sent again only on purpose.
  if (rec.resolution && !(opts.resubmit && opts.force)) {
    if (opts.resubmit || opts.attach !== undefined) {
      throw new CliError('invalid-input', `${rec.operation.name} on ${rec.server.name} was resolved by hand as ${rec.resolution.outcome}; nothing was sent`, hint`To send it again on purpose: \`${cmd('recover', rec.opId.slice(0, 8), '--resubmit', '--force', ...forceConfirmation(ctx))}\`.`);
    }
    return { kind: 'resolved-record', record: rec };
  }
  if (rec.taskId) {
    const ref = typeableRef(rec);
    if (rec.phase === 'lost') throw new CliError('invalid-input', `${rec.operation.name} on ${rec.server.name} is lost: ${rec.reason ?? 'the server no longer knows it'}`, hint`Check the server's own records for its effect, then close it with the one that fits:\n${resolveCommands(ref)}`, ExitCode.InDoubt);
    throw new CliError('invalid-input', `${rec.operation.name} on ${rec.server.name} is not in doubt: it has a task handle`, hint`Follow it with \`${cmd('watch', ref)}\`.`);
  }
  if (!rec.resolution && reportedPhase(rec, ctx.now()) !== 'in-doubt') {
    throw new CliError('invalid-input', `${rec.operation.name} on ${rec.server.name} is being submitted by a running process (operation ${rec.opId.slice(0, 8)}); nothing was sent`, hint`Wait for that command to finish, then run \`${cmd('recover')}\` again.`, ExitCode.InDoubt);
  }
  if (opts.attach !== undefined) return attach(ctx, vault, rec, readRef(ctx, opts.attach));
  const verdict = resubmitVerdict(rec);
  if (!opts.resubmit) return { kind: 'in-doubt-record', record: rec, verdict };
  if (!verdict.safe || rec.resolution) {
    const declined = await confirmForced(ctx, rec, verdict, opts);
    if (declined) return declined;
  }
  return resubmit(ctx, vault, rec, verdict, opts);
}

/** --force for an operation that could run twice: refused without it, confirmed by a person (or --yes). */
async function confirmForced(ctx: Context, rec: VaultRecord, verdict: ResubmitVerdict, opts: RecoverOptions): Promise<{ kind: 'resubmit-declined' } | undefined> {
  const why = rec.resolution ? `it was resolved by hand as ${rec.resolution.outcome}` : verdict.why;
  if (!opts.force) {
    throw new CliError('usage', `refusing to resubmit ${rec.operation.name}: ${why}`, hint`Check on the server whether the first request ran. If it did not, resubmit with \`${cmd('recover', rec.opId.slice(0, 8), '--resubmit', '--force', ...forceConfirmation(ctx))}\`.`);
  }
  if (!ctx.interactive && !opts.yes) {
    // --force is confirmed in a terminal; without one it is never taken as confirmation on its own.
    throw new CliError('usage', `refusing to resubmit ${rec.operation.name} (${rec.server.name}): --force needs confirmation and there is no terminal to ask in; nothing was sent`, hint`If the first request did not run, confirm with \`${cmd('recover', rec.opId.slice(0, 8), '--resubmit', '--force', '--yes')}\`.`);
  }
  if (!ctx.interactive) return undefined;
  const destructive = rec.operation.annotations?.destructiveHint !== false ? ' It may be DESTRUCTIVE.' : '';
  const ok = await ctx.prompter.confirm(`Resubmit ${rec.operation.name} on ${rec.server.name} with ${safeJson(rec.operation.arguments)}? The first request may already have run; this could do it twice.${destructive}`, { default: false });
  return ok ? undefined : { kind: 'resubmit-declined' };
}

async function resubmit(ctx: Context, vault: HandleStore, rec: VaultRecord, verdict: ResubmitVerdict, opts: RecoverOptions): Promise<Outcome> {
  const entry = entryFor(ctx, rec, 'resubmitting');
  // New work goes out in a new session (2025-11-25), recorded before the request like the first one.
  const { session: _oldSession, ...withoutSession } = rec;
  const session = await openSessionFor(ctx, { record: withoutSession, entry, persisted: true, taskId: '' });
  try {
    const at = new Date(ctx.now()).toISOString();
    const resume = session.resumeState();
    const updated = (await vault.update(rec.opId, (r) => {
      r.phase = 'submitting';
      r.updatedAt = at;
      delete r.reason;
      // A hand-made verdict no longer stands once the operation is sent again (its history line stays).
      delete r.resolution;
      if (resume) r.session = resume;
      else delete r.session;
    }))!;
    if (!ctx.json) sayOn(ctx)(`resubmitting ${rec.operation.name} on ${rec.server.name} (${verdict.safe ? verdict.why : 'forced'})`);
    return await submitOperation(ctx, session, vault, entry, updated, { detach: opts.detach, resubmission: true });
  } finally {
    await closeSession(ctx, vault, session, [rec]);
  }
}

/**
 * `--attach`: the in-doubt submission's task was found (on the server, in a log, in an error
 * that printed the handle): one tasks/get on the record's own server confirms it, then the record
 * becomes that task's, keeping its operation, labels and idempotency key. Nothing is submitted.
 */
async function attach(ctx: Context, vault: HandleStore, rec: VaultRecord, taskId: string): Promise<Outcome> {
  ctx.redact(taskId);
  const held = await vault.resolve(taskId);
  if (held && held.taskId === taskId && held.server.name === rec.server.name) {
    throw new CliError('invalid-input', `that taskId is already in the vault as ${typeableRef(held)} (${held.operation.name}); nothing was attached`, hint`If it is this operation's task, close the in-doubt record: \`${cmd('recover', rec.opId.slice(0, 8), '--resolve', 'completed', '--note', `"its task is ${typeableRef(held)}"`)}\`.`);
  }
  const entry = entryFor(ctx, rec, 'attaching a task to it');
  const target: TaskTarget = { record: rec, persisted: true, entry, taskId };
  const session = await openSessionFor(ctx, target);
  try {
    let snapshot;
    try {
      snapshot = await session.getTask(taskId, { signal: ctx.interrupt });
    } catch (err) {
      if (isUnknownTaskError(err)) {
        throw new CliError('not-found', `server "${rec.server.name}" does not know that taskId; nothing was attached and the record stays in doubt`, hint`Check the id (it is the whole taskId, on stdin), or close the record once checked: \`${cmd('recover', rec.opId.slice(0, 8))}\`.`);
      }
      throw toCliError(err, rec.server.name) ?? err;
    }
    const scope = taskScope(ctx, session, vault, target);
    await scope.observe(snapshot);
    const at = new Date(ctx.now()).toISOString();
    await scope.update((r) => {
      r.history.push({ at, status: snapshot.status, statusMessage: 'attached by hand: this is the task the in-doubt submission created' });
    });
    return report(target, { kind: 'observed', snapshot }, { notes: [`attached: operation ${rec.opId.slice(0, 8)} (${rec.operation.name} on ${rec.server.name}) is now this task; nothing was sent again`] });
  } finally {
    await closeSession(ctx, vault, session, [rec]);
  }
}
