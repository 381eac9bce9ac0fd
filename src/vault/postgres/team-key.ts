// The two kinds of team key. A passphrase (12+ characters, chosen by people) is stretched with
// scrypt (N = 2^14, 16 MiB, ~35 ms of CPU on every start). A generated key (`store keygen`:
// 256 bits from the system's CSPRNG, written `mcptk1_` + 43 base64url characters) has nothing to
// stretch: HKDF alone derives the store's keys from it. Which kind a store takes is fixed when
// `store init` creates it (the meta row's key_n: 0 for a generated key); the key check then
// holds every opener to that same key, so a store created with a generated key never opens with
// anything weaker. No I/O here.
import { hkdfSync, randomBytes } from 'node:crypto';

export const GENERATED_KEY_PREFIX = 'mcptk1_';
/** key_n of a store created with a generated key: no scrypt. */
export const GENERATED_KEY_COST = 0;
const GENERATED = /^mcptk1_([A-Za-z0-9_-]{43})$/;

/** A new generated team key. */
export function newTeamKey(): string {
  return `${GENERATED_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** The 32 bytes of a generated key; undefined for a passphrase. */
export function generatedKeyBytes(key: string): Buffer | undefined {
  const m = GENERATED.exec(key);
  if (!m) return undefined;
  const bytes = Buffer.from(m[1]!, 'base64url');
  return bytes.length === 32 ? bytes : undefined;
}

/** Begins like a generated key but is not one (cut short, a character lost in a copy). */
export const looksGenerated = (key: string): boolean => key.startsWith(GENERATED_KEY_PREFIX) && !generatedKeyBytes(key);

/** The master key of a store created with a generated key: HKDF over the key with the store's salt. */
export function generatedMaster(bytes: Buffer, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', bytes, salt, 'mcp-tasks team master v1', 32));
}
