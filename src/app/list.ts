// The use cases behind `list` and `show`: what the store holds. Human output shows short id
// prefixes; --json full ids.
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import type { ListedRow, RecordShown, Refreshed, TaskFailure, TaskReport, TasksListed } from './outcomes.js';
import { byCreatedAt, isActivePhase, originText, type ListingMeta, type VaultRecord } from '../vault/vault-record.js';
import { isMine } from '../vault/origin.js';
import type { ListingRow } from '../vault/listing-index.js';
import { listingRowJson } from '../output/render.js';
import { listedStatus } from '../output/present-list.js';
import { reportedPhase } from '../vault/writer.js';
import { parseLabels } from './labels.js';
import type { HandleStore } from '../vault/handle-store.js';
import { safeJson } from '../output/sanitize.js';
import { cmd, hint } from '../hint.js';

export interface ListOptions {
  server?: string;
  status?: string;
  label?: string[];
  all?: boolean;
  /** Only the N most recently created matching records. */
  limit?: number;
  /** Poll each listed active task first (one tasks/get each). */
  refresh?: boolean;
  /** Only records whose origin (user@host, CI run) contains this text (case-insensitive). */
  origin?: string;
  /** Only records written by this user on this host. */
  mine?: boolean;
  /** Team store: after the list, every change other machines make, as it happens. */
  follow?: boolean;
}

/** The filters of `list` as one predicate (labels parsed once). */
export function recordFilter(opts: ListOptions, env: NodeJS.ProcessEnv, now: () => number): (r: ListingMeta) => boolean {
  const labels = Object.entries(parseLabels(opts.label));
  const origin = opts.origin?.toLowerCase();
  return (r) =>
    (!origin || originText(r.origin).toLowerCase().includes(origin)) &&
    (!opts.mine || isMine(r.origin, env)) &&
    Boolean(opts.all || opts.status || isActivePhase(r.phase) || r.phase === 'lost') &&
    (!opts.server || r.server.name === opts.server) &&
    (!opts.status || listedStatus(r) === opts.status || reportedPhase(r, now()) === opts.status) &&
    labels.every(([k, v]) => r.labels[k] === v);
}

export function filterRecords<R extends ListingMeta>(records: R[], opts: ListOptions, env: NodeJS.ProcessEnv, now: () => number): R[] {
  return records.filter(recordFilter(opts, env, now)).sort(byCreatedAt);
}

/**
 * Poll every listed active task once, through the same seam as `get` (withTasks: one session per
 * server, the vault updated on the one record path). Returns the records as they are now.
 */
async function refreshRecords(ctx: Context, records: VaultRecord[]): Promise<{ records: VaultRecord[]; seen: Map<string, Refreshed> }> {
  const { withTasks } = await import('./with-task.js');
  const { report } = await import('./outcomes.js');
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
          const snapshot = await scope.settled(await scope.session.getTask(scope.target.taskId, { signal: ctx.interrupt }));
          await scope.observe(snapshot);
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

/**
 * `list --follow` after the list: every record the team store sees written from now on, through
 * the same filters and of any phase (a task that ends is news), until the interrupt.
 */
export async function followList(ctx: Context, vault: HandleStore, opts: ListOptions, shown: (rec: VaultRecord) => void): Promise<void> {
  if (!vault.follow) throw new CliError('usage', 'list --follow follows the team store, and MCP_TASKS_STORE is not set', hint`Set MCP_TASKS_STORE and MCP_TASKS_TEAM_KEY to follow what other machines add or change, or use \`${cmd('watch', '--active')}\` on this vault.`);
  const keep = recordFilter({ ...opts, all: true }, ctx.env, () => ctx.now());
  await vault.follow((rec) => {
    if (keep(rec)) shown(rec);
  }, ctx.interrupt);
}

/** What `list` shows: the matching records, read while the presenter prints them. */
export async function listTasks(ctx: Context, vault: HandleStore, opts: ListOptions): Promise<TasksListed> {
  const labels = opts.label ?? [];
  // `--all` without filters keeps every row: nothing of a row is parsed, its stored JSON is copied.
  const match = opts.server || opts.status || labels.length || opts.origin !== undefined || opts.mine ? recordFilter(opts, ctx.env, () => ctx.now()) : undefined;
  const listedByDefault = !opts.all && !opts.status;
  // What every kept record carries: a team store reads only those (through its hints).
  const narrow = { labelValues: Object.values(parseLabels(opts.label)), ...(opts.server ? { server: opts.server } : {}) };
  const all = Boolean(opts.all);
  const filters = [...(opts.status ? [`--status ${opts.status}`] : []), ...(opts.server ? [`--server ${opts.server}`] : []), ...labels.map((l) => `--label ${l}`), ...(opts.origin !== undefined ? [`--origin ${opts.origin}`] : []), ...(opts.mine ? ['--mine'] : [])];
  const listed = { kind: 'tasks-listed' as const, all, filters, ...(vault.engine === 'postgres' ? { showOrigin: true } : {}) };
  // How many records in all, for the words of an empty list only: asked only then.
  const totalFor = async (shown: number) => (shown ? 0 : await vault.count());
  // Rows whose record file a read found damaged are marked (status "damaged"); the notes are
  // one small file, absent in a sound vault, so the usual listing pays nothing for this.
  const damaged = await vault.damagedHops();
  const mark = (r: ListingRow): ListedRow => (damaged.has(r.hop) ? damagedRow(r) : r);
  if (opts.refresh) {
    // --refresh polls and writes records: it reads them from their files, not from the listing.
    const { records, seen } = await refreshRecords(ctx, filterRecords(await vault.query({ listedByDefault, narrow, ...(opts.limit !== undefined ? { limit: opts.limit } : {}), ...(match ? { match } : {}) }), opts, ctx.env, () => ctx.now()));
    // Rendered as the listing stores rows, so --json prints the same bytes as without --refresh.
    const rows = records.map((r): ListedRow => ({ get json() { return Buffer.from(listingRowJson(r), 'utf8'); }, meta: () => r }));
    const total = await totalFor(rows.length);
    return { ...listed, vaultTotal: () => total, refreshed: seen, eachRow: (row) => { for (const r of rows) row(r); } };
  }
  if (opts.limit !== undefined) {
    // From the newest end of the sealed listing, stopping early.
    const rows = (await vault.listing({ listedByDefault, narrow, ...(match ? { match } : {}), limit: opts.limit })).sort(byCreatedAt);
    const total = await totalFor(rows.length);
    return { ...listed, vaultTotal: () => total, eachRow: (row) => { for (const r of rows) row(mark(r)); } };
  }
  // Streamed from the sealed listing (a few large reads) while it is printed: at 100,000 records,
  // holding every row costs more in GC than reading them; --json copies runs of stored rows whole.
  // Opened before anything prints; the file vault streams its rows from disk while they are printed.
  const view = await vault.listed({ listedByDefault, narrow, ...(match ? { match } : {}) });
  if (damaged.size) return { ...listed, vaultTotal: () => view.total(), eachRow: (row) => view.each((r) => row(mark(r))) };
  return { ...listed, vaultTotal: () => view.total(), eachRow: (row, runs) => view.each(row, runs) };
}

/** A row whose record file cannot be opened: shown, but as damaged, with `vault check` to say more. */
function damagedRow(r: ListingRow): ListedRow {
  const doc = JSON.parse(r.json.toString('utf8')) as Record<string, unknown>;
  return { json: Buffer.from(safeJson({ ...doc, status: 'damaged', damaged: true }), 'utf8'), meta: () => ({ ...r.meta(), damaged: true }) };
}

/** `show <ref>`: one record as the store holds it. */
export async function showRecord(vault: HandleStore, ref: string): Promise<RecordShown> {
  const record = await vault.resolve(ref);
  if (!record) throw new CliError('not-found', `no task in the vault matches "${ref}"`, hint`Run \`${cmd('list', '--all')}\`.`);
  return { kind: 'record-shown', record };
}
