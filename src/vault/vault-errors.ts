// What went wrong with the vault, with the facts (paths, the lock, the key's own advice);
// app/local-error.ts decides the exit code and the next step a person reads.
import type { VaultKeyError } from './vault-crypto.js';
import type { Hint } from '../hint.js';

export type VaultFailure =
  | { reason: 'unreadable' }
  | { reason: 'corrupt' }
  | { reason: 'newer-format' }
  | { reason: 'key'; key: VaultKeyError }
  | { reason: 'unopenable' }
  | { reason: 'lock-unusable'; lockPath: string }
  | { reason: 'locked'; lockPath: string }
  | { reason: 'record-corrupt'; path: string }
  | { reason: 'no-space' }
  | { reason: 'not-writable' }
  | { reason: 'home-unusable' }
  /** The team store (MCP_TASKS_STORE): unreachable, not initialised, wrong team key; `next` says what to do. */
  | { reason: 'team-store'; next: string | Hint };

/** The vault cannot be read or written; nothing in it was changed. */
export class VaultError extends Error {
  constructor(
    readonly failure: VaultFailure,
    message: string,
  ) {
    super(message);
    this.name = 'VaultError';
  }
}

/** A ref (taskId or opId prefix, label) that matches more than one vault record. */
export class AmbiguousRefError extends Error {
  constructor(
    readonly ref: string,
    readonly matches: number,
    message: string,
  ) {
    super(message);
    this.name = 'AmbiguousRefError';
  }
}
