// Which submissions are in doubt (the request may have left, no handle came back), as every
// command that must not duplicate them asks: `recover`, `call` before it sends, `--save`.
import { byCreatedAt, type VaultRecord } from '../vault/vault-record.js';
import type { HandleStore } from '../vault/handle-store.js';
import { reportedPhase } from '../vault/writer.js';

/** Records without a handle that are in doubt: marked so, or `submitting` with their writer gone. */
export function inDoubtRecords(records: VaultRecord[], nowMs: number): VaultRecord[] {
  return records.filter((r) => !r.taskId && !r.resolution && reportedPhase(r, nowMs) === 'in-doubt').sort(byCreatedAt);
}

/** The in-doubt submissions to one server (read from the records `list` shows by default). */
export async function inDoubtOn(vault: HandleStore, server: string, nowMs: number): Promise<VaultRecord[]> {
  return inDoubtRecords(await vault.query({ listedByDefault: true, match: (r) => r.server.name === server && !r.taskId }), nowMs);
}

/** A record closed by hand (`recover --resolve`): commands report its verdict instead of asking the server. */
export class ResolvedRecordError extends Error {
  constructor(readonly record: VaultRecord) {
    super(`${record.operation.name} on ${record.server.name} (operation ${record.opId.slice(0, 8)}) was resolved by hand as ${record.resolution?.outcome ?? 'unknown'}`);
    this.name = 'ResolvedRecordError';
  }
}

