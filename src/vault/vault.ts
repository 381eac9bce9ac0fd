// The encrypted handle vault: one AES-256-GCM sealed JSON document at <home>/vault.json.
// Writes are read-modify-write under a cross-process lock and land with an atomic rename, so
// the file is never truncated, wiped or half-written; a file we cannot read is left byte for
// byte as it was and reported (exit 9) with the safe next step.
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { ensureDir, LockTimeoutError, withFileLock, writeFileAtomic } from '../fs/atomic-file.js';
import { decodeSealed, encodeSealed, loadKey, newKeySource, seal, unseal, VAULT_FORMAT_VERSION, VaultKeyError, type SealedVault } from './vault-crypto.js';
import { typeableRef, type VaultRecord } from './vault-record.js';

interface VaultDocument {
  records: Record<string, VaultRecord>;
}

export const vaultPath = (home: string) => join(home, 'vault.json');

/** Time spent in vault reads and writes by this process (reported with MCP_TASKS_TIMING=1). */
export const vaultTiming = { ms: 0 };
function timed<T>(fn: () => T): T {
  const t = performance.now();
  try {
    return fn();
  } finally {
    vaultTiming.ms += performance.now() - t;
  }
}

/** Shortest prefix shown for a taskId in human output; refs must give at least this much. */
export const MIN_REF_PREFIX = 6;

export class Vault {
  private cache?: { doc: VaultDocument; sealed?: SealedVault };

  constructor(
    readonly home: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly notice: (text: string) => void = () => {},
  ) {}

  get path(): string {
    return vaultPath(this.home);
  }

  private fail(message: string, next: string): never {
    throw new CliError('vault', message, next);
  }

  private readSealed(): SealedVault | undefined {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      this.fail(`cannot read the vault ${this.path}: ${(err as Error).message}`, 'Check the permissions of your mcp-tasks home (it should be yours, mode 0700).');
    }
    const sealed = decodeSealed(bytes);
    if (!sealed) {
      this.fail(`the vault ${this.path} is corrupt, truncated or not an mcp-tasks vault; it was left untouched`, 'Restore it from a backup, or move it aside to start an empty vault (its handles would be lost).');
    }
    if (!Number.isInteger(sealed.version) || sealed.version > VAULT_FORMAT_VERSION) {
      this.fail(`the vault ${this.path} was written by a newer mcp-tasks (format ${String(sealed.version)}); it was left untouched`, 'Upgrade mcp-tasks to read it.');
    }
    return sealed;
  }

  private decode(sealed: SealedVault): VaultDocument {
    try {
      const { key } = loadKey(sealed.key, this.home, this.env, false);
      const doc = JSON.parse(unseal(sealed, key).toString('utf8')) as VaultDocument;
      if (!doc || typeof doc.records !== 'object') throw new VaultKeyError('the vault content is malformed', 'Restore it from a backup.');
      return doc;
    } catch (err) {
      if (err instanceof VaultKeyError) this.fail(`${err.message} (${this.path}); nothing was changed`, err.next);
      if (err instanceof CliError) throw err;
      this.fail(`the vault ${this.path} cannot be opened (${(err as Error).message}); it was left untouched`, 'Restore it (and its key) from a backup.');
    }
  }

  private load(): VaultDocument {
    if (this.cache) return this.cache.doc;
    return timed(() => this.loadUncached());
  }

  private loadUncached(): VaultDocument {
    const sealed = this.readSealed();
    const doc = sealed ? this.decode(sealed) : { records: {} };
    this.cache = { doc, ...(sealed ? { sealed } : {}) };
    return doc;
  }

  /** Locked read-modify-write; the only path that writes the vault. */
  private mutate<T>(fn: (doc: VaultDocument) => T): T {
    return timed(() => this.mutateUntimed(fn));
  }

  private mutateUntimed<T>(fn: (doc: VaultDocument) => T): T {
    ensureDir(this.home);
    try {
      return withFileLock(this.path, () => {
        const sealed = this.readSealed();
        const doc = sealed ? this.decode(sealed) : { records: {} };
        const out = fn(doc);
        const source = sealed?.key ?? newKeySource(this.env, this.home);
        const { key, createdKeyFile } = loadKey(source, this.home, this.env, true);
        if (createdKeyFile) {
          this.notice(
            `created a vault key at ${createdKeyFile} (mode 0600). It keeps task handles unreadable to other users and out of backups or sync that skip it; it does not protect against anyone who can read files as you. Set MCP_TASKS_VAULT_KEY to use a passphrase instead.`,
          );
        }
        writeFileAtomic(this.path, encodeSealed(seal(Buffer.from(JSON.stringify(doc), 'utf8'), key, source)), 0o600);
        try { chmodSync(this.home, 0o700); } catch { /* not ours to fix */ }
        this.cache = { doc };
        return out;
      });
    } catch (err) {
      if (err instanceof LockTimeoutError) this.fail(`the vault is locked by another mcp-tasks process (${err.holder})`, 'Wait for it to finish and retry; a lock left by a crashed process is taken over automatically.');
      if (err instanceof VaultKeyError) this.fail(err.message, err.next);
      if ((err as NodeJS.ErrnoException).code === 'EACCES' || (err as NodeJS.ErrnoException).code === 'EROFS') {
        this.fail(`cannot write the vault in ${this.home}: ${(err as Error).message}`, 'Make the mcp-tasks home writable, or point --home elsewhere.');
      }
      throw err;
    }
  }

  list(): VaultRecord[] {
    return Object.values(this.load().records);
  }

  get(opId: string): VaultRecord | undefined {
    const r = this.load().records;
    return Object.prototype.hasOwnProperty.call(r, opId) ? r[opId] : undefined;
  }

  put(record: VaultRecord): void {
    this.mutate((doc) => {
      doc.records[record.opId] = record;
    });
  }

  /** Apply `change` to the stored record (re-read under the lock); returns the new record. */
  update(opId: string, change: (rec: VaultRecord) => void): VaultRecord | undefined {
    return this.mutate((doc) => {
      const rec = doc.records[opId];
      if (rec) change(rec);
      return rec;
    });
  }

  /** Insert records whose opId is not present yet; returns how many were added. */
  merge(records: VaultRecord[]): number {
    return this.mutate((doc) => {
      let added = 0;
      const handles = new Set(Object.values(doc.records).filter((x) => x.taskId).map((x) => `${x.server.name}\0${x.taskId}`));
      for (const r of records) {
        const handle = r.taskId ? `${r.server.name}\0${r.taskId}` : undefined;
        if (doc.records[r.opId] || (handle && handles.has(handle))) continue;
        doc.records[r.opId] = r;
        if (handle) handles.add(handle);
        added++;
      }
      return added;
    });
  }

  remove(opIds: string[]): number {
    return this.mutate((doc) => {
      let n = 0;
      for (const id of opIds) if (doc.records[id]) (delete doc.records[id], n++);
      return n;
    });
  }

  /**
   * A ref is a taskId, a unique taskId prefix of at least 6 characters, an operation id,
   * or the value of a label. Undefined when nothing matches; an error when several do.
   */
  resolve(ref: string): VaultRecord | undefined {
    const all = this.list();
    const exact = all.filter((r) => r.taskId === ref || r.opId === ref);
    if (exact.length === 1) return exact[0];
    if (exact.length > 1) throw ambiguous(ref, exact);
    const byLabel = all.filter((r) => Object.values(r.labels).includes(ref));
    if (byLabel.length === 1) return byLabel[0];
    if (byLabel.length > 1) throw ambiguous(ref, byLabel);
    if (ref.length >= MIN_REF_PREFIX) {
      const byPrefix = all.filter((r) => r.taskId?.startsWith(ref) || r.opId.startsWith(ref));
      if (byPrefix.length === 1) return byPrefix[0];
      if (byPrefix.length > 1) throw ambiguous(ref, byPrefix);
    }
    return undefined;
  }
}

function ambiguous(ref: string, recs: VaultRecord[]): CliError {
  const list = recs.slice(0, 5).map((r) => `${typeableRef(r, 10)} (${r.server.name} ${r.operation.name})`).join(', ');
  return new CliError('invalid-input', `"${ref}" matches ${recs.length} vault records: ${list}${recs.length > 5 ? ', …' : ''}`, 'Give a longer prefix of the taskId.');
}
