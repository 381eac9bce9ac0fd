// The use cases behind `prune`, `export`, `import` and `vault check`: housekeeping and hand-over of
// handles between machines. Each returns an outcome (app/outcomes.ts) that output/present-record.ts renders.
import { randomUUID } from 'node:crypto';
import { readFileArg, type Context } from '../context.js';
import { CliError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-file.js';
import { serverAddCommand } from './task-target.js';
import { describeIdentity, identityOf, sameIdentity } from '../servers/server-entry.js';
import { ServerStore } from '../servers/server-store.js';
import { decodeSealed, encodeSealed, sealWithPassphrase, unsealWithPassphrase, VaultKeyError } from '../vault/vault-crypto.js';
import type { VaultRecord } from '../vault/vault-record.js';
import { freshOpIdForLegacyAdopted, recordProblem } from '../vault/record-schema.js';
import { sanitize } from '../output/sanitize.js';
import type { Outcome, VaultChecked } from './outcomes.js';
import type { HandleStore } from '../vault/handle-store.js';
import type { Vault } from '../vault/vault.js';
import type { StoreProblem } from '../vault/record-files.js';
import type { VaultFinding } from './outcomes.js';
import { cmd, hint, type Hint } from '../hint.js';

export interface PruneOptions {
  /** Only records last updated before this long ago. */
  olderThanMs?: number;
}

export async function pruneRecords(ctx: Context, vault: HandleStore, opts: PruneOptions): Promise<Outcome> {
  const olderMs = opts.olderThanMs;
  const cutoff = olderMs !== undefined ? ctx.now() - olderMs : undefined;
  // Only records whose terminal state (and result or error) is persisted: nothing else is safe to drop.
  const doomed = (await vault.list())
    .filter((r) => r.phase === 'terminal')
    .filter((r) => cutoff === undefined || Date.parse(r.updatedAt) < cutoff)
    .map((r) => r.opId);
  const removed = doomed.length ? await vault.remove(doomed) : 0;
  return { kind: 'pruned', removed };
}

const BUNDLE_MAGIC = 'mcp-tasks-export v1\n';

function exportKey(ctx: Context): string {
  const key = ctx.env.MCP_TASKS_EXPORT_KEY;
  if (!key) throw new CliError('usage', 'MCP_TASKS_EXPORT_KEY is not set: bundles are encrypted with that passphrase', 'Set MCP_TASKS_EXPORT_KEY on both machines (share it out of band), then retry.');
  if (key.length < 12) throw new CliError('usage', 'MCP_TASKS_EXPORT_KEY is shorter than 12 characters', 'Use a long random passphrase, e.g. `openssl rand -base64 24`.');
  return key;
}

export async function exportRecords(ctx: Context, vault: HandleStore, refs: string[], opts: { out?: string }): Promise<Outcome> {
  const passphrase = exportKey(ctx);
  const records: VaultRecord[] = [];
  for (const ref of refs) {
    const r = await vault.resolve(ref);
    if (!r) throw new CliError('not-found', `no task in the vault matches "${ref}"`, hint`Run \`${cmd('list', '--all')}\`.`);
    if (!records.includes(r)) records.push(r);
  }
  // Handles travel, credentials do not: the receiving person reconnects with their own.
  const shareable = records.map((r) => ({ ...r, auth: { kind: r.auth.kind, ...(r.auth.bearerEnv ? { bearerEnv: r.auth.bearerEnv } : {}) } }));
  const sealed = sealWithPassphrase(Buffer.from(JSON.stringify({ format: 'mcp-tasks-export', records: shareable }), 'utf8'), passphrase);
  const text = BUNDLE_MAGIC + encodeSealed(sealed).toString('base64').replace(/(.{76})/g, '$1\n') + '\n';
  if (opts.out) writeFileAtomic(opts.out, text, 0o600);
  return { kind: 'exported', count: records.length, out: opts.out || undefined, bundle: text };
}

export async function importRecords(ctx: Context, vault: HandleStore, file: string): Promise<Outcome> {
  const passphrase = exportKey(ctx);
  let text: string;
  try {
    text = readFileArg(ctx.stdin, file);
  } catch (err) {
    throw new CliError('invalid-input', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'Check the path.');
  }
  if (!text.startsWith(BUNDLE_MAGIC)) throw new CliError('invalid-input', `${file} is not an mcp-tasks export bundle`, hint`Create one with \`${cmd('export', '<ref>...', '--out', 'FILE')}\`.`);
  const sealed = decodeSealed(Buffer.from(text.slice(BUNDLE_MAGIC.length).replace(/\s+/g, ''), 'base64'));
  if (!sealed) throw new CliError('invalid-input', `${file} is damaged (truncated or edited)`, 'Export it again.');
  let records: VaultRecord[];
  try {
    const doc = JSON.parse(unsealWithPassphrase(sealed, passphrase).toString('utf8')) as { format?: string; records?: VaultRecord[] };
    if (doc.format !== 'mcp-tasks-export' || !Array.isArray(doc.records)) throw new Error('not an export');
    records = doc.records;
  } catch (err) {
    if (err instanceof VaultKeyError) throw new CliError('vault', `cannot decrypt ${file}: wrong MCP_TASKS_EXPORT_KEY, or the bundle was altered`, 'Use the passphrase it was exported with.');
    throw new CliError('invalid-input', `${file} does not hold task records`, 'Export it again.');
  }
  // All or nothing: every record must fit the vault's schema before any is committed.
  for (const [i, rec] of records.entries()) {
    const problem = recordProblem(rec);
    if (problem) {
      const opId = typeof (rec as { opId?: unknown } | null)?.opId === 'string' ? ` (${sanitize((rec as { opId: string }).opId, { singleLine: true, maxLength: 40 })})` : '';
      throw new CliError('invalid-input', `${file}: record ${i + 1}${opId} is not a valid task record: ${sanitize(problem, { singleLine: true, maxLength: 200 })}; nothing was imported`, hint`Export the tasks again from the source machine with \`${cmd('export')}\`.`);
    }
  }
  // Credentials never travel in a bundle: whoever imports reconnects with their own.
  let droppedSecrets = 0;
  records = records.map((imported) => {
    const r = freshOpIdForLegacyAdopted(imported, randomUUID);
    if (!r.auth.secrets) return r;
    droppedSecrets++;
    const { secrets: _dropped, ...auth } = r.auth;
    return { ...r, auth };
  });
  const added = await vault.bulkInsert(records);
  // Handles are bound to server identities: say which ones this machine cannot reach as-is.
  const servers = new ServerStore(ctx.home);
  const warnings: string[] = [];
  const next: Hint[] = [];
  if (droppedSecrets) warnings.push(`${droppedSecrets} record(s) carried stored credentials; they were dropped (set the server's variables in this shell, or sign in)`);
  for (const name of new Set(records.map((r) => r.server.name))) {
    const rec = records.find((r) => r.server.name === name)!;
    const entry = servers.find(name);
    if (!entry) {
      const add = serverAddCommand(name, rec.server.identity);
      warnings.push(`server "${name}" is not configured here; add it (${describeIdentity(rec.server.identity)}) before watching these tasks`);
      if (add) next.push(add);
    }
    else if (!sameIdentity(identityOf(entry, ctx.home), rec.server.identity)) warnings.push(`server "${name}" here is ${describeIdentity(identityOf(entry, ctx.home))}, but the tasks were created on ${describeIdentity(rec.server.identity)}; they will not be sent there without --rebind`);
  }
  return { kind: 'records-imported', added, alreadyPresent: records.length - added, warnings, next };
}

export interface VaultCheckOptions {
  repair?: boolean;
}

/** What to do about one finding, as `vault check` prints it (the safe next step first). */
function finding(p: StoreProblem, repair: Hint): VaultFinding {
  switch (p.kind) {
    case 'record-damaged':
      return { problem: 'a record file is damaged, or sealed with another key (the task it held cannot be read)', path: p.path, next: hint`Restore that file from a backup (with the vault key it was sealed with), or move it aside: ${repair} (it keeps the file, in the vault's set-aside/ folder).` };
    case 'record-unreadable':
      return { problem: `a record file cannot be read (${p.code})`, path: p.path, next: hint`Check its owner and permissions (it should be yours, mode 0600), or move it aside: ${repair}.` };
    case 'set-aside-by-hand':
      return { problem: 'a file set aside by hand is still among the record files (no record is read from it)', path: p.path, next: hint`${repair} moves it out of the vault's records and rebuilds the listing without it.` };
    case 'listing-unusable':
      return { problem: 'the listing (what `list` reads) cannot be read', next: hint`${repair} rebuilds it from the record files (nothing in them is lost).` };
    case 'listing-row-without-record':
      return { problem: 'the listing shows a record whose file is gone (list shows it, get cannot find it)', next: hint`${repair} rebuilds the listing from the record files.` };
    case 'listing-missing-record':
      return { problem: 'a record is missing from the listing (get finds it, list does not show it)', next: hint`${repair} rebuilds the listing from the record files.` };
    case 'listing-row-stale':
      return { problem: 'the listing shows a record other than its file says', next: hint`${repair} rebuilds the listing from the record files.` };
  }
}

/** `vault check [--repair]`: every record file read, the listing compared; with --repair, damage moved aside and the listing rebuilt. */
export function checkVault(ctx: Context, vault: Vault, opts: VaultCheckOptions): VaultChecked {
  const checked = vault.checkStore();
  if (!checked) return { kind: 'vault-checked', exists: false, sound: 0, findings: [] };
  const repair = hint`\`${cmd('vault', 'check', '--repair')}\``;
  const findings = checked.problems.map((p) => finding(p, repair));
  if (!opts.repair || checked.problems.length === 0) return { kind: 'vault-checked', exists: true, sound: checked.sound, findings };
  const moved = vault.repairStore(checked.problems, new Date(ctx.now()));
  return { kind: 'vault-checked', exists: true, sound: checked.sound, findings: findings.map((f) => ({ ...f, next: f.path && moved.some((m) => m.from === f.path) ? 'moved aside (kept, not deleted); the listing no longer shows it' : 'the listing was rebuilt from the record files' })), repaired: { moved, listingRebuilt: true } };
}
