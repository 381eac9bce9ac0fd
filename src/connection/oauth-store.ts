// Sign-in state per named server (tokens, client registration, PKCE verifier, machine
// credentials), sealed with the vault's key material (AES-256-GCM from vault-crypto) in a
// 0600 file under <home>/sign-in/. Nothing here is ever written in clear.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ownPid } from '../fs/own-process.js';
import { SignInFileError } from './connection-errors.js';
import { decodeSealed, keyFilePath, loadKey, seal, unseal, VaultKeyError, type KeySource } from '../vault/vault-crypto.js';
import { Vault, vaultPath } from '../vault/vault.js';
import { KEY_ONLY_ROWS } from '../vault/listing-index.js';
import { describePrincipal, type Principal } from '../tasks/principal.js';

/** What the SDK hands us, kept as it came (a subset is named for `server show`). */
export interface StoredTokens {
  access_token: string;
  token_type?: string | undefined;
  expires_in?: number | undefined;
  refresh_token?: string | undefined;
  scope?: string | undefined;
  issuer?: string | undefined;
  [k: string]: unknown;
}

export interface MachineCredentials {
  clientId: string;
  /** A client secret (client_secret_basic) … */
  clientSecret?: string;
  /** … or a PEM private key for private_key_jwt. */
  privateKeyPem?: string;
  algorithm?: string;
  /** Where they came from: a variable set at connect time wins over the sealed copy (rotation). */
  secretEnv?: string;
  keyEnv?: string;
}

export interface SignInRecord {
  server: string;
  /** The URL signed in to: a sign-in is never sent to a server whose URL changed. */
  serverUrl: string;
  kind: 'authorization_code' | 'client_credentials';
  redirectUri?: string;
  clientMetadataUrl?: string;
  scope?: string;
  clientInformation?: Record<string, unknown>;
  /** Given with --client-id: never replaced by a dynamic registration. */
  preRegistered?: boolean;
  tokens?: StoredTokens;
  /** When the tokens were saved (ms), so expires_in becomes a time. */
  tokensSavedAt?: number;
  codeVerifier?: string;
  machine?: MachineCredentials;
  issuer?: string;
  /** Who the tokens act for (tasks created under this sign-in keep it in their vault record). */
  principal?: Principal;
  updatedAt: string;
}

const FORMAT = 'mcp-tasks-sign-in';

export const signInDir = (home: string) => join(home, 'sign-in');
export const signInPath = (home: string, server: string) => join(signInDir(home), `${server}.json`);

interface SealedFile {
  format: typeof FORMAT;
  version: number;
  key: KeySource;
  iv: string;
  tag: string;
  data: string;
}

/**
 * The key source a new sign-in file uses: the vault's passphrase if set, else the vault's own key
 * where it is (the OS keychain where the vault keeps it there, else vault.key). Without a vault
 * yet, the vault is created first, so sign-ins and handles always share one key and one place.
 */
function keySourceFor(home: string, env: NodeJS.ProcessEnv): { source: KeySource; createdKeyFile?: string } {
  if (env.MCP_TASKS_VAULT_KEY) return { source: { kind: 'passphrase', salt: randomBytes(16).toString('base64'), N: 2 ** 14 } };
  let createdKeyFile: string | undefined;
  let sealed = readVaultHeader(home);
  if (!sealed) {
    new Vault(home, env, KEY_ONLY_ROWS, () => (createdKeyFile = keyFilePath(home))).prepare();
    sealed = readVaultHeader(home);
  }
  const source: KeySource = sealed?.key.kind === 'keychain' ? sealed.key : { kind: 'keyfile' };
  return { source, ...(createdKeyFile && source.kind === 'keyfile' ? { createdKeyFile } : {}) };
}

/** The vault's header (its key source), undefined when there is no readable vault. */
function readVaultHeader(home: string) {
  try {
    return decodeSealed(readFileSync(vaultPath(home)));
  } catch {
    return undefined;
  }
}

function asVaultError(err: unknown, path: string): never {
  if (err instanceof VaultKeyError) throw new SignInFileError({ reason: 'key', key: err }, `the sign-in file ${path} cannot be opened: ${err.message}`);
  throw err;
}

export function readSignIn(home: string, server: string, env: NodeJS.ProcessEnv): SignInRecord | undefined {
  const path = signInPath(home, server);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SignInFileError({ reason: 'unreadable' }, `cannot read the sign-in file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let file: SealedFile;
  try {
    file = JSON.parse(text) as SealedFile;
    if (file.format !== FORMAT || typeof file.iv !== 'string' || typeof file.tag !== 'string' || typeof file.data !== 'string') throw new Error('bad');
  } catch {
    throw new SignInFileError({ reason: 'damaged', server }, `the sign-in file ${path} is damaged`);
  }
  try {
    const { key } = loadKey(file.key, home, env, false);
    const plain = unseal({ format: 'mcp-tasks-vault', version: file.version, key: file.key, iv: file.iv, tag: file.tag, data: Buffer.from(file.data, 'base64') }, key);
    return JSON.parse(plain.toString('utf8')) as SignInRecord;
  } catch (err) {
    return asVaultError(err, path);
  }
}

/** Atomic replace (temp file, fsync, rename), mode 0600 in a 0700 directory. */
export function writeSignIn(home: string, record: SignInRecord, env: NodeJS.ProcessEnv): { createdKeyFile?: string } {
  const dir = signInDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = signInPath(home, record.server);
  let existing: KeySource | undefined;
  try {
    existing = (JSON.parse(readFileSync(path, 'utf8')) as SealedFile).key;
  } catch { /* new file */ }
  let sealed;
  let createdKeyFile: string | undefined;
  let source: KeySource;
  try {
    const chosen = existing ? { source: existing } : keySourceFor(home, env);
    source = chosen.source;
    const k = loadKey(source, home, env, true);
    createdKeyFile = k.createdKeyFile ?? chosen.createdKeyFile;
    sealed = seal(Buffer.from(JSON.stringify({ ...record, updatedAt: new Date().toISOString() })), k.key, source);
  } catch (err) {
    return asVaultError(err, path);
  }
  const file: SealedFile = { format: FORMAT, version: sealed.version, key: source, iv: sealed.iv, tag: sealed.tag, data: sealed.data.toString('base64') };
  const tmp = `${path}.${ownPid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(file) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return createdKeyFile ? { createdKeyFile } : {};
}

export function removeSignIn(home: string, server: string): boolean {
  const path = signInPath(home, server);
  try {
    readFileSync(path);
  } catch {
    return false;
  }
  rmSync(path, { force: true });
  return true;
}

/** When the access token stops working, if the server said (ms since the epoch). */
export function tokenExpiry(record: SignInRecord): number | undefined {
  const t = record.tokens;
  if (!t || typeof t.expires_in !== 'number' || !record.tokensSavedAt) return undefined;
  return record.tokensSavedAt + t.expires_in * 1000;
}

/** For `server show`: whether and until when, never a token. */
export function describeSignIn(record: SignInRecord | undefined, now: number): Record<string, unknown> {
  if (!record?.tokens) return { signedIn: false };
  const expiresAt = tokenExpiry(record);
  return {
    signedIn: true,
    kind: record.kind,
    ...(record.issuer ? { issuer: record.issuer } : {}),
    ...(record.principal ? { principal: describePrincipal(record.principal) } : {}),
    ...(record.tokens.scope ? { scope: record.tokens.scope } : {}),
    ...(expiresAt !== undefined ? { expiresAt: new Date(expiresAt).toISOString(), expired: expiresAt <= now } : {}),
    refreshable: Boolean(record.tokens.refresh_token) || record.kind === 'client_credentials',
  };
}
