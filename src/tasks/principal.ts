// Who a task belongs to on a signed-in server: the principal of the sign-in it was created under.
// A task handle is a bearer handle scoped by the server to that principal, so it only goes out
// under the same one, and a server that does not know the task under another principal says
// nothing about whether the task still exists (never "lost"). Pure: no I/O.

/**
 * subject: the id_token's `sub` (a person, as the authorization server names them).
 * client:  a client-credentials sign-in: the machine is its client id.
 * grant:   only an opaque access token: the grant itself (a random id minted when an
 *          authorization code was redeemed and carried through every refresh), so two sign-ins
 *          are known to be the same only when they are the same grant.
 */
export type Principal =
  | { issuer: string; kind: 'subject'; subject: string; clientId?: string }
  | { issuer: string; kind: 'client'; clientId: string }
  | { issuer: string; kind: 'grant'; grant: string; clientId?: string };

/** same: the same principal; different: provably another one; unknown: cannot tell (two grants, no subject). */
export type PrincipalMatch = 'same' | 'different' | 'unknown';

/** RFC 8414 issuers, with the one trailing-slash tolerance the SDK applies. */
/** Issuers compare equal with or without a trailing slash. */
export const sameIssuer = (a: string, b: string) => a === b || a.replace(/\/$/, '') === b.replace(/\/$/, '');

/** `current` undefined: no sign-in is stored now, which is not the principal the task was created under. */
export function comparePrincipals(created: Principal, current: Principal | undefined): PrincipalMatch {
  if (!current) return 'different';
  if (!sameIssuer(created.issuer, current.issuer)) return 'different';
  if (created.kind === 'client' || current.kind === 'client') {
    return created.kind === 'client' && current.kind === 'client' && created.clientId === current.clientId ? 'same' : 'different';
  }
  if (created.kind === 'subject' && current.kind === 'subject') return created.subject === current.subject ? 'same' : 'different';
  if (created.kind === 'grant' && current.kind === 'grant' && created.grant === current.grant) return 'same';
  return 'unknown';
}

/** A few words for a person (server text inside: the caller sanitises). */
export function describePrincipal(p: Principal | undefined): string {
  if (!p) return 'no sign-in';
  switch (p.kind) {
    case 'subject':
      return `subject "${p.subject}" at ${p.issuer}`;
    case 'client':
      return `client "${p.clientId}" at ${p.issuer}`;
    case 'grant':
      // Said of the current sign-in (`server show`) as much as of the one a task was created under.
      return `sign-in grant ${p.grant.slice(0, 8)} at ${p.issuer} (no subject named)`;
  }
}

/**
 * The stored sign-in is provably another principal than the one a task was created under: the
 * task's handle was not sent (thrown before any request, or instead of resending after an
 * in-place sign-in that came back as someone else).
 */
export class OtherPrincipalError extends Error {
  constructor(
    readonly created: Principal,
    readonly current: Principal | undefined,
  ) {
    super(`the task was created under ${describePrincipal(created)}, and the stored sign-in is ${describePrincipal(current)}`);
    this.name = 'OtherPrincipalError';
  }
}
