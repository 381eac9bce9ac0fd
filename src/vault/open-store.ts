// Which engine holds the handles: the local file vault, or the team store MCP_TASKS_STORE names.
// The team store's driver is loaded only when one is configured (on its first use).
import { fileStore, type HandleStore } from './handle-store.js';
import type { ListingRows } from './listing-index.js';

/** `rows`: how the listing renders its rows (the output layer's `list --json` rows, handed in from app/). */
export function openHandleStore(home: string, env: NodeJS.ProcessEnv, rows: ListingRows, notice: (text: string) => void = () => {}): HandleStore {
  return fileStore(home, env, rows, notice);
}
