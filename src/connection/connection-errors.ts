// What went wrong before or while signing in or connecting, with the facts (server, variable,
// host, tool); app/local-error.ts decides the exit code and the next step a person reads,
// which names mcp-tasks commands this layer does not know.
import type { VaultKeyError } from '../vault/vault-crypto.js';

/** An environment variable the server's entry reads a secret from is not set. */
export class MissingSecretError extends Error {
  constructor(
    readonly server: string,
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'MissingSecretError';
  }
}

/** Plain http:// to a host that is not this machine, without --allow-http on the entry. */
export class PlainHttpRefusedError extends Error {
  constructor(
    readonly host: string,
    message: string,
  ) {
    super(message);
    this.name = 'PlainHttpRefusedError';
  }
}

/** Interrupted before the request was written: nothing was sent. */
export class InterruptedBeforeSendError extends Error {
  constructor(
    readonly method: string,
    message: string,
  ) {
    super(message);
    this.name = 'InterruptedBeforeSendError';
  }
}

/** A tool whose x-mcp-header declarations break the spec: refused before anything is sent. */
export class RefusedToolError extends Error {
  constructor(
    readonly server: string,
    readonly tool: string,
    message: string,
  ) {
    super(message);
    this.name = 'RefusedToolError';
  }
}

/** Every sign-in failure names its server: the next step is a command for that server. */
export type SignInFailure = {
  reason: 'timeout' | 'interrupted' | 'machine-credentials-empty' | 'refresh-lock-busy' | 'not-in-progress' | 'still-refused' | 'no-browser' | 'redirect-port-busy' | 'refused-by-authorization-server';
  server: string;
  /** The scopes the server asked for (a 403 insufficient_scope), when beyond the current sign-in's. */
  scope?: string;
};

/** A sign-in (browser, machine credentials, refresh) that did not complete. */
export class SignInError extends Error {
  constructor(
    readonly failure: SignInFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SignInError';
  }
}

export type SignInFileFailure = { reason: 'key'; key: VaultKeyError } | { reason: 'unreadable' } | { reason: 'damaged'; server: string };

/** A stored sign-in (home/oauth/<server>.json) that cannot be read. */
export class SignInFileError extends Error {
  constructor(
    readonly failure: SignInFileFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SignInFileError';
  }
}

/** This layer's own typed failures: passed through as they are when the SDK's errors are mapped. */
export const isConnectionFailure = (err: unknown): err is Error =>
  err instanceof MissingSecretError || err instanceof PlainHttpRefusedError || err instanceof InterruptedBeforeSendError || err instanceof RefusedToolError || err instanceof SignInError || err instanceof SignInFileError;
