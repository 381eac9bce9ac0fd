// Which engine holds the handles: the local file vault, or the team store MCP_TASKS_STORE names.
// The team store's driver is loaded only when one is configured (on its first use).
import { fileStore, type HandleStore } from './handle-store.js';

export function openHandleStore(home: string, env: NodeJS.ProcessEnv, notice: (text: string) => void = () => {}): HandleStore {
  return fileStore(home, env, notice);
}
