// Named-server configuration, kept with `conf` in <home>/servers.json.
// Writes go through conf (atomic, schema-free, never cleared on error). Hot paths (`get`,
// `watch`) only need to resolve one name, so they parse the same file directly and skip
// loading conf and its validator: conf costs ~100 ms of start-up.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ServerConfigError } from './server-errors.js';
import { ensureDir, withFileLockAsync } from '../fs/atomic-file.js';
import { DEMO_SERVER_NAME, demoEntry, type CachedTool, type DiscoveredGeneration, type ServerEntry } from './server-entry.js';

interface ServersFile {
  servers?: Record<string, ServerEntry>;
}

export const serversPath = (home: string) => join(home, 'servers.json');

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function validateServerName(name: string): void {
  if (!NAME.test(name)) {
    throw new ServerConfigError({ reason: 'invalid-name', name }, `invalid server name "${name}"`);
  }
  if (name === DEMO_SERVER_NAME) {
    throw new ServerConfigError({ reason: 'reserved-name', name }, `"${DEMO_SERVER_NAME}" is the built-in demo server and cannot be redefined`);
  }
}

function readFile(home: string): ServersFile {
  const path = serversPath(home);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ServerConfigError({ reason: 'unreadable', path }, `cannot read ${path}: ${(err as Error).message}`);
  }
  let file: ServersFile;
  try {
    file = JSON.parse(text) as ServersFile;
  } catch {
    throw new ServerConfigError({ reason: 'not-json', path }, `${path} is not valid JSON; it was left untouched`);
  }
  for (const entry of Object.values(file.servers ?? {})) upgradeDiscovered(entry);
  return file;
}

/**
 * servers.json written by 0.2.0 and earlier caches `discovered.era`, the SDK's word for the
 * generation ('modern' | 'legacy'): read as `generation` (the next write stores only that). A
 * cache naming neither is dropped: the next connection probes the server again.
 */
function upgradeDiscovered(entry: ServerEntry): void {
  const found = entry?.discovered as (DiscoveredGeneration & { era?: unknown }) | undefined;
  if (!found || typeof found !== 'object') return;
  const { era, ...rest } = found;
  const known = (g: unknown): g is DiscoveredGeneration['generation'] => g === '2026-07-28' || g === '2025-11-25';
  const generation = known(rest.generation) ? rest.generation : era === 'modern' ? '2026-07-28' : era === 'legacy' ? '2025-11-25' : undefined;
  if (generation) entry.discovered = { ...rest, generation };
  else delete entry.discovered;
}

async function openConf(home: string) {
  // The home holds the vault too: it is the user's alone from its first file on.
  ensureDir(home);
  const { default: Conf } = await import('conf');
  return new Conf<ServersFile>({
    projectName: 'mcp-tasks',
    cwd: home,
    configName: 'servers',
    clearInvalidConfig: false,
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
  });
}

export class ServerStore {
  constructor(private readonly home: string) {}

  /** All servers, the built-in demo first. */
  list(): ServerEntry[] {
    return [demoEntry(this.home), ...Object.values(readFile(this.home).servers ?? {})];
  }

  find(name: string): ServerEntry | undefined {
    if (name === DEMO_SERVER_NAME) return demoEntry(this.home);
    const servers = readFile(this.home).servers ?? {};
    return Object.prototype.hasOwnProperty.call(servers, name) ? servers[name] : undefined;
  }

  get(name: string): ServerEntry {
    const entry = this.find(name);
    if (!entry) {
      const known = this.list().map((s) => s.name);
      throw new ServerConfigError({ reason: 'unknown-server', name, known }, `no server named "${name}"`);
    }
    return entry;
  }

  /** Read-modify-write of servers.json under a cross-process lock (conf itself does not lock). */
  private async change<T>(fn: (servers: Record<string, ServerEntry>) => { servers?: Record<string, ServerEntry>; out: T }): Promise<T> {
    const conf = await openConf(this.home);
    // Waits without blocking: `call` caches the discover result while its connection is open.
    return withFileLockAsync(serversPath(this.home), () => {
      const servers = { ...((JSON.parse(JSON.stringify(readFile(this.home).servers ?? {})) as Record<string, ServerEntry>)) };
      const { servers: next, out } = fn(servers);
      if (next) conf.set('servers', next);
      return out;
    });
  }

  async put(entry: ServerEntry): Promise<void> {
    await this.change((servers) => {
      servers[entry.name] = entry;
      return { servers, out: undefined };
    });
  }

  async remove(name: string): Promise<boolean> {
    return this.change((servers) => {
      if (!Object.prototype.hasOwnProperty.call(servers, name)) return { out: false };
      delete servers[name];
      return { servers, out: true };
    });
  }

  /** Remember the generation a server speaks; the built-in demo is never written (it is rebuilt each run). */
  async rememberGeneration(name: string, discovered: DiscoveredGeneration, expected: ServerEntry): Promise<void> {
    if (name === DEMO_SERVER_NAME) return;
    await this.change((servers) => {
      const entry = servers[name];
      // Only for the entry we connected with: a concurrent `server add --force` wins.
      if (!entry || JSON.stringify({ ...entry, discovered: undefined }) !== JSON.stringify({ ...expected, discovered: undefined })) return { out: undefined };
      servers[name] = { ...entry, discovered };
      return { servers, out: undefined };
    });
  }

  /** Remember the tools a server listed, next to its generation (whose protocol version they were listed under). */
  async rememberTools(name: string, protocolVersion: string, tools: CachedTool[], listedAt: string, expected: ServerEntry): Promise<void> {
    if (name === DEMO_SERVER_NAME) return;
    await this.change((servers) => {
      const entry = servers[name];
      if (!entry?.discovered || entry.discovered.protocolVersion !== protocolVersion) return { out: undefined };
      if (JSON.stringify({ ...entry, discovered: undefined }) !== JSON.stringify({ ...expected, discovered: undefined })) return { out: undefined };
      servers[name] = { ...entry, discovered: { ...entry.discovered, tools, toolsListedAt: listedAt } };
      return { servers, out: undefined };
    });
  }
}
