// `list` and `show`: what the vault holds. Human output shows short id prefixes; --json full ids.
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { openVault } from '../../app/task-target.js';
import { jsonLine, makeStyle, renderTable, renderTsv, statusWord, taskJson } from '../../output/render.js';
import type { TaskFailure, TaskReport } from '../../app/outcomes.js';
import { LIST_STATUSES } from '../choices.js';
import { didYouMean } from '../did-you-mean.js';
import { safeName, sanitize } from '../../output/sanitize.js';
import { byCreatedAt, isActivePhase, isLostOrInDoubt, typeableRef, type ListingMeta, type VaultRecord } from '../../vault/vault-record.js';
import type { ListingRow } from '../../vault/listing-index.js';
import { parseLabels } from '../duration.js';
import { ago } from '../../output/present-record.js';
import { finish } from '../finish.js';

// The time words moved to the presenter with `show`; kept importable from here.
export { ago, localTime } from '../../output/present-record.js';

const COMMA = Buffer.from(',');

export interface ListOptions {
  server?: string;
  status?: string;
  label?: string[];
  all?: boolean;
  /** Only the N most recently created matching records. */
  limit?: number;
  /** Poll each listed active task first (one tasks/get each). */
  refresh?: boolean;
}

const statusOf = (r: ListingMeta) => (r.resolution ? `resolved ${r.resolution.outcome}` : isLostOrInDoubt(r.phase) || r.phase === 'submitting' ? r.phase : (r.last?.status ?? (r.result ? 'completed' : 'unknown')));

/** The filters of `list` as one predicate (labels parsed once). */
export function recordFilter(opts: ListOptions): (r: ListingMeta) => boolean {
  const labels = Object.entries(parseLabels(opts.label));
  return (r) =>
    Boolean(opts.all || opts.status || isActivePhase(r.phase) || r.phase === 'lost') &&
    (!opts.server || r.server.name === opts.server) &&
    (!opts.status || statusOf(r) === opts.status || r.phase === opts.status) &&
    labels.every(([k, v]) => r.labels[k] === v);
}

export function filterRecords<R extends ListingMeta>(records: R[], opts: ListOptions): R[] {
  return records.filter(recordFilter(opts)).sort(byCreatedAt);
}

/** What --refresh saw for one record: polled now, or why it could not be. */
type Refreshed = { polled: true } | { polled: false; why: string };

/**
 * Poll every listed active task once, through the same seam as `get` (withTasks: one session per
 * server, the vault updated on the one record path). Returns the records as they are now.
 */
async function refreshRecords(ctx: Context, records: VaultRecord[]): Promise<{ records: VaultRecord[]; seen: Map<string, Refreshed> }> {
  const { withTasks } = await import('../../app/with-task.js');
  const { report } = await import('../../app/outcomes.js');
  const seen = new Map<string, Refreshed>();
  const pollable = records.filter((r) => r.phase === 'active' && r.taskId);
  const fresh = new Map<string, VaultRecord>();
  const settle = (r: TaskReport | TaskFailure) => {
    fresh.set(r.target.record.opId, r.target.record);
    seen.set(r.target.record.opId, r.kind === 'task' ? { polled: true } : { polled: false, why: r.error.message });
  };
  // One at a time per ref set: withTasks resolves each ref before anything is sent.
  const refs = pollable.map((r) => r.taskId!);
  try {
    if (refs.length) {
      await withTasks(
        ctx,
        refs,
        {},
        async (scope) => {
          const snapshot = scope.settled(await scope.session.getTask(scope.target.taskId, { signal: ctx.interrupt }));
          scope.observe(snapshot);
          return report(scope.target, { kind: 'observed', snapshot });
        },
        settle,
      );
    }
  } catch (err) {
    // withTasks throws when its only task fails: that task was not polled, the list still prints.
    if (pollable.length !== 1) throw err;
    seen.set(pollable[0]!.opId, { polled: false, why: err instanceof Error ? err.message : String(err) });
  }
  return { records: records.map((r) => fresh.get(r.opId) ?? r), seen };
}

export async function runList(opts: ListOptions, ctx: Context): Promise<number> {
  if (opts.status !== undefined && !(LIST_STATUSES as readonly string[]).includes(opts.status)) {
    throw new CliError('usage', `--status "${opts.status}" is not a status or phase${didYouMean(opts.status, LIST_STATUSES)}`, `Use one of ${LIST_STATUSES.map((x) => (x.includes(' ') ? `"${x}"` : x)).join(', ')}.`);
  }
  const vault = openVault(ctx);
  const labels = opts.label ?? [];
  // `--all` without filters keeps every row: nothing of a row is parsed, its stored JSON is copied.
  const match = opts.server || opts.status || labels.length ? recordFilter(opts) : undefined;
  const listedByDefault = !opts.all && !opts.status;
  const limit = opts.limit !== undefined ? { limit: opts.limit } : {};
  if (ctx.json && opts.limit === undefined && !opts.refresh) {
    // Streamed from the sealed listing, each row as stored in its output form: at 100,000 records,
    // holding every row costs more in GC than reading them. The same bytes as one JSON array.
    let pending: Buffer[] = [Buffer.from('[')];
    let size = 1;
    let first = true;
    const out = (bytes: Buffer) => {
      if (!first) pending.push(COMMA);
      first = false;
      pending.push(bytes);
      size += bytes.length + 1;
      if (size > 1 << 20) {
        ctx.stdout.write(Buffer.concat(pending));
        pending = [];
        size = 0;
      }
    };
    vault.eachListed({ listedByDefault, ...(match ? { match } : {}) }, (r) => out(r.json), (rows) => out(rows));
    pending.push(Buffer.from(']\n'));
    ctx.stdout.write(Buffer.concat(pending));
    return ExitCode.Ok;
  }
  let records: ListingMeta[];
  let seen = new Map<string, Refreshed>();
  if (opts.refresh) {
    // --refresh polls and writes records: it reads them from their files, not from the listing.
    ({ records, seen } = await refreshRecords(ctx, filterRecords(vault.query({ listedByDefault, ...limit, ...(match ? { match } : {}) }), opts)));
    if (ctx.json) {
      ctx.stdout.write(jsonLine((records as VaultRecord[]).map((r) => Object.assign(taskJson(r), { opId: r.opId, phase: r.phase }))));
      return ExitCode.Ok;
    }
  } else {
    // From the sealed listing (a few large reads); --limit reads it from the newest end and stops early.
    const rows = vault.listing({ listedByDefault, ...(match ? { match } : {}), ...limit });
    if (ctx.json) {
      // The rows' stored JSON (taskJson through safeJson): the same bytes as jsonLine of the objects.
      const sorted = [...rows].sort(byCreatedAt);
      ctx.stdout.write(`[${sorted.map((r: ListingRow) => r.json.toString('utf8')).join(',')}]\n`);
      return ExitCode.Ok;
    }
    records = rows.map((r) => r.meta()).sort(byCreatedAt);
  }
  const polled = [...seen.values()];
  if (opts.refresh) {
    const failed = polled.filter((p): p is { polled: false; why: string } => !p.polled);
    const whys = [...new Set(failed.map((f) => f.why))];
    ctx.stderr.write(`mcp-tasks: polled ${polled.length - failed.length} of ${polled.length} active task(s)${failed.length ? `; ${failed.length} not reached (${whys.map((w) => sanitize(w, { singleLine: true, maxLength: 200 })).join('; ')}): their status is the last one seen` : ''}\n`);
  }
  if (records.length === 0) {
    ctx.stdout.write(opts.all ? 'the vault is empty\n' : 'no active tasks (use --all to include finished ones)\n');
    return ExitCode.Ok;
  }
  const now = ctx.now();
  const labelsOf = (r: ListingMeta) => safeName(Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(' '), 1000);
  /** A live-looking status is only what was last seen: say when, unless it was polled just now. */
  const seenNote = (r: ListingMeta): string | undefined => {
    if (r.phase !== 'active' || !r.last) return undefined;
    const s = seen.get(r.opId);
    if (s?.polled) return 'polled now';
    return `seen ${ago(r.updatedAt, now)}${s && !s.polled ? ', not reached now' : ''}`;
  };
  if (!ctx.stdout.isTTY) {
    // For scripts (as gh does): tab-separated, no header, no colour, ISO times; the last-seen time has its own column.
    ctx.stdout.write(renderTsv(records.map((r) => [typeableRef(r), statusOf(r), safeName(r.server.name), safeName(r.operation.name), r.createdAt, r.phase === 'active' && r.last ? r.updatedAt : '', labelsOf(r)])));
    return ExitCode.Ok;
  }
  const st = makeStyle(ctx.color);
  const rows = records.map((r) => {
    const note = seenNote(r);
    return [typeableRef(r), `${statusWord(statusOf(r) as never, st, r.result?.isError === true)}${note ? st.c.gray(` (${note})`) : ''}`, safeName(r.server.name, 40), safeName(r.operation.name, 60), ago(r.createdAt, now), labelsOf(r)];
  });
  const width = ctx.stdout.columns?.();
  ctx.stdout.write(renderTable(['ref', 'status', 'server', 'tool', 'created', 'labels'], rows, { ...(width !== undefined ? { width } : {}), flex: 5, flexStyle: (t) => st.c.gray(t) }));
  return ExitCode.Ok;
}

export async function runShow(ref: string, ctx: Context): Promise<number> {
  const record = openVault(ctx).resolve(ref);
  if (!record) throw new CliError('not-found', `no task in the vault matches "${ref}"`, 'Run `mcp-tasks list --all`.');
  return finish(ctx, { kind: 'record-shown', record });
}
