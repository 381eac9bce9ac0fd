// Typed remote failures → one message and the safe next step, with the contract's exit code.
import { CliError, ExitCode } from '../errors.js';
import { ErrorCode } from '../protocol/constants.js';
import { AuthRefusedError, ProtocolViolationError, RpcResponseError, TransportError } from '../protocol/remote-errors.js';
import { sanitize } from '../output/sanitize.js';
import { PromptAbortedError } from '../prompts/prompter.js';

export function toCliError(err: unknown, server?: string): CliError | undefined {
  const on = server ? ` (server "${server}")` : '';
  if (err instanceof CliError) return err;
  if (err instanceof PromptAbortedError) {
    return new CliError('interrupted', 'interrupted at a prompt; nothing more was sent', 'Run the command again when you are ready (`mcp-tasks answer <ref>` for a waiting task); handles are kept.');
  }
  if (err instanceof AuthRefusedError) {
    return new CliError('auth', `${err.message}${on}`, 'Check the token in the variable named by --bearer-env (or the env: headers) and its scopes.');
  }
  if (err instanceof TransportError) {
    return new CliError('unreachable', `cannot reach the server${on}: ${sanitize(err.message, { singleLine: true, maxLength: 400 })}`, server ? `Check that it is running (\`mcp-tasks server check ${server}\`), then retry.` : 'Check that the server is running, then retry.');
  }
  if (err instanceof ProtocolViolationError) {
    return new CliError('protocol', `protocol error from the server${on}: ${sanitize(err.message, { singleLine: true, maxLength: 400 })}`, 'The server does not follow the 2026-07-28 tasks extension here; report it to its maintainers. Nothing was changed locally.');
  }
  if (err instanceof RpcResponseError) {
    const msg = sanitize(err.message, { singleLine: true, maxLength: 400 });
    if (err.isMissingCapability) return new CliError('protocol', `the server requires a client capability${on}: ${msg}`, 'This tool needs a capability mcp-tasks did not declare; see `mcp-tasks server check`.', ExitCode.Unreachable);
    if (err.code === ErrorCode.UnsupportedProtocolVersion) {
      return new CliError('protocol', `the server no longer accepts the protocol version mcp-tasks used${on}: ${msg}`, `It changed since it was last checked: \`mcp-tasks server check ${server ?? '<name>'}\` refreshes what is known about it.`, ExitCode.Unreachable);
    }
    if (err.code === ErrorCode.InvalidParams) return new CliError('invalid-input', `the server rejected the request${on}: ${msg}`, 'Check the arguments against `mcp-tasks tools <server>`.');
    if (err.code === ErrorCode.MethodNotFound) return new CliError('protocol', `the server does not support ${err.method ?? 'this method'}${on}: ${msg}`, 'Check `mcp-tasks server check` for what it supports.');
    return new CliError('protocol', `the server answered with error ${err.code}${on}: ${msg}`, 'Retry later, or contact the server operator.', ExitCode.TaskFailed);
  }
  return undefined;
}
