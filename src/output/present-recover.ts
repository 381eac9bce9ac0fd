// The presenter's part for `recover`: submissions in doubt with the safe next step, and a record
// closed by hand. Every next step is a command that runs as printed (a hint, rendered with ctx.invocation).
import type { Context } from '../context.js';
import type { RecoverOutcome, ResubmitVerdict } from './outcomes.js';
import { typeableRef, type VaultRecord } from '../vault/vault-record.js';
import { jsonLine, makeStyle } from './render.js';
import { safeJson } from './sanitize.js';
import { SUBMITTER_GONE } from '../vault/writer.js';
import { cmd, hint, renderHint, type Hint } from '../hint.js';

/** `--force` asks in a terminal; without one the command must carry the confirmation (`--yes`) to run as printed. */
export const forceConfirmation = (ctx: Pick<Context, 'interactive'>): string[] => (ctx.interactive ? [] : ['--yes']);


/**
 * How to close a record after an out-of-band check: one command per verdict, each runnable as
 * printed (never `a|b|c`, which a shell runs as a pipeline).
 */
export function resolveCommands(ref: string, indent = '  '): Hint {
  return RESOLVE_OUTCOMES.map((o) => hint`${indent}${cmd('recover', ref, '--resolve', o, '--note', '"what you found"')}   # ${RESOLVE_MEANING[o]}`).reduce((a, b) => hint`${a}\n${b}`);
}
const RESOLVE_OUTCOMES = ['completed', 'not-run', 'failed'] as const;
const RESOLVE_MEANING: Record<(typeof RESOLVE_OUTCOMES)[number], string> = { completed: 'it ran', 'not-run': 'it never ran', failed: 'it ran and failed' };

/** The JSON of a verdict given by hand. */
const resolutionJson = (rec: VaultRecord) => ({ opId: rec.opId, server: rec.server.name, status: 'resolved', phase: rec.phase, resolution: rec.resolution ?? null, operation: { method: rec.operation.method, name: rec.operation.name, arguments: rec.operation.arguments }, labels: rec.labels });

export function presentRecoverOutcome(ctx: Context, o: RecoverOutcome): void {
  const out = (t: string) => ctx.stdout.write(t);
  const st = makeStyle(ctx.color);
  switch (o.kind) {
    case 'in-doubt-list':
      if (ctx.json) {
        return out(jsonLine(o.records.map(({ record: r, verdict }) => ({ opId: r.opId, server: r.server.name, operation: { method: r.operation.method, name: r.operation.name, arguments: r.operation.arguments }, submittedAt: r.operation.submittedAt, reason: r.reason ?? SUBMITTER_GONE, resubmit: verdict, labels: r.labels }))));
      }
      if (!o.records.length) return out('no submissions in doubt: every request sent either got a handle or was refused\n');
      for (const { record, verdict } of o.records) out(guidance(ctx, record, verdict, st));
      return;
    case 'in-doubt-record': {
      const { record: rec, verdict } = o;
      if (ctx.json) return out(jsonLine({ opId: rec.opId, server: rec.server.name, operation: { method: rec.operation.method, name: rec.operation.name, arguments: rec.operation.arguments }, submittedAt: rec.operation.submittedAt, reason: rec.reason ?? null, resubmit: verdict }));
      out(`${rec.operation.name} on ${rec.server.name} (operation ${rec.opId}) is in doubt: ${rec.reason ?? SUBMITTER_GONE}\n`);
      // The same guidance as bare `recover`, for this one record.
      out(guidance(ctx, rec, verdict, st));
      return;
    }
    case 'resolved': {
      const { before: rec, outcome, note } = o;
      if (ctx.json) return out(jsonLine({ opId: rec.opId, server: rec.server.name, phase: 'terminal', resolution: o.resolution }));
      out(`${rec.operation.name} on ${rec.server.name} (operation ${rec.opId.slice(0, 8)}) resolved as ${outcome}${note ? `: ${note}` : ''}; it was ${rec.phase}.\n`);
      out(renderHint(hint`  kept in the vault with its history (\`${cmd('show', typeableRef(rec))}\`); \`${cmd('prune')}\` may now drop it.\n`, ctx.invocation));
      return;
    }
    case 'resolved-record': {
      const rec = o.record;
      const r = rec.resolution;
      if (ctx.json) return out(jsonLine(resolutionJson(rec)));
      out(`${rec.operation.name} on ${rec.server.name} (operation ${rec.opId.slice(0, 8)}) was resolved by hand as ${st.c.bold(r?.outcome ?? 'unknown')}${r?.note ? `: ${r.note}` : ''} (${r?.at ?? 'at an unknown time'}; it was ${r?.was ?? 'in doubt'}). Nothing was sent.\n`);
      out(renderHint(hint`  its history: ${cmd('show', typeableRef(rec))}\n  to send it again on purpose: ${cmd('recover', rec.opId.slice(0, 8), '--resubmit', '--force', ...forceConfirmation(ctx))}\n`, ctx.invocation));
      return;
    }
    case 'resubmit-declined':
      ctx.stderr.write('not resubmitted; the record stays in doubt\n');
      return;
  }
}

/** The in-doubt guidance for one record: the same words bare `recover` prints, and how to close it. */
function guidance(ctx: Context, r: VaultRecord, v: ResubmitVerdict, st: ReturnType<typeof makeStyle>): string {
  const short = r.opId.slice(0, 8);
  const next = v.safe
    ? hint`          next: ${cmd('recover', short, '--resubmit')}\n`
    : hint`          next: check on the server whether it ran; resubmit only if it did not: ${cmd('recover', short, '--resubmit', '--force', ...forceConfirmation(ctx))}\n`;
  return (
    `${st.c.bold(short)}  ${r.operation.name} on ${r.server.name}  ${safeJson(r.operation.arguments)}  submitted ${r.operation.submittedAt}\n` +
    `          ${v.safe ? st.c.green('safe to resubmit') : st.c.red('not safe to resubmit blindly')}: ${v.why}\n` +
    renderHint(
      hint`${next}          found its task? attach it (the taskId on stdin): printf %s "$TASK_ID" | ${cmd('recover', short, '--attach', '-')}\n          or, once checked, close it with the one that fits:\n${resolveCommands(short, '            ')}\n`,
      ctx.invocation,
    )
  );
}
