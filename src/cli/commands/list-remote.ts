// `list --remote <server>`: the server's own task list (app/list-remote.ts), the vault's tasks marked.
import type { Context } from '../../context.js';
import { openVault } from '../../app/task-target.js';
import { listRemote } from '../../app/list-remote.js';
import { finish } from '../finish.js';

export async function runListRemote(server: string, ctx: Context): Promise<number> {
  return finish(ctx, await listRemote(ctx, openVault(ctx), server));
}
