// The typed local failures (vault, servers file, sign-in, connection set-up) as a person sees
// them: each one's kind, exit code, message and next step, decided in app/local-error.ts and
// reached through toCliError, the path main.ts and exitCodeOf take for every thrown error.
// The texts are the ones the lower layers printed before they stopped knowing the CLI.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { toCliError } from '../../../src/app/remote-error.js';
import { exitCodeOf } from '../../../src/app/exit-code.js';
import { presentError } from '../../../src/output/present-error.js';
import { CliError, ExitCode, type ErrorKind, type ExitCodeValue } from '../../../src/errors.js';
import { renderHint } from '../../../src/hint.js';
import { markNotSent, wasNotSent } from '../../../src/protocol/remote-errors.js';
import { AmbiguousRefError, VaultError } from '../../../src/vault/vault-errors.js';
import { VaultKeyError } from '../../../src/vault/vault-crypto.js';
import { ServerConfigError } from '../../../src/servers/server-errors.js';
import { InterruptedBeforeSendError, MissingSecretError, PlainHttpRefusedError, RefusedToolError, SignInError, SignInFileError } from '../../../src/connection/connection-errors.js';

interface Case {
  name: string;
  thrown: Error;
  kind: ErrorKind;
  exit: ExitCodeValue;
  next: string;
}

const key = new VaultKeyError('the vault key file /h/vault.key is missing', 'Restore vault.key from a backup (or set MCP_TASKS_VAULT_KEY if the vault used a passphrase).');
const vault = (failure: ConstructorParameters<typeof VaultError>[0], next: string): Case => ({ name: `vault: ${failure.reason}`, thrown: new VaultError(failure, `vault failure ${failure.reason}`), kind: 'vault', exit: ExitCode.VaultError, next });
const signIn = (failure: ConstructorParameters<typeof SignInError>[0], next: string, kind: ErrorKind = 'auth'): Case => ({
  name: `sign-in: ${failure.reason}`,
  thrown: new SignInError(failure, `sign-in failure ${failure.reason}`),
  kind,
  exit: kind === 'interrupted' ? ExitCode.Interrupted : ExitCode.AuthRefused,
  next,
});

const CASES: Case[] = [
  vault({ reason: 'unreadable' }, 'Check the permissions of your mcp-tasks home (it should be yours, mode 0700).'),
  vault({ reason: 'corrupt' }, 'Restore it from a backup, or move it aside to start an empty vault (its handles would be lost).'),
  vault({ reason: 'newer-format' }, 'Upgrade mcp-tasks to read it.'),
  vault({ reason: 'key', key }, key.next),
  vault({ reason: 'unopenable' }, 'Restore it (and its key) from a backup.'),
  vault({ reason: 'lock-unusable', lockPath: '/h/vault.json.lock' }, 'If no mcp-tasks command is running, remove /h/vault.json.lock and retry.'),
  vault({ reason: 'locked', lockPath: '/h/vault.json.lock' }, 'Wait for it to finish and retry; a lock left by a crashed process is taken over automatically.'),
  vault({ reason: 'record-corrupt', path: '/h/vault-x.d/ab/cd' }, 'Restore it from a backup, or move it aside with `mcp-tasks vault check --repair` (it keeps the file; that one task\'s handle would be lost to the vault).'),
  vault({ reason: 'no-space' }, 'Free space on that file system, or point --home elsewhere.'),
  vault({ reason: 'not-writable' }, 'Make the mcp-tasks home writable, or point --home elsewhere.'),
  vault({ reason: 'home-unusable' }, 'Point --home (or MCP_TASKS_HOME) at a directory you can write.'),
  { name: 'ambiguous ref', thrown: new AmbiguousRefError('abcdef', 2, '"abcdef" matches 2 vault records: …'), kind: 'invalid-input', exit: ExitCode.Usage, next: 'Give a longer prefix of the taskId.' },
  { name: 'servers: invalid name', thrown: new ServerConfigError({ reason: 'invalid-name', name: 'a b' }, 'invalid server name "a b"'), kind: 'invalid-input', exit: ExitCode.Usage, next: 'Use letters, digits, ".", "_" or "-" (up to 64 characters), starting with a letter or digit.' },
  { name: 'servers: reserved name', thrown: new ServerConfigError({ reason: 'reserved-name', name: 'demo' }, '"demo" is the built-in demo server and cannot be redefined'), kind: 'invalid-input', exit: ExitCode.Usage, next: 'Pick another name.' },
  { name: 'servers: unreadable', thrown: new ServerConfigError({ reason: 'unreadable', path: '/h/servers.json' }, 'cannot read /h/servers.json: EACCES'), kind: 'invalid-input', exit: ExitCode.Usage, next: 'Check the file permissions of your mcp-tasks home.' },
  { name: 'servers: not JSON', thrown: new ServerConfigError({ reason: 'not-json', path: '/h/servers.json' }, '/h/servers.json is not valid JSON; it was left untouched'), kind: 'invalid-input', exit: ExitCode.Usage, next: 'Fix or move the file aside, then add the servers again.' },
  { name: 'servers: unknown server', thrown: new ServerConfigError({ reason: 'unknown-server', name: 'nope', known: ['demo', 'ci'] }, 'no server named "nope"'), kind: 'not-found', exit: ExitCode.Usage, next: 'Known servers: demo, ci. Add one with `mcp-tasks server add nope --url <url>`.' },
  signIn({ reason: 'timeout', server: 'ai' }, 'Run `mcp-tasks server login ai` again and finish the sign-in in the browser (or pass --timeout).'),
  signIn({ reason: 'interrupted', server: 'ai' }, 'Run `mcp-tasks server login ai` again.', 'interrupted'),
  signIn({ reason: 'machine-credentials-empty', server: 'ai' }, 'Run `mcp-tasks server login ai --client-credentials` again.'),
  signIn({ reason: 'refresh-lock-busy', server: 'ai' }, 'Wait for it to end, then retry.'),
  signIn({ reason: 'not-in-progress', server: 'ai' }, 'Run `mcp-tasks server login ai`.'),
  signIn({ reason: 'still-refused', server: 'ai' }, "Ask the server's operator which scopes it needs, then `mcp-tasks server login ai --scope …`."),
  signIn({ reason: 'no-browser', server: 'ai' }, 'Run `mcp-tasks server login ai` (in CI: `mcp-tasks server login ai --client-credentials`), then retry.'),
  signIn({ reason: 'redirect-port-busy', server: 'ai' }, 'Run `mcp-tasks server login ai`.'),
  signIn({ reason: 'refused-by-authorization-server', server: 'ai' }, 'Check the account and the scopes asked for, then run `mcp-tasks server login ai` again.'),
  { name: 'sign-in file: key', thrown: new SignInFileError({ reason: 'key', key }, 'the sign-in file /h/oauth/ai.json cannot be opened: …'), kind: 'vault', exit: ExitCode.VaultError, next: key.next },
  { name: 'sign-in file: unreadable', thrown: new SignInFileError({ reason: 'unreadable' }, 'cannot read the sign-in file /h/oauth/ai.json: EACCES'), kind: 'vault', exit: ExitCode.VaultError, next: 'Check the permissions of your mcp-tasks home.' },
  { name: 'sign-in file: damaged', thrown: new SignInFileError({ reason: 'damaged', server: 'ai' }, 'the sign-in file /h/oauth/ai.json is damaged'), kind: 'vault', exit: ExitCode.VaultError, next: 'Run `mcp-tasks server logout ai`, then `mcp-tasks server login ai`.' },
  { name: 'secret variable not set', thrown: new MissingSecretError('ai', 'AI_TOKEN', 'server "ai" takes its bearer token from $AI_TOKEN, which is not set'), kind: 'auth', exit: ExitCode.AuthRefused, next: 'Export AI_TOKEN in this shell, then retry.' },
  { name: 'plain http refused', thrown: new PlainHttpRefusedError('example.com', 'refusing plain http:// to example.com: …'), kind: 'invalid-input', exit: ExitCode.Usage, next: 'Use https://, or re-add the server with --allow-http if this network is trusted.' },
  { name: 'interrupted before sending', thrown: new InterruptedBeforeSendError('tools/call', 'interrupted before tools/call was sent; nothing was sent'), kind: 'interrupted', exit: ExitCode.Interrupted, next: 'Run the command again when you are ready; nothing was started.' },
  {
    name: 'tool refused',
    thrown: new RefusedToolError('ai', 'bad', 'server "ai" declares tool "bad" with an invalid x-mcp-header …'),
    kind: 'invalid-input',
    exit: ExitCode.Usage,
    next: 'Nothing was sent. The tool definition breaks the 2026-07-28 spec (Streamable HTTP, "Custom Headers from Tool Parameters"); report it to the server\'s operator.',
  },
];

describe('typed local failures → kind, exit code, message and next step', () => {
  for (const c of CASES) {
    test(c.name, () => {
      const e = toCliError(c.thrown, 'some-server', 'some-ref');
      assert.ok(e instanceof CliError, `${c.thrown.name} is not mapped`);
      assert.equal(e.kind, c.kind);
      assert.equal(e.exitCode, c.exit);
      assert.equal(e.message, c.thrown.message, 'the message is the one thrown, unchanged');
      assert.equal(renderHint(e.next, 'mcp-tasks'), c.next);
      // The same with no server known (main.ts's last resort): the local hint does not depend on it.
      assert.deepEqual({ ...toCliError(c.thrown) }, { ...e });
      assert.equal(exitCodeOf(c.thrown), c.exit, 'exitCodeOf the thrown error itself');
    });
  }

  test('the --json error document is the CliError one', () => {
    let stdout = '';
    presentError({ json: true, verbose: false, stdout: { write: (t) => (stdout += t) }, stderr: { write: () => {} } }, toCliError(CASES.find((c) => c.name === 'servers: unknown server')!.thrown)!);
    assert.deepEqual(JSON.parse(stdout), { error: { kind: 'not-found', message: 'no server named "nope"', next: 'Known servers: demo, ci. Add one with `mcp-tasks server add nope --url <url>`.' } });
  });

  test('"nothing was sent" stays with the mapped error (a submission knows it created nothing)', () => {
    const thrown = markNotSent(new InterruptedBeforeSendError('tools/call', 'interrupted before tools/call was sent; nothing was sent'));
    assert.ok(wasNotSent(toCliError(thrown)));
    assert.ok(!wasNotSent(toCliError(new PlainHttpRefusedError('example.com', 'x'))));
  });
});
