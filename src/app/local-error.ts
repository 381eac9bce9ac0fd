// Typed local failures (vault, servers file, sign-in, connection set-up) → the contract's error
// kind and the safe next step. The layers below say what went wrong, with the facts; the next
// step names mcp-tasks commands and flags, which only this edge knows. Messages are kept as thrown.
import { CliError } from '../errors.js';
import { markNotSent, wasNotSent } from '../protocol/remote-errors.js';
import { AmbiguousRefError, VaultError, type VaultFailure } from '../vault/vault-errors.js';
import { ServerConfigError, type ServerConfigFailure } from '../servers/server-errors.js';
import { InterruptedBeforeSendError, MissingSecretError, PlainHttpRefusedError, RefusedToolError, SignInError, SignInFileError, type SignInFailure } from '../connection/connection-errors.js';
import { cmd, hint, shellQuote, type Hint } from '../hint.js';

/** The CliError a typed local failure is shown as, or undefined for anything else. */
export function toLocalCliError(err: unknown): CliError | undefined {
  const mapped = localCliError(err);
  // "Nothing was sent" is a fact about the failure, not its wording: it stays with the mapped error.
  return mapped && wasNotSent(err) ? markNotSent(mapped) : mapped;
}

function localCliError(err: unknown): CliError | undefined {
  if (err instanceof VaultError) return new CliError('vault', err.message, vaultNext(err.failure));
  if (err instanceof AmbiguousRefError) return new CliError('invalid-input', err.message, 'Give a longer prefix of the taskId.');
  if (err instanceof ServerConfigError) return serverConfigError(err.message, err.failure);
  if (err instanceof SignInError) return new CliError(err.failure.reason === 'interrupted' ? 'interrupted' : 'auth', err.message, signInNext(err.failure));
  if (err instanceof SignInFileError) {
    const f = err.failure;
    const next = f.reason === 'key' ? f.key.next : f.reason === 'unreadable' ? 'Check the permissions of your mcp-tasks home.' : hint`Run \`${cmd('server', 'logout', f.server)}\`, then \`${cmd('server', 'login', f.server)}\`.`;
    return new CliError('vault', err.message, next);
  }
  if (err instanceof MissingSecretError) return new CliError('auth', err.message, `Export ${err.variable} in this shell, then retry.`);
  if (err instanceof PlainHttpRefusedError) return new CliError('invalid-input', err.message, 'Use https://, or re-add the server with --allow-http if this network is trusted.');
  if (err instanceof InterruptedBeforeSendError) return new CliError('interrupted', err.message, 'Run the command again when you are ready; nothing was started.');
  if (err instanceof RefusedToolError) {
    return new CliError('invalid-input', err.message, 'Nothing was sent. The tool definition breaks the 2026-07-28 spec (Streamable HTTP, "Custom Headers from Tool Parameters"); report it to the server\'s operator.');
  }
  return undefined;
}

function vaultNext(f: VaultFailure): string | Hint {
  switch (f.reason) {
    case 'unreadable':
      return 'Check the permissions of your mcp-tasks home (it should be yours, mode 0700).';
    case 'corrupt':
      return 'Restore it from a backup, or move it aside to start an empty vault (its handles would be lost).';
    case 'newer-format':
      return 'Upgrade mcp-tasks to read it.';
    case 'key':
      return f.key.next;
    case 'unopenable':
      return 'Restore it (and its key) from a backup.';
    case 'lock-unusable':
      return `If no mcp-tasks command is running, remove ${f.lockPath} and retry.`;
    case 'locked':
      return 'Wait for it to finish and retry; a lock left by a crashed process is taken over automatically.';
    case 'record-corrupt':
      return hint`Restore it from a backup, or move it aside with \`${cmd('vault', 'check', '--repair')}\` (it keeps the file; that one task's handle would be lost to the vault).`;
    case 'no-space':
      return 'Free space on that file system, or point --home elsewhere.';
    case 'not-writable':
      return 'Make the mcp-tasks home writable, or point --home elsewhere.';
    case 'home-unusable':
      return 'Point --home (or MCP_TASKS_HOME) at a directory you can write.';
    case 'team-store':
      return f.next;
  }
}

function serverConfigError(message: string, f: ServerConfigFailure): CliError {
  switch (f.reason) {
    case 'invalid-name':
      return new CliError('invalid-input', message, 'Use letters, digits, ".", "_" or "-" (up to 64 characters), starting with a letter or digit.');
    case 'reserved-name':
      return new CliError('invalid-input', message, 'Pick another name.');
    case 'unreadable':
      return new CliError('invalid-input', message, 'Check the file permissions of your mcp-tasks home.');
    case 'not-json':
      return new CliError('invalid-input', message, 'Fix or move the file aside, then add the servers again.');
    case 'unknown-server':
      return new CliError('not-found', message, hint`Known servers: ${f.known.join(', ')}. Add one with \`${cmd('server', 'add', f.name, '--url', '<url>')}\`.`);
  }
}

/** Scopes as one shell word: double quotes when nothing in them is special to a shell inside them. */
const quotedScope = (scope: string) => (/^[A-Za-z0-9 _./:@%+=,-]+$/.test(scope) ? `"${scope}"` : shellQuote(scope));

function signInNext(f: SignInFailure): string | Hint {
  const name = f.server;
  switch (f.reason) {
    case 'timeout':
      return hint`Run \`${cmd('server', 'login', name)}\` again and finish the sign-in in the browser (or pass --timeout).`;
    case 'interrupted':
      return hint`Run \`${cmd('server', 'login', name)}\` again.`;
    case 'machine-credentials-empty':
      return hint`Run \`${cmd('server', 'login', name, '--client-credentials')}\` again.`;
    case 'refresh-lock-busy':
      return 'Wait for it to end, then retry.';
    case 'not-in-progress':
      return hint`Run \`${cmd('server', 'login', name)}\`.`;
    case 'still-refused':
      if (f.scope) return hint`Ask the server's operator to grant your account the scopes ${quotedScope(f.scope)}, then run \`${cmd('server', 'login', name, '--scope', quotedScope(f.scope))}\` and retry.`;
      return hint`Ask the server's operator which scopes it needs, then \`${cmd('server', 'login', name, '--scope', '…')}\`.`;
    case 'no-browser':
      if (f.scope) return hint`Sign in again with the scopes the server asked for: \`${cmd('server', 'login', name, '--scope', quotedScope(f.scope))}\`, then retry.`;
      return hint`Run \`${cmd('server', 'login', name)}\` (in CI: \`${cmd('server', 'login', name, '--client-credentials')}\`), then retry.`;
    case 'redirect-port-busy':
      return hint`Run \`${cmd('server', 'login', name)}\`.`;
    case 'refused-by-authorization-server':
      return hint`Check the account and the scopes asked for, then run \`${cmd('server', 'login', name)}\` again.`;
  }
}
