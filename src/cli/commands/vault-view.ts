// `list` and `show`: flags to typed options, then the use cases (app/list.ts).
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { openVault } from '../../app/task-target.js';
import { followList, listTasks, showRecord, type ListOptions } from '../../app/list.js';
import { presentFollowed } from '../../output/present-list.js';
import { didYouMean } from '../../output/did-you-mean.js';
import { LIST_STATUSES } from '../choices.js';
import { finish } from '../finish.js';
import { cmd, hint } from '../../hint.js';

/** The flags `list` refuses before reading anything. */
function checkListOptions(opts: ListOptions): void {
  if (opts.status !== undefined && !(LIST_STATUSES as readonly string[]).includes(opts.status)) {
    throw new CliError('usage', `--status "${opts.status}" is not a status or phase${didYouMean(opts.status, LIST_STATUSES)}`, `Use one of ${LIST_STATUSES.map((x) => (x.includes(' ') ? `"${x}"` : x)).join(', ')}.`);
  }
  if (opts.follow && (opts.refresh || opts.limit !== undefined)) throw new CliError('usage', '--follow cannot be combined with --refresh or --limit', 'Drop one of them.');
}

export async function runList(opts: ListOptions, ctx: Context): Promise<number> {
  checkListOptions(opts);
  const vault = openVault(ctx);
  if (!opts.follow) return finish(ctx, await listTasks(ctx, vault, opts));
  if (!vault.follow) throw new CliError('usage', 'list --follow follows the team store, and MCP_TASKS_STORE is not set', hint`Set MCP_TASKS_STORE and MCP_TASKS_TEAM_KEY to follow what other machines add or change, or use \`${cmd('watch', '--active')}\` on this vault.`);
  const code = finish(ctx, await listTasks(ctx, vault, opts));
  await followList(ctx, vault, opts, (rec) => presentFollowed(ctx, rec));
  return code === 0 ? ExitCode.Interrupted : code;
}

export async function runShow(ref: string, ctx: Context): Promise<number> {
  return finish(ctx, await showRecord(openVault(ctx), ref));
}
