// `recover [<op-id> [--resubmit [--force]]]`: submissions whose outcome is in doubt (request sent,
// no handle came back) and the safe next step. A resubmission happens only when it cannot
// duplicate an effect: a read-only or idempotent tool, or a server that deduplicates on the
// operation id we sent; otherwise only with --force (and a confirmation in a terminal).
import { safeJson } from '../../output/sanitize.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { openVault } from '../../app/task-target.js';
import { openSessionFor } from '../../app/with-task.js';
import { submitOperation } from '../../app/submit.js';
import { finish } from '../finish.js';
import { jsonLine, makeStyle } from '../../output/render.js';
import { describeIdentity, identityOf, sameIdentity } from '../../servers/server-entry.js';
import { ServerStore } from '../../servers/server-store.js';
import { byCreatedAt, typeableRef, type VaultRecord } from '../../vault/vault-record.js';
import { writerGone } from '../../vault/writer.js';

/** A record still `submitting` after this long belongs to a process that died mid-submit. */
const STALE_SUBMITTING_MS = 2 * 60 * 1000;

export type ResubmitVerdict = { safe: true; why: string } | { safe: false; why: string };

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
  detach?: boolean;
}

export async function runRecover(opId: string | undefined, opts: RecoverOptions, ctx: Context): Promise<number> {
  const vault = openVault(ctx);
  const candidates = inDoubtRecords(vault.query({ listedByDefault: true }), ctx.now());
  const st = makeStyle(ctx.color);

  if (!opId) {
    if (opts.resubmit) throw new CliError('usage', '--resubmit needs the operation id of one in-doubt submission', 'Run `mcp-tasks recover` to list them.');
    if (ctx.json) {
      ctx.stdout.write(jsonLine(candidates.map((r) => ({ opId: r.opId, server: r.server.name, operation: { method: r.operation.method, name: r.operation.name, arguments: r.operation.arguments }, submittedAt: r.operation.submittedAt, reason: r.reason ?? 'the submitting process stopped before a handle came back', resubmit: resubmitVerdict(r), labels: r.labels }))));
      return candidates.length ? ExitCode.InDoubt : ExitCode.Ok;
    }
    if (!candidates.length) {
      ctx.stdout.write('no submissions in doubt: every request sent either got a handle or was refused\n');
      return ExitCode.Ok;
    }
    for (const r of candidates) {
      const v = resubmitVerdict(r);
      ctx.stdout.write(`${st.c.bold(r.opId.slice(0, 8))}  ${r.operation.name} on ${r.server.name}  ${safeJson(r.operation.arguments)}  submitted ${r.operation.submittedAt}\n`);
      ctx.stdout.write(`          ${v.safe ? st.c.green('safe to resubmit') : st.c.red('not safe to resubmit blindly')}: ${v.why}\n`);
      ctx.stdout.write(
        v.safe
          ? `          next: mcp-tasks recover ${r.opId.slice(0, 8)} --resubmit\n`
          : `          next: check on the server whether it ran; resubmit only if it did not: mcp-tasks recover ${r.opId.slice(0, 8)} --resubmit --force\n`,
      );
    }
    return ExitCode.InDoubt;
  }

  const matches = candidates.filter((r) => r.opId === opId || (opId.length >= 6 && r.opId.startsWith(opId)));
  if (matches.length === 0) {
    const any = vault.list().find((r) => r.opId === opId || (opId.length >= 6 && r.opId.startsWith(opId)));
    if (any?.taskId) throw new CliError('invalid-input', `operation ${opId} is not in doubt: it has a task handle`, `Follow it with \`mcp-tasks watch ${typeableRef(any)}\`.`);
    throw new CliError('not-found', `no in-doubt submission matches "${opId}"`, 'Run `mcp-tasks recover` to list them.');
  }
  if (matches.length > 1) throw new CliError('invalid-input', `"${opId}" matches ${matches.length} submissions`, 'Give more characters of the operation id.');
  const rec = matches[0]!;
  const verdict = resubmitVerdict(rec);

  if (!opts.resubmit) {
    if (ctx.json) ctx.stdout.write(jsonLine({ opId: rec.opId, server: rec.server.name, operation: { method: rec.operation.method, name: rec.operation.name, arguments: rec.operation.arguments }, submittedAt: rec.operation.submittedAt, reason: rec.reason ?? null, resubmit: verdict }));
    else {
      ctx.stdout.write(`${rec.operation.name} on ${rec.server.name} (operation ${rec.opId}) is in doubt: ${rec.reason ?? 'the submitting process stopped before a handle came back'}\n`);
      ctx.stdout.write(`${verdict.safe ? st.c.green('safe to resubmit') : st.c.red('not safe to resubmit blindly')}: ${verdict.why}\n`);
    }
    return ExitCode.InDoubt;
  }

  if (!verdict.safe) {
    if (!opts.force) {
      throw new CliError('usage', `refusing to resubmit ${rec.operation.name}: ${verdict.why}`, `Check on the server whether the first request ran. If it did not, resubmit with \`mcp-tasks recover ${rec.opId.slice(0, 8)} --resubmit --force\`.`);
    }
    if (ctx.interactive) {
      const destructive = rec.operation.annotations?.destructiveHint !== false ? ' It may be DESTRUCTIVE (destructiveHint).' : '';
      const ok = await ctx.prompter.confirm(`Resubmit ${rec.operation.name} on ${rec.server.name} with ${safeJson(rec.operation.arguments)}? The first request may already have run; this could do it twice.${destructive}`, { default: false });
      if (!ok) {
        ctx.stderr.write('not resubmitted; the record stays in doubt\n');
        return ExitCode.InDoubt;
      }
    }
  }

  const entry = new ServerStore(ctx.home).get(rec.server.name);
  if (!sameIdentity(identityOf(entry, ctx.home), rec.server.identity)) {
    throw new CliError('invalid-input', `server "${rec.server.name}" now points at ${describeIdentity(identityOf(entry, ctx.home))}, not ${describeIdentity(rec.server.identity)} where this operation was sent`, 'Restore the server entry before resubmitting.');
  }
  // New work goes out in a new session (2025-11-25), recorded before the request like the first one.
  const session = await openSessionFor(ctx, { record: { ...rec, session: undefined }, entry, persisted: true, taskId: '' });
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
    return finish(ctx, await submitOperation(ctx, session, vault, entry, updated, { ...(opts.detach ? { detach: true } : {}), resubmission: true }));
  } finally {
    await session.close();
  }
}
