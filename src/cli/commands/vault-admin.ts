// `prune`, `export`, `import`, `vault check`: flags to typed options, then the use cases (app/vault-admin.ts).
import type { Context } from '../../context.js';
import { openLocalVault, openVault } from '../../app/task-target.js';
import { checkVault, exportRecords, importRecords, pruneRecords, type VaultCheckOptions } from '../../app/vault-admin.js';
import { parseDuration } from '../duration.js';
import { finish } from '../finish.js';

export async function runPrune(flags: { terminal?: boolean; olderThan?: string }, ctx: Context): Promise<number> {
  const olderThanMs = flags.olderThan !== undefined ? parseDuration(flags.olderThan, '--older-than') : undefined;
  return finish(ctx, await pruneRecords(ctx, openVault(ctx), olderThanMs !== undefined ? { olderThanMs } : {}));
}

export async function runExport(refs: string[], opts: { out?: string }, ctx: Context): Promise<number> {
  return finish(ctx, await exportRecords(ctx, openVault(ctx), refs, opts));
}

export async function runImport(file: string, ctx: Context): Promise<number> {
  return finish(ctx, await importRecords(ctx, openVault(ctx), file));
}

/** `vault check` inspects the local vault's files, whichever store the other commands use. */
export function runVaultCheck(opts: VaultCheckOptions, ctx: Context): number {
  return finish(ctx, checkVault(ctx, openLocalVault(ctx), opts));
}
