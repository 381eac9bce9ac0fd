// Typed remote failures → one message and the safe next step, with the contract's exit code;
// typed local ones (vault, servers file, sign-in) through local-error.ts.
import { CliError, ExitCode } from '../errors.js';
import { ErrorCode, MODERN_PROTOCOL_VERSION } from '../protocol/constants.js';
import { AuthRefusedError, ProtocolViolationError, RpcResponseError, TransportError } from '../protocol/remote-errors.js';
import { sanitize } from '../output/sanitize.js';
import { PromptAbortedError } from '../prompts/prompter.js';
import { declaresAll, missingCapabilityNames } from '../connection/client-capabilities.js';
import { NoToolsError, UnsupportedGenerationError } from '../session/task-session.js';
import { RequestRejectedError } from '../session/rejection.js';
import { OtherPrincipalError } from '../tasks/principal.js';
import { toLocalCliError } from './local-error.js';
import { ResolvedRecordError } from './in-doubt.js';
import { resolutionExitCode } from '../tasks/outcome.js';
import { cmd, hint, type Hint } from '../hint.js';

/** A server without tools (`tool`: the one asked for): a refusal before anything was sent, like an unknown tool (exit 1). */
export function noToolsError(err: NoToolsError, tool?: string): CliError {
  const names = err.capabilities.filter((c) => c !== 'extensions' && c !== 'experimental').map((c) => sanitize(c, { singleLine: true, maxLength: 40 }));
  const offers = names.length ? ` (it offers ${names.join(', ')})` : '';
  const none = tool === undefined ? '' : `, so none is called "${sanitize(tool, { singleLine: true, maxLength: 80 })}"; nothing was sent`;
  return new CliError('not-found', `server "${err.serverName}" offers no tools${offers}${none}`, hint`See what it offers: \`${cmd('server', 'check', err.serverName)}\`.`);
}

/** After a 401/403: the next step is about the credential the request carried (a sign-in when it carried none). */
function authRefusedNext(err: AuthRefusedError, server: string | undefined): string | Hint {
  const c = err.credential;
  const login = server ? hint`\`${cmd('server', 'login', server)}\`` : hint`\`${cmd('server', 'login')}\` with the server's name`;
  switch (c?.kind) {
    case 'bearer':
      return `Check the token in $${c.variable} (the entry's --bearer-env) and its scopes.`;
    case 'env-headers':
      return hint`Check the credentials the entry's env: headers read${server ? hint` (\`${cmd('server', 'show', server)}\`)` : ''} and their scopes.`;
    case 'sign-in':
      return hint`The stored sign-in was refused: run ${login} again, then retry.`;
    case 'none':
      return hint`The server needs a sign-in: run ${login}, then retry.`;
    default:
      return 'Check the token in the variable named by --bearer-env (or the env: headers) and its scopes.';
  }
}

/**
 * `server` and `ref` (what to type to come back to the task, when one exists) make the next step
 * a command that runs as printed; without them the hint names no placeholder. `inVault` false: the
 * taskId was given ad hoc (`get <id> --server S`), so no handle is kept for it.
 */
export function toCliError(err: unknown, server?: string, ref?: string, inVault = true): CliError | undefined {
  const on = server ? ` (server "${server}")` : '';
  const checkServer = server ? hint`\`${cmd('server', 'check', server)}\`` : hint`\`${cmd('server', 'list')}\` (then \`server check\` on the one you used)`;
  const getTask = ref ? hint`\`${cmd('get', ref)}\`` : hint`\`${cmd('list')}\``;
  if (err instanceof CliError) return err;
  const local = toLocalCliError(err);
  if (local) return local;
  if (err instanceof ResolvedRecordError) {
    const r = err.record;
    return new CliError('invalid-input', `${err.message}${r.resolution?.note ? ` (${r.resolution.note})` : ''}; nothing was sent`, hint`Its history: \`${cmd('show', r.opId.slice(0, 8))}\`. To send the operation again on purpose: \`${cmd('recover', r.opId.slice(0, 8), '--resubmit', '--force')}\`.`, resolutionExitCode(r.resolution?.outcome));
  }
  if (err instanceof PromptAbortedError) {
    return new CliError('interrupted', 'interrupted at a prompt; nothing more was sent', ref
        ? hint`The task exists and keeps its handle: answer it when you are ready with \`${cmd('answer', ref)}\` (do not run the call again: that would start a second task).`
        : 'Nothing was started on the server: run the same command again when you are ready.');
  }
  if (err instanceof NoToolsError) return noToolsError(err);
  if (err instanceof UnsupportedGenerationError) {
    return new CliError('protocol', err.message, `Upgrade the server to ${MODERN_PROTOCOL_VERSION}, or use a client that speaks the 2025-11-25 tasks API for it.`);
  }
  if (err instanceof OtherPrincipalError) {
    return new CliError('auth', `${sanitize(err.message, { singleLine: true, maxLength: 400 })}; the task handle was not sent`, server ? hint`Run \`${cmd('server', 'login', server)}\` as the account that created the task, then retry.` : 'Sign in as the account that created the task, then retry.');
  }
  if (err instanceof RequestRejectedError) return rejectionError(err, on, ref);
  if (err instanceof AuthRefusedError) return new CliError('auth', `${err.message}${on}`, authRefusedNext(err, server));
  if (err instanceof TransportError) {
    return new CliError('unreachable', `cannot reach the server${on}: ${sanitize(err.message, { singleLine: true, maxLength: 400 })}`, server ? hint`Check that it is running (\`${cmd('server', 'check', server)}\`), then retry.` : 'Check that the server is running, then retry.');
  }
  if (err instanceof ProtocolViolationError) {
    return new CliError('protocol', `protocol error from the server${on}: ${sanitize(err.message, { singleLine: true, maxLength: 400 })}`, 'The server does not follow the 2026-07-28 tasks extension here; report it to its maintainers. Nothing was changed locally.');
  }
  if (err instanceof RpcResponseError) {
    const msg = sanitize(err.message, { singleLine: true, maxLength: 400 });
    if (err.isMissingCapability) return missingCapabilityError(err, on, server);
    if (err.code === ErrorCode.UnsupportedProtocolVersion) {
      return new CliError('protocol', `the server no longer accepts the protocol version mcp-tasks used${on}: ${msg}`, hint`It changed since it was last checked: ${checkServer} refreshes what is known about it.`, ExitCode.Unreachable);
    }
    if (err.code === ErrorCode.HeaderMismatch) {
      // -32020: the HTTP headers did not match the body, so the server admitted nothing.
      return new CliError('protocol', `the server did not admit the request${on}: header mismatch (error -32020): ${msg}`, hint`Nothing was started or changed, so it is safe to retry; if it persists, run ${checkServer} and report it to the server's operator.`, ExitCode.Unreachable);
    }
    if (err.method === 'tasks/update' && err.code === ErrorCode.InvalidParams) {
      // Unknown task, a task no longer waiting, or responses it does not accept: the answer was not taken.
      return new CliError('invalid-input', `the server refused the answer${on}: ${msg}`, hint`Nothing was recorded as answered. ${getTask} shows what the task is waiting for now.`);
    }
    if (err.isUnknownTask) {
      return new CliError('lost', `the server no longer knows this task${on}: ${msg}`, "Its outcome was not observed; check the server's own records before resubmitting.");
    }
    if (err.code === ErrorCode.MethodNotFound) return new CliError('protocol', `the server does not support ${err.method ?? 'this method'}${on}: ${msg}`, hint`Check ${checkServer} for what it supports.`);
    if (err.method?.startsWith('tasks/') && !inVault) {
      // Some 2025-11-25 servers answer an id they never issued with -32603: nothing to keep, nothing known.
      return new CliError('protocol', `the server answered ${err.method} with error ${err.code}${on}: ${msg}; this taskId is not in the vault, and the server did not recognise it`, hint`Check the taskId and that it was created on this server; nothing was recorded. A task from another machine comes over with \`${cmd('export')}\` there and \`${cmd('import')}\` here.`);
    }
    if (err.method?.startsWith('tasks/')) {
      // An error about a request on the task is not the task failing: its state was not observed.
      return new CliError('protocol', `the server answered ${err.method} with error ${err.code}${on}: ${msg}; the task's state was not observed, and its handle is kept`, hint`Try again later (${getTask}); if it persists, report it to the server's operator.`);
    }
    if (err.code === ErrorCode.InvalidParams) return new CliError('invalid-input', `the server rejected the request${on}: ${msg}`, server ? hint`Check the arguments against \`${cmd('tools', server)}\`.` : hint`Check the arguments against the tool's schema (\`${cmd('tools')}\` with the server's name).`);
    // The call itself was answered with a JSON-RPC error: the operation failed, and no task exists.
    return new CliError('protocol', `the server answered with error ${err.code}${on}: ${msg}`, 'Retry later, or contact the server operator.', ExitCode.TaskFailed);
  }
  return undefined;
}

/** A request the server refused on a task that tasks/get still shows: nothing changed, nothing is lost. */
function rejectionError(err: RequestRejectedError, on: string, ref?: string): CliError {
  const msg = sanitize(err.serverMessage, { singleLine: true, maxLength: 400 });
  const status = err.snapshot.status;
  if (err.method === 'tasks/update') {
    const fix = ref ? hint`\`${cmd('answer', ref, '--template')}\` shows what it asks; fix the answer and send it again with \`${cmd('answer', ref)}\`` : 'Fix the answer and send it again';
    return new CliError('invalid-input', `the server refused the answer${on} (error ${err.code}: ${msg}); the task is still ${status}, and nothing was recorded as answered`, hint`${fix} (no key was used up).`);
  }
  const look = ref ? hint`\`${cmd('get', ref)}\` shows its state; \`${cmd('cancel', ref)}\` asks again` : 'Check its state, then ask again';
  return new CliError('invalid-input', `the server refused the cancel${on} (error ${err.code}: ${msg}); the task is still ${status}, and its handle is kept`, hint`${look}.`);
}

/** `-32021`: name what the server says is missing (from `data.requiredCapabilities`), or say it named nothing. */
function missingCapabilityError(err: RpcResponseError, on: string, server?: string): CliError {
  const names = missingCapabilityNames(err.data)?.map((n) => sanitize(n, { singleLine: true, maxLength: 80 }));
  const check = server ? hint`\`${cmd('server', 'check', server)}\`` : hint`\`${cmd('server', 'list')}\``;
  if (!names || names.length === 0) {
    const msg = sanitize(err.message, { singleLine: true, maxLength: 200 });
    return new CliError('protocol', `the server requires a client capability${on} but did not name it (error ${err.code} without data.requiredCapabilities): ${msg}`, hint`Nothing was run. Ask the server's operator which capability it needs; ${check} shows what it advertises.`, ExitCode.Unreachable);
  }
  const what = names.join(', ');
  if (declaresAll(err.data)) {
    return new CliError('protocol', `the server says the client capability ${what} is missing${on}, but mcp-tasks declares it in every request`, hint`Nothing was run. The server does not read the request's clientCapabilities; report it to its operator (${check}).`, ExitCode.Unreachable);
  }
  return new CliError('protocol', `the server requires the client capability ${what}${on}, which mcp-tasks does not implement`, err.method === 'tools/call' ? hint`Nothing was run. This tool cannot be used from mcp-tasks; ${check} lists the server's tools.` : hint`Nothing was changed. mcp-tasks cannot serve what the server asks for here; ${check} shows what it advertises.`, ExitCode.Unreachable);
}

/** Run `fn`; a remote failure is reported naming the server it came from. */
export async function withServerName<T>(server: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toCliError(err, server) ?? err;
  }
}
