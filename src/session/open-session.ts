// Opening a server for a command: the SDK connection (with credentials redacted from -v output
// and the negotiated era cached in the server config), then the TaskSession of the generation
// the server speaks. The one place that picks a generation.
import type { Connection, RefusedTool, ToolInfo } from '../connection/connect.js';
export { refusedToolError } from '../connection/connect.js';
import type { Context } from '../context.js';
import { LEGACY_PROTOCOL_VERSION, TASKS_EXTENSION_ID } from '../protocol/constants.js';
import { sanitize } from '../output/sanitize.js';
import type { ServerEntry } from '../servers/server-entry.js';
import { ServerStore } from '../servers/server-store.js';
import { ModernTaskSession } from './modern-session.js';
import { UnsupportedGenerationError, type TaskGeneration, type TaskSession } from './task-session.js';

export { TASKS_EXTENSION_ID };

export interface OpenOptions {
  /** The environment to connect with (a vaulted task's stored credentials filled in); default ctx.env. */
  env?: NodeJS.ProcessEnv;
  /** Ignore the cached discover result and probe afresh (`server check`). */
  fresh?: boolean;
}

/** What `server check` and `tools` show about a server, whichever generation it speaks. */
export interface ServerProbe {
  readonly generation: TaskGeneration;
  /** As `server check --json` reports it. */
  readonly era: 'modern' | 'legacy';
  readonly protocolVersion: string;
  readonly serverInfo?: { name: string; version: string };
  /** The 2026-07-28 tasks extension is advertised. */
  readonly tasksAdvertised: boolean;
  /** The 2025-11-25 experimental tasks capability is advertised. */
  readonly legacyTasksAdvertised: boolean;
  listTools(): Promise<ToolInfo[]>;
  refusedTools(): RefusedTool[];
  close(): Promise<void>;
}

async function connectServer(ctx: Context, entry: ServerEntry, opts: OpenOptions): Promise<Connection> {
  const { connect } = await import('../connection/connect.js');
  const env = opts.env ?? ctx.env;
  // Credentials this connection will use never show up in -v output.
  if (entry.transport === 'http') {
    if (entry.bearerEnv) ctx.redact(env[entry.bearerEnv]);
    for (const v of Object.values(entry.headers ?? {})) if (v.startsWith('env:')) ctx.redact(env[v.slice(4)]);
  } else {
    for (const [k, v] of Object.entries(entry.env ?? {})) ctx.redact(v === '' ? ctx.env[k] : v);
  }
  // An HTTP server without a bearer variable may need a sign-in: its transport carries the OAuth provider.
  const httpTransport =
    entry.transport === 'http' && !entry.bearerEnv
      ? await import('../connection/oauth-provider.js').then((m) => m.signInTransportFor(m.signInIO(ctx), entry, { tty: ctx.interactive, storedAuthOnly: ctx.storedAuthOnly }))
      : undefined;
  const started = ctx.now();
  const conn = await connect(entry, {
    ...(httpTransport ? { httpTransport } : {}),
    env,
    ...(opts.fresh ? { fresh: true } : {}),
    debug: (l) => ctx.debug(l),
    onServerStderr: (line) => ctx.debug(`[${entry.name} stderr] ${sanitize(line, { singleLine: true, maxLength: 300 })}`),
  });
  ctx.debug(`connected to ${entry.name} over ${entry.transport} in ${ctx.now() - started} ms: ${conn.protocolVersion} (${conn.era}${entry.discovered?.era === 'modern' && conn.era === 'modern' ? ', cached discover result, no probe' : ''}), tasks extension ${conn.tasksAdvertised ? 'advertised' : 'not advertised'}`);
  return conn;
}

/** Cache what we found, so later calls adopt it without a server/discover probe. */
async function rememberEra(ctx: Context, entry: ServerEntry, conn: Connection, fresh: boolean): Promise<void> {
  if ('builtin' in entry && entry.builtin) return;
  if (!fresh && entry.discovered && entry.discovered.protocolVersion === conn.protocolVersion) return;
  try {
    await new ServerStore(ctx.home).rememberEra(entry.name, conn.discovered(), entry);
  } catch (err) {
    ctx.debug(`could not cache the server era: ${(err as Error).message}`);
  }
}

const generationOf = (conn: Connection): TaskGeneration => (conn.era === 'modern' ? '2026-07-28' : '2025-11-25');

/** A TaskSession on `entry`, of the generation the server negotiated. */
export async function openSession(ctx: Context, entry: ServerEntry, opts: OpenOptions = {}): Promise<TaskSession> {
  const conn = await connectServer(ctx, entry, opts);
  const generation = generationOf(conn);
  if (generation === '2025-11-25') {
    // The 2025-11-25 generation plugs in here (src/session/legacy*/); until then, a clear refusal.
    await conn.close();
    throw new UnsupportedGenerationError(entry.name, conn.protocolVersion === 'unknown' ? LEGACY_PROTOCOL_VERSION : conn.protocolVersion, generation);
  }
  await rememberEra(ctx, entry, conn, opts.fresh === true);
  return new ModernTaskSession(conn);
}

/** A look at a server without tasks: its era, what it advertises, its tools. Any generation. */
export async function probeServer(ctx: Context, entry: ServerEntry, opts: OpenOptions = {}): Promise<ServerProbe> {
  const conn = await connectServer(ctx, entry, opts);
  await rememberEra(ctx, entry, conn, opts.fresh === true);
  return {
    generation: generationOf(conn),
    era: conn.era,
    protocolVersion: conn.protocolVersion,
    ...(conn.serverInfo ? { serverInfo: conn.serverInfo } : {}),
    tasksAdvertised: conn.tasksAdvertised,
    legacyTasksAdvertised: conn.legacyTasksAdvertised,
    listTools: () => conn.listTools(),
    refusedTools: () => conn.refusedTools(),
    close: () => conn.close(),
  };
}
