// The use cases behind `server login | logout`: OAuth 2.1 sign-in for an HTTP server, through the SDK's own `auth`.
// Also the sign-in lines of `server add` (does the server ask for one?) and `server show`.
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { toLocalCliError } from './local-error.js';
import type { Outcome } from './outcomes.js';
import { sanitize } from '../output/sanitize.js';
import { ServerStore } from '../servers/server-store.js';
import type { HttpServerEntry, ServerEntry } from '../servers/server-entry.js';
import { describeSignIn, readSignIn, removeSignIn, type SignInRecord } from '../connection/oauth-store.js';
import { cmd, hint } from '../hint.js';

export interface SignInOptions {
  scope?: string;
  /** False: print the sign-in URL instead of opening a browser (--no-browser). */
  browser?: boolean;
  clientId?: string;
  clientSecretEnv?: string;
  clientKeyEnv?: string;
  clientKeyAlg?: string;
  clientMetadataUrl?: string;
  clientCredentials?: boolean;
  /** How long to wait for the browser sign-in. */
  timeoutMs?: number;
}

const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Static headers only: a probe never sends credentials. */
const plainHeaders = (entry: HttpServerEntry) => Object.fromEntries(Object.entries(entry.headers ?? {}).filter(([, v]) => !v.startsWith('env:')));

function httpEntry(name: string, ctx: Context): HttpServerEntry {
  const entry = new ServerStore(ctx.home).get(name);
  if (entry.transport !== 'http') throw new CliError('invalid-input', `server "${name}" is a stdio server; sign-in applies to HTTP servers`, 'Pass credentials to a stdio server with --env KEY.');
  return entry;
}

function readEnvSecret(flag: string, variable: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (variable === undefined) return undefined;
  if (!ENV_NAME.test(variable)) throw new CliError('usage', `${flag} takes the name of an environment variable, and this is not one (the value is not repeated here in case it is a secret)`, `Pass the name, e.g. ${flag} MY_SECRET.`);
  const value = env[variable];
  if (!value) throw new CliError('auth', `${flag} names $${variable}, which is not set`, `Export ${variable} in this shell, then retry.`);
  return value;
}

/**
 * Whether a dynamic registration's `scope` (RFC 7591) covers every scope asked for now; a
 * registration that names none restricts nothing.
 */
function coversScope(registered: unknown, asked: string): boolean {
  if (typeof registered !== 'string') return true;
  const have = new Set(registered.split(/\s+/));
  return asked.split(/\s+/).every((t) => !t || have.has(t));
}

/** Whatever the SDK threw during a sign-in, as one line and the next step. */
function signInFailure(err: unknown, name: string): Error {
  if (err instanceof CliError) return err;
  const local = toLocalCliError(err);
  if (local) return local;
  const e = err as Error & { cause?: { code?: string } };
  if (e instanceof TypeError && /fetch failed/.test(e.message)) {
    return new CliError('unreachable', `cannot reach the server or its authorization server (server "${name}"): ${e.cause?.code ?? 'network error'}`, hint`Check the URL (\`${cmd('server', 'show', name)}\`) and the network, then retry.`);
  }
  return new CliError('auth', `sign-in to server "${name}" failed: ${sanitize(e?.message ?? String(err), { singleLine: true, maxLength: 400 })}`, hint`Check the server's sign-in settings, then run \`${cmd('server', 'login', name)}\` again.`);
}

type SdkModule = typeof import('@modelcontextprotocol/client');
type OAuthModule = typeof import('../connection/oauth-provider.js');
type AuthParams = { serverUrl: string; resourceMetadataUrl?: URL; scope?: string };

/** `server login NAME`: a browser (authorization code) or machine (client credentials) sign-in. */
export async function signIn(ctx: Context, name: string, opts: SignInOptions): Promise<Outcome> {
  const entry = httpEntry(name, ctx);
  refuseSignIn(ctx, entry, opts);
  const sdk = await import('@modelcontextprotocol/client');
  const oauth = await import('../connection/oauth-provider.js');
  const probe = await oauth.probeServerAuth(sdk, entry.url, plainHeaders(entry), 15_000, { metadataEvenIfAdmitted: true });
  ctx.debug(`sign-in probe: ${probe ? `HTTP ${probe.status}${probe.requiresSignIn ? ', sign-in asked for' : ''}` : 'no answer'}`);
  if (probe && !probe.requiresSignIn && probe.status !== undefined && probe.status < 400) {
    throw new CliError('invalid-input', `server "${name}" does not ask for a sign-in (it answered without one and publishes no protected-resource metadata)`, hint`Use it as it is: \`${cmd('server', 'check', name)}\`.`);
  }
  const scope = opts.scope ?? probe?.scope;
  const baseAuth: AuthParams = {
    serverUrl: entry.url,
    ...(probe?.resourceMetadataUrl ? { resourceMetadataUrl: probe.resourceMetadataUrl } : {}),
    ...(scope ? { scope } : {}),
  };
  let record: SignInRecord;
  try {
    record = opts.clientCredentials ? await machineSignIn(ctx, sdk, oauth, entry, opts, baseAuth) : await browserSignIn(ctx, sdk, oauth, entry, opts, baseAuth);
  } catch (err) {
    throw signInFailure(err, name);
  }
  return { kind: 'signed-in', server: name, issuer: record.issuer, view: describeSignIn(record, ctx.now()) };
}

/** What makes a sign-in pointless or impossible, before anything is asked of the server. */
function refuseSignIn(ctx: Context, entry: HttpServerEntry, opts: SignInOptions): void {
  const name = entry.name;
  if (ctx.storedAuthOnly) throw new CliError('auth', '--stored-auth-only never starts a sign-in', hint`Run \`${cmd('server', 'login', name)}\` without --stored-auth-only.`);
  if (entry.bearerEnv) throw new CliError('invalid-input', `server "${name}" takes a bearer token from $${entry.bearerEnv}; a sign-in would never be used`, hint`Re-add it without --bearer-env (\`${cmd('server', 'add', name, '--url', '…', '--force')}\`), then sign in.`);
  if (opts.clientMetadataUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(opts.clientMetadataUrl);
    } catch { /* reported below */ }
    if (!u || u.protocol !== 'https:' || u.pathname === '/') throw new CliError('usage', '--client-metadata-url must be an https:// URL with a path', 'e.g. --client-metadata-url https://example.com/mcp-tasks/client.json');
  }
}

/** Client credentials (a client secret, or a private key for private_key_jwt), for a machine. */
async function machineSignIn(ctx: Context, sdk: SdkModule, oauth: OAuthModule, entry: HttpServerEntry, opts: SignInOptions, baseAuth: AuthParams): Promise<SignInRecord> {
  const name = entry.name;
  if (!opts.clientId) throw new CliError('usage', '--client-credentials needs --client-id', `e.g. server login ${name} --client-credentials --client-id ID --client-secret-env SECRET_VAR`);
  const secret = readEnvSecret('--client-secret-env', opts.clientSecretEnv, ctx.env);
  const pem = readEnvSecret('--client-key-env', opts.clientKeyEnv, ctx.env);
  if (!secret && !pem) throw new CliError('usage', '--client-credentials needs --client-secret-env VAR (a client secret) or --client-key-env VAR (a PEM private key for private_key_jwt)', 'The secret is read from the variable you name, never from the command line.');
  if (pem) {
    try {
      oauth.signingAlgorithm(pem);
    } catch {
      throw new CliError('invalid-input', `$${opts.clientKeyEnv} does not hold a PEM private key`, 'Put the PEM text of the private key in that variable.');
    }
  }
  const record = oauth.newSignInRecord(name, entry.url, 'client_credentials');
  record.machine = {
    clientId: opts.clientId,
    ...(secret ? { clientSecret: secret, secretEnv: opts.clientSecretEnv! } : {}),
    ...(pem ? { privateKeyPem: pem, keyEnv: opts.clientKeyEnv!, ...(opts.clientKeyAlg ? { algorithm: opts.clientKeyAlg } : {}) } : {}),
  };
  if (opts.scope) record.scope = opts.scope;
  // The machine's credentials go only to the authorization server found now (SEP-2352):
  // later sign-ins refuse another one.
  const info = await sdk.discoverOAuthServerInfo(entry.url, baseAuth.resourceMetadataUrl ? { resourceMetadataUrl: baseAuth.resourceMetadataUrl } : {});
  record.issuer = info.authorizationServerMetadata?.issuer ?? String(info.authorizationServerUrl);
  const provider = new oauth.StoredSignInProvider(sdk, oauth.signInIO(ctx), record);
  const result = await sdk.auth(provider, baseAuth);
  if (result !== 'AUTHORIZED') throw new CliError('auth', `the authorization server did not issue a token to client ${opts.clientId}`, 'Check the client id, secret and scopes.');
  return provider.current;
}

/** Authorization code with PKCE, through a browser and a loopback redirect (the SDK's own auth). */
async function browserSignIn(ctx: Context, sdk: SdkModule, oauth: OAuthModule, entry: HttpServerEntry, opts: SignInOptions, baseAuth: AuthParams): Promise<SignInRecord> {
  const name = entry.name;
  const previous = readSignIn(ctx.home, name, ctx.env);
  const same = previous?.serverUrl === entry.url && previous.kind === 'authorization_code' ? previous : undefined;
  const record: SignInRecord = same ? { ...same } : oauth.newSignInRecord(name, entry.url, 'authorization_code');
  delete record.tokens;
  delete record.codeVerifier;
  // Signing in again without --client-id: a pre-registered client stays.
  if (opts.clientId) {
    const secret = readEnvSecret('--client-secret-env', opts.clientSecretEnv, ctx.env);
    record.clientInformation = { client_id: opts.clientId, ...(secret ? { client_secret: secret } : {}) };
    record.preRegistered = true;
  }
  if (opts.clientMetadataUrl) record.clientMetadataUrl = opts.clientMetadataUrl;
  if (opts.scope) record.scope = opts.scope;
  const loopback = new oauth.LoopbackRedirect();
  const registeredPort = record.redirectUri ? Number(new URL(record.redirectUri).port) || undefined : undefined;
  await loopback.listen(registeredPort);
  // A dynamic registration names the old redirect port: register again rather than be refused.
  if (record.redirectUri && record.redirectUri !== loopback.redirectUri && !record.preRegistered && record.clientInformation && record.clientInformation.client_id !== record.clientMetadataUrl) delete record.clientInformation;
  // Likewise a dynamic registration for fewer scopes than now asked (a step-up after a 403
  // insufficient_scope): the authorization server would refuse the new ones to that client.
  if (opts.scope && !record.preRegistered && record.clientInformation && record.clientInformation.client_id !== record.clientMetadataUrl && !coversScope(record.clientInformation.scope, opts.scope)) delete record.clientInformation;
  const plan = oauth.browserPlan(ctx.env, ctx.interactive && ctx.stderr.isTTY, opts.browser === false);
  const provider = new oauth.StoredSignInProvider(sdk, oauth.signInIO(ctx), record, { plan, timeoutMs: opts.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS, loopback });
  try {
    let result = await sdk.auth(provider, { ...baseAuth, forceReauthorization: true });
    if (result === 'REDIRECT') {
      const params = await provider.awaitCallback();
      await oauth.finishSignIn(name, params, async (p) => {
        result = await sdk.auth(provider, { ...baseAuth, authorizationCode: p.get('code') ?? '', ...(p.get('iss') !== null ? { iss: p.get('iss')! } : {}) });
      });
    }
    if (result !== 'AUTHORIZED') throw new CliError('auth', `the sign-in to server "${name}" did not complete`, hint`Run \`${cmd('server', 'login', name)}\` again.`);
  } finally {
    loopback.close();
  }
  return provider.current;
}

/** `server logout NAME`: revoke where the authorization server offers it, then forget the sign-in here. */
export async function signOut(ctx: Context, name: string): Promise<Outcome> {
  httpEntry(name, ctx);
  let record: SignInRecord | undefined;
  let unreadable: string | undefined;
  try {
    record = readSignIn(ctx.home, name, ctx.env);
  } catch (err) {
    unreadable = err instanceof Error ? err.message : String(err);
  }
  // Revoke first (RFC 7009, where the authorization server offers it), then forget locally whatever it answered.
  let revocation: import('../connection/oauth-revoke.js').RevocationOutcome | undefined;
  if (record?.tokens) {
    const sdk = await import('@modelcontextprotocol/client');
    const { revokeSignIn } = await import('../connection/oauth-revoke.js');
    const { machineAuthFor } = await import('../connection/oauth-provider.js');
    for (const t of [record.tokens.access_token, record.tokens.refresh_token]) ctx.redact(t);
    let machine;
    try {
      machine = machineAuthFor(sdk, record, ctx.env);
    } catch { /* no usable machine credentials: the revocation says so below */ }
    revocation = await revokeSignIn(sdk, record, machine, (l) => ctx.debug(l));
  }
  const removed = removeSignIn(ctx.home, name);
  const revoked = revocation?.kind === 'revoked';
  const why = revocation && (revocation.kind === 'not-confirmed' || revocation.kind === 'no-endpoint') ? revocation.reason : unreadable ? `the sign-in file could not be read (${unreadable})` : undefined;
  return { kind: 'signed-out', server: name, removed, revoked, revocationProblem: why };
}

/** For `server show`: whether and until when it is signed in; never a token. */
export function signInView(entry: ServerEntry, ctx: Context): Record<string, unknown> | undefined {
  if (entry.transport !== 'http') return undefined;
  try {
    const record = readSignIn(ctx.home, entry.name, ctx.env);
    if (!record) return undefined;
    if (record.serverUrl !== entry.url) return { signedIn: false, note: 'the sign-in belongs to an earlier URL of this server' };
    return describeSignIn(record, ctx.now());
  } catch (err) {
    return { signedIn: 'unknown', error: err instanceof Error ? err.message : String(err) };
  }
}

/** For `server add --url`: whether the server asks for a sign-in. */
export async function requiresSignIn(entry: ServerEntry): Promise<boolean> {
  if (entry.transport !== 'http' || entry.bearerEnv || Object.values(entry.headers ?? {}).some((v) => v.startsWith('env:'))) return false;
  const sdk = await import('@modelcontextprotocol/client');
  const { probeServerAuth } = await import('../connection/oauth-provider.js');
  const probe = await probeServerAuth(sdk, entry.url, plainHeaders(entry), 5000);
  return probe?.requiresSignIn === true;
}
