// `server logout`: RFC 7009 token revocation at the authorization server the sign-in came from.
// The SDK v2 has discovery, the client-authentication choice and the endpoint check, but no
// revocation call, so the one POST per token is ours; everything around it is the SDK's.
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { SignInRecord } from './oauth-store.js';
import { sameIssuer } from '../tasks/principal.js';

type Sdk = typeof import('@modelcontextprotocol/client');

/** What the authorization server said; `revoked` only when it confirmed every token it was sent. */
export type RevocationOutcome =
  | { kind: 'revoked'; tokens: number }
  | { kind: 'not-confirmed'; reason: string }
  | { kind: 'no-endpoint'; reason: string }
  | { kind: 'nothing-to-revoke' };

const REVOCATION_TIMEOUT_MS = 10_000;

/**
 * Revoke the sign-in's refresh token, then its access token (a server that revokes the grant
 * with the refresh token answers 200 for the second too). Never throws: logout deletes the
 * local tokens whatever happens here, and reports what did.
 */
export async function revokeSignIn(sdk: Sdk, record: SignInRecord, machineAuth: OAuthClientProvider | undefined, debug: (line: string) => void): Promise<RevocationOutcome> {
  const tokens = [
    ...(record.tokens?.refresh_token ? [{ token: record.tokens.refresh_token, hint: 'refresh_token' }] : []),
    ...(record.tokens?.access_token ? [{ token: record.tokens.access_token, hint: 'access_token' }] : []),
  ];
  if (tokens.length === 0) return { kind: 'nothing-to-revoke' };
  let metadata: Awaited<ReturnType<Sdk['discoverOAuthServerInfo']>>['authorizationServerMetadata'];
  try {
    metadata = (await sdk.discoverOAuthServerInfo(record.serverUrl)).authorizationServerMetadata;
  } catch (err) {
    return { kind: 'not-confirmed', reason: `its authorization server could not be asked (${short(err)})` };
  }
  // Tokens go back only to the authorization server that issued them (SEP-2352).
  if (record.issuer && metadata?.issuer && !sameIssuer(record.issuer, metadata.issuer)) {
    return { kind: 'not-confirmed', reason: `the server now names another authorization server (${metadata.issuer}) than the one that issued the tokens` };
  }
  // RFC 8414 metadata (the SDK's OpenID-flavoured type does not name the RFC 7009 fields).
  const revocationMeta = (metadata ?? {}) as { revocation_endpoint?: string; revocation_endpoint_auth_methods_supported?: string[] };
  const endpoint = revocationMeta.revocation_endpoint;
  if (!endpoint) return { kind: 'no-endpoint', reason: 'its authorization server advertises no revocation_endpoint' };
  let url: URL;
  try {
    url = sdk.assertSecureTokenEndpoint(new URL(String(endpoint)));
  } catch (err) {
    return { kind: 'not-confirmed', reason: `the revocation endpoint is not usable (${short(err)})` };
  }
  const client = (machineAuth?.clientInformation() ?? record.clientInformation) as { client_id?: string; client_secret?: string; token_endpoint_auth_method?: string } | undefined;
  if (!client?.client_id) return { kind: 'not-confirmed', reason: 'no client registration is stored to authenticate the revocation with' };
  const supported = revocationMeta.revocation_endpoint_auth_methods_supported ?? metadata?.token_endpoint_auth_methods_supported ?? [];
  for (const { token, hint } of tokens) {
    const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
    const params = new URLSearchParams({ token, token_type_hint: hint });
    try {
      if (machineAuth?.addClientAuthentication) await machineAuth.addClientAuthentication(headers, params, url, metadata);
      else authenticate(sdk.selectClientAuthMethod(client as never, supported), client as { client_id: string; client_secret?: string }, headers, params);
      const response = await fetch(url, { method: 'POST', headers, body: params, redirect: 'manual', signal: AbortSignal.timeout(REVOCATION_TIMEOUT_MS) });
      await response.body?.cancel().catch(() => {});
      debug(`revocation of the ${hint.replace('_', ' ')}: HTTP ${response.status}`);
      // RFC 7009 §2.2: 200 for a revoked (or already invalid) token; anything else is no confirmation.
      if (response.status !== 200) return { kind: 'not-confirmed', reason: `the authorization server answered HTTP ${response.status} to the revocation of the ${hint.replace('_', ' ')}` };
    } catch (err) {
      return { kind: 'not-confirmed', reason: `the revocation request failed (${short(err)})` };
    }
  }
  return { kind: 'revoked', tokens: tokens.length };
}

/** The three methods of RFC 6749 §2.3.1 as the SDK applies them to its token requests. */
function authenticate(method: string, client: { client_id: string; client_secret?: string }, headers: Headers, params: URLSearchParams): void {
  if (method === 'client_secret_basic' && client.client_secret) headers.set('authorization', `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`);
  else {
    params.set('client_id', client.client_id);
    if (method === 'client_secret_post' && client.client_secret) params.set('client_secret', client.client_secret);
  }
}

const short = (err: unknown) => {
  const e = err as Error & { cause?: { code?: string } };
  return (e?.cause?.code ?? e?.message ?? String(err)).replace(/[^\x20-\x7e]/g, '').slice(0, 200);
};
