// Where mcp-tasks keeps its config, vault and the demo server's default store.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (flag) return resolve(flag);
  if (env.MCP_TASKS_HOME) return resolve(env.MCP_TASKS_HOME);
  const home = homedir();
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'mcp-tasks');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'mcp-tasks');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'mcp-tasks');
}

/** The demo server's durable store when none is given: shared by every `demo` stdio process. */
export const defaultDemoStore = (home: string) => join(home, 'demo', 'tasks.json');
