// `server add | list | show | remove | import | check`: each calls its use case (app/servers.ts)
// and ends in finish().
import type { Context } from '../../context.js';
import { addServer, checkServer, importServers, listServers, removeServer, showServer, type ServerAddOptions } from '../../app/servers.js';
import { finish } from '../finish.js';

export type { ServerAddOptions };

export async function runServerAdd(name: string, command: string[], opts: ServerAddOptions, ctx: Context): Promise<number> {
  return finish(ctx, await addServer(ctx, name, command, opts));
}

export function runServerList(ctx: Context): number {
  return finish(ctx, listServers(ctx));
}

export async function runServerShow(name: string, ctx: Context): Promise<number> {
  return finish(ctx, await showServer(ctx, name));
}

export async function runServerRemove(name: string, ctx: Context): Promise<number> {
  return finish(ctx, await removeServer(ctx, name));
}

export async function runServerImport(file: string, opts: { only?: string; force?: boolean }, ctx: Context): Promise<number> {
  return finish(ctx, await importServers(ctx, file, opts));
}

export async function runServerCheck(name: string, ctx: Context): Promise<number> {
  return finish(ctx, await checkServer(ctx, name));
}
