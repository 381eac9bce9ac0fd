// What went wrong with a server's name or the servers file, with the facts;
// app/local-error.ts decides the exit code and the next step a person reads.

export type ServerConfigFailure =
  | { reason: 'invalid-name'; name: string }
  | { reason: 'reserved-name'; name: string }
  | { reason: 'unreadable'; path: string }
  | { reason: 'not-json'; path: string }
  | { reason: 'unknown-server'; name: string; known: string[] };

export class ServerConfigError extends Error {
  constructor(
    readonly failure: ServerConfigFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ServerConfigError';
  }
}
