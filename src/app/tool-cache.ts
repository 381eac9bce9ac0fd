// The tool list a `call` needs, from the server entry's cache while it is fresh: a call on a
// known server then costs one round trip (tools/call) instead of two. `server check` refreshes it.
import type { Context } from '../context.js';
import type { TaskSession, ToolInfo } from '../session/task-session.js';
import { ServerStore } from '../servers/server-store.js';
import { TOOLS_CACHE_TTL_MS, type ServerEntry } from '../servers/server-entry.js';

/**
 * The cached tools when fresh for this protocol version and naming `wanted`; else listed live (and
 * cached). Only callable tools are cached: a refused one is never named, so it is listed live.
 */
export async function toolsFor(ctx: Context, entry: ServerEntry, session: Pick<TaskSession, 'listTools' | 'adoptTools' | 'reusesToolList' | 'protocolVersion'>, wanted?: string): Promise<ToolInfo[]> {
  const d = entry.discovered;
  const age = d?.toolsListedAt ? ctx.now() - Date.parse(d.toolsListedAt) : Infinity;
  const adopted = session.reusesToolList && d?.tools && d.protocolVersion === session.protocolVersion && age >= 0 && age < TOOLS_CACHE_TTL_MS && (wanted === undefined || d.tools.some((t) => t.name === wanted)) ? session.adoptTools(d.tools) : undefined;
  if (adopted) {
    ctx.debug(`tools of ${entry.name} from the cache (listed ${Math.round(age / 1000)} s ago)`);
    return adopted;
  }
  const tools = await session.listTools();
  if (session.reusesToolList) await rememberTools(ctx, entry, session.protocolVersion, tools);
  return tools;
}

/** Cache a live tool list; a failure to write only costs the next call a tools/list. */
export async function rememberTools(ctx: Context, entry: ServerEntry, protocolVersion: string, tools: ToolInfo[]): Promise<void> {
  if ('builtin' in entry && entry.builtin) return;
  try {
    await new ServerStore(ctx.home).rememberTools(entry.name, protocolVersion, tools, new Date(ctx.now()).toISOString(), entry);
  } catch (err) {
    ctx.debug(`could not cache the tool list: ${(err as Error).message}`);
  }
}
