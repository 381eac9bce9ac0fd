// Authenticated encryption of the vault (AES-256-GCM) and where its key comes from:
// MCP_TASKS_VAULT_KEY (a passphrase, stretched with scrypt and a stored salt), else a random key
// kept in the OS keychain (@napi-rs/keyring) where one is usable, else a random key in a 0600
// key file beside the vault. Never a key compiled into the program. The vault header records
// which source it was created with, so it is always opened the same way.
import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { osPlatform } from '../fs/own-process.js';
import { writeFileAtomic } from '../fs/atomic-file.js';
import { KEYCHAIN_SERVICE, keychainEntry } from './keychain.js';

export type KeySource = { kind: 'passphrase'; salt: string; N: number } | { kind: 'keychain'; service: string; account: string } | { kind: 'keyfile' };

/**
 * Try to keep a new random key in the OS keychain. Headless machines and CI have none usable
 * (no Secret Service): then undefined, and the key file is used. MCP_TASKS_NO_KEYCHAIN=1 opts out.
 */
function storeInKeychain(home: string, env: NodeJS.ProcessEnv): { source: KeySource; key: Buffer } | undefined {
  if (env.MCP_TASKS_NO_KEYCHAIN || env.CI) return undefined;
  // Not on Linux: a desktop's Secret Service is often locked or absent behind an ssh session, and
  // a vault created while it was there would not open without it; the key file always opens.
  if (osPlatform !== 'darwin' && osPlatform !== 'win32') return undefined;
  try {
    // A fresh account per vault: creating a new vault must never overwrite an older vault's key.
    const account = `vault-${createHash('sha256').update(home).digest('hex').slice(0, 12)}-${randomBytes(6).toString('hex')}`;
    const entry = keychainEntry(KEYCHAIN_SERVICE, account);
    const key = randomBytes(32);
    entry.setPassword(key.toString('base64'));
    if (entry.getPassword() !== key.toString('base64')) return undefined;
    return { source: { kind: 'keychain', service: KEYCHAIN_SERVICE, account }, key };
  } catch {
    return undefined;
  }
}

export interface SealedVault {
  format: 'mcp-tasks-vault';
  version: number;
  key: KeySource;
  iv: string;
  tag: string;
  data: Buffer;
}

/**
 * On disk: a magic line, one JSON header line, then the raw ciphertext. Binary rather than
 * base64-in-JSON: a 10,000-record vault loads ~30 % faster.
 */
const MAGIC = Buffer.from('mcp-tasks-vault\n');

export function encodeSealed(s: SealedVault): Buffer {
  const header = Buffer.from(JSON.stringify({ version: s.version, key: s.key, iv: s.iv, tag: s.tag }) + '\n');
  return Buffer.concat([MAGIC, header, s.data]);
}

/** Undefined when the bytes are not a sealed vault at all (wrong magic, no header). */
export function decodeSealed(buf: Buffer): SealedVault | undefined {
  if (buf.length < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const end = buf.indexOf(0x0a, MAGIC.length);
  if (end < 0) return undefined;
  let header: { version?: unknown; key?: unknown; iv?: unknown; tag?: unknown };
  try {
    header = JSON.parse(buf.subarray(MAGIC.length, end).toString('utf8')) as typeof header;
  } catch {
    return undefined;
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) return undefined;
  if (typeof header.iv !== 'string' || typeof header.tag !== 'string' || !validKeySource(header.key)) return undefined;
  return { format: 'mcp-tasks-vault', version: typeof header.version === 'number' ? header.version : NaN, key: header.key as KeySource, iv: header.iv, tag: header.tag, data: buf.subarray(end + 1) };
}

export const VAULT_FORMAT_VERSION = 1;
const SCRYPT_N = 2 ** 14;

export class VaultKeyError extends Error {
  constructor(message: string, readonly next: string) {
    super(message);
    this.name = 'VaultKeyError';
  }
}

export const keyFilePath = (home: string) => join(home, 'vault.key');

/** A key source read from a file is untrusted: bounded scrypt cost, well-formed fields. */
export function validKeySource(k: unknown): k is KeySource {
  if (!k || typeof k !== 'object') return false;
  const src = k as Record<string, unknown>;
  switch (src.kind) {
    case 'keyfile':
      return true;
    case 'keychain':
      return typeof src.service === 'string' && typeof src.account === 'string';
    case 'passphrase': {
      const N = src.N;
      return typeof src.salt === 'string' && src.salt.length > 0 && typeof N === 'number' && Number.isInteger(N) && N >= 2 ** 10 && N <= 2 ** 20 && (N & (N - 1)) === 0;
    }
    default:
      return false;
  }
}

/** The key source a new vault is created with (a keychain key is created on the spot). */
export function newKeySource(env: NodeJS.ProcessEnv, home: string): KeySource {
  if (env.MCP_TASKS_VAULT_KEY) return { kind: 'passphrase', salt: randomBytes(16).toString('base64'), N: SCRYPT_N };
  return storeInKeychain(home, env)?.source ?? { kind: 'keyfile' };
}

export interface KeyResult {
  key: Buffer;
  /** Set when a key file was just created: the caller shows the one-time notice. */
  createdKeyFile?: string;
}

/** Derive or load the key for `source`. Creates the key file only when `create` is set. */
export function loadKey(source: KeySource, home: string, env: NodeJS.ProcessEnv, create: boolean): KeyResult {
  if (source.kind === 'passphrase') {
    const pass = env.MCP_TASKS_VAULT_KEY;
    if (!pass) {
      throw new VaultKeyError('the vault is protected by a passphrase and MCP_TASKS_VAULT_KEY is not set', 'Set MCP_TASKS_VAULT_KEY to the passphrase the vault was created with.');
    }
    return { key: scryptSync(pass, Buffer.from(source.salt, 'base64'), 32, { N: source.N, r: 8, p: 1, maxmem: 256 * source.N * 8 + 1024 * 1024 }) };
  }
  if (source.kind === 'keychain') {
    let stored: string | null | undefined;
    try {
      stored = keychainEntry(source.service, source.account).getPassword();
    } catch (err) {
      throw new VaultKeyError(`the OS keychain holding the vault key is not available (${(err as Error).message})`, 'Unlock your keychain (log in to a desktop session), then retry.');
    }
    const key = stored ? Buffer.from(stored, 'base64') : Buffer.alloc(0);
    if (key.length !== 32) throw new VaultKeyError(`the vault key is missing from the OS keychain (${source.service}/${source.account})`, 'Restore the keychain entry; without it the vault cannot be read.');
    return { key };
  }
  const path = keyFilePath(home);
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new VaultKeyError(`the vault key file ${path} is damaged (not a 256-bit key)`, 'Restore vault.key from a backup; without it the vault cannot be read.');
    return { key };
  }
  if (!create) {
    throw new VaultKeyError(`the vault key file ${path} is missing`, 'Restore vault.key from a backup (or set MCP_TASKS_VAULT_KEY if the vault used a passphrase).');
  }
  const key = randomBytes(32);
  writeFileAtomic(path, key.toString('base64') + '\n', 0o600);
  return { key, createdKeyFile: path };
}

export function seal(plaintext: Buffer, key: Buffer, source: KeySource): SealedVault {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  // The header is bound as associated data: swapping key sources or versions breaks the tag.
  cipher.setAAD(Buffer.from(JSON.stringify({ v: VAULT_FORMAT_VERSION, key: source })));
  const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { format: 'mcp-tasks-vault', version: VAULT_FORMAT_VERSION, key: source, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data };
}

/** Decrypt; throws VaultKeyError when the key is wrong or the data was altered. */
export function unseal(sealed: SealedVault, key: Buffer): Buffer {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(JSON.stringify({ v: sealed.version, key: sealed.key })));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(sealed.data), decipher.final()]);
  } catch {
    throw new VaultKeyError(
      sealed.key.kind === 'passphrase' ? 'the vault cannot be decrypted: wrong MCP_TASKS_VAULT_KEY, or the file was altered' : 'the vault cannot be decrypted with vault.key: wrong key file, or the vault was altered',
      sealed.key.kind === 'passphrase' ? 'Set MCP_TASKS_VAULT_KEY to the passphrase the vault was created with.' : 'Restore the vault.key that belongs to this vault.',
    );
  }
}

/** Passphrase-based sealing for export bundles (MCP_TASKS_EXPORT_KEY). */
export function sealWithPassphrase(plaintext: Buffer, passphrase: string): SealedVault {
  const source: KeySource = { kind: 'passphrase', salt: randomBytes(16).toString('base64'), N: SCRYPT_N };
  return seal(plaintext, scryptSync(passphrase, Buffer.from(source.salt, 'base64'), 32, { N: SCRYPT_N, r: 8, p: 1 }), source);
}

export function unsealWithPassphrase(sealed: SealedVault, passphrase: string): Buffer {
  if (sealed.key.kind !== 'passphrase') throw new VaultKeyError('the bundle is not passphrase-sealed', 'Export it again with MCP_TASKS_EXPORT_KEY set.');
  const key = scryptSync(passphrase, Buffer.from(sealed.key.salt, 'base64'), 32, { N: sealed.key.N, r: 8, p: 1, maxmem: 256 * sealed.key.N * 8 + 1024 * 1024 });
  return unseal(sealed, key);
}
