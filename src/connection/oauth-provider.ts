// The OAuthClientProvider behind `server login` and every connection to a signed-in server.
// Only storage, the loopback redirect and the browser are ours: discovery, PKCE, registration
// (dynamic or client ID metadata document), refresh, RFC 8707 resource, RFC 9207 `iss` checks
// and scope selection are the SDK's (`auth`), and so are client_credentials and private_key_jwt
// (its ClientCredentialsProvider / PrivateKeyJwtProvider, to which machine sign-ins delegate).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createPrivateKey, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider, OAuthDiscoveryState, StreamableHTTPClientTransport as SdkHttpTransport } from '@modelcontextprotocol/client';
import { SignInError } from './connection-errors.js';
import { holdFileLockAsync } from '../fs/atomic-file.js';
import { finishBeforeExit } from '../fs/own-process.js';
import { comparePrincipals, OtherPrincipalError, sameIssuer, type Principal } from '../tasks/principal.js';
import { readSignIn, signInPath, writeSignIn, type MachineCredentials, type SignInRecord, type StoredTokens } from './oauth-store.js';

type Sdk = typeof import('@modelcontextprotocol/client');

export interface BrowserPlan {
  /** How the authorization URL reaches a person: $BROWSER, the platform opener, or printed only. */
  mode: 'browser-env' | 'platform' | 'print';
}

/** $BROWSER when set (even without a TTY, the usual convention), else the platform opener in a TTY, else print. */
export function browserPlan(env: NodeJS.ProcessEnv, tty: boolean, noBrowser: boolean): BrowserPlan {
  if (noBrowser) return { mode: 'print' };
  if (env.BROWSER) return { mode: 'browser-env' };
  return { mode: tty ? 'platform' : 'print' };
}

/** Can a sign-in be started in place (a 401 mid-command)? Only where someone or something can answer it. */
export const canSignInInPlace = (env: NodeJS.ProcessEnv, tty: boolean) => Boolean(env.BROWSER) || tty;

function openInBrowser(url: string, plan: BrowserPlan, io: Pick<SignInIO, 'env' | 'platform' | 'debug'>): void {
  if (plan.mode === 'print') return;
  // Finished even by a command that ends first: a browser half-started is worse than none.
  finishBeforeExit(import('../open-url.js').then(({ openerFor, openUrl }) => openUrl(openerFor(url, io.platform, plan.mode === 'browser-env' ? io.env.BROWSER : undefined), io.env, io.debug)));
}

/** The loopback redirect target: 127.0.0.1 on a random (or the previously registered) port. */
export class LoopbackRedirect {
  private server: Server | undefined;
  private port = 0;
  private waiting: { resolve: (p: URLSearchParams) => void; reject: (e: unknown) => void } | undefined;
  private received: URLSearchParams | undefined;
  expectedState?: string;

  get redirectUri(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  /** Listen on `preferredPort` if free, else on a random port (`strict`: that port or fail). */
  async listen(preferredPort?: number, strict = false): Promise<void> {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback') {
        res.writeHead(404).end();
        return;
      }
      const params = url.searchParams;
      // A callback for another attempt (or a forged one) is refused and the wait goes on.
      if (this.expectedState !== undefined && params.get('state') !== this.expectedState) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('This sign-in link does not belong to the sign-in mcp-tasks is waiting for.\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        params.get('error') ? '<p>Sign-in was refused. You can close this tab.</p>' : '<p>Signed in to mcp-tasks. You can close this tab.</p>',
      );
      this.received = params;
      this.waiting?.resolve(params);
      this.waiting = undefined;
    });
    const tryListen = (port: number) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    try {
      await tryListen(preferredPort ?? 0);
    } catch (err) {
      if (!preferredPort || strict) throw err;
      await tryListen(0);
    }
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** The callback's query, or a timeout / interruption. */
  wait(server: string, timeoutMs: number, signal?: AbortSignal): Promise<URLSearchParams> {
    if (this.received) {
      const r = this.received;
      this.received = undefined;
      return Promise.resolve(r);
    }
    return new Promise<URLSearchParams>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new SignInError({ reason: 'timeout', server }, `no sign-in arrived within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new SignInError({ reason: 'interrupted', server }, 'sign-in interrupted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = {
        resolve: (p) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(p);
        },
        reject,
      };
    });
  }

  close(): void {
    this.server?.close();
    this.server?.closeAllConnections?.();
    this.server = undefined;
  }
}

export interface SignInIO {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  /** Where the URL is shown when it is printed (stderr: stdout may be --json). */
  say(line: string): void;
  debug(line: string): void;
  /** Every token and secret loaded or saved is registered so -v never prints it. */
  redact(secret: string | undefined): void;
  interrupt?: AbortSignal;
}

/** The SignInIO of a command's context (structurally: connection/ does not import the CLI). */
export function signInIO(ctx: { env: NodeJS.ProcessEnv; platform: NodeJS.Platform; home: string; stderr: { write(s: string): void }; debug(l: string): void; redact(s: string | undefined): void; interrupt?: AbortSignal }): SignInIO {
  return {
    env: ctx.env,
    platform: ctx.platform,
    home: ctx.home,
    say: (line) => ctx.stderr.write(line.endsWith('\n') ? line : line + '\n'),
    debug: (l) => ctx.debug(l),
    redact: (s) => ctx.redact(s),
    ...(ctx.interrupt ? { interrupt: ctx.interrupt } : {}),
  };
}

export interface InteractiveOptions {
  plan: BrowserPlan;
  timeoutMs: number;
  loopback: LoopbackRedirect;
  /** A mid-command sign-in listens only while it waits. */
  closeAfterCallback?: boolean;
}

/** The SDK's machine providers, rebuilt from the stored credentials (an env variable, when set, wins). */
function machineDelegate(sdk: Sdk, server: string, m: MachineCredentials, env: NodeJS.ProcessEnv, issuer: string | undefined, scope: string | undefined): OAuthClientProvider {
  const secret = (m.secretEnv && env[m.secretEnv]) || m.clientSecret;
  const pem = (m.keyEnv && env[m.keyEnv]) || m.privateKeyPem;
  const common = { clientId: m.clientId, clientName: 'mcp-tasks', ...(scope ? { scope } : {}), ...(issuer ? { expectedIssuer: issuer } : {}) };
  if (pem) return new sdk.PrivateKeyJwtProvider({ ...common, privateKey: pem, algorithm: m.algorithm ?? signingAlgorithm(pem) });
  if (secret) return new sdk.ClientCredentialsProvider({ ...common, clientSecret: secret });
  throw new SignInError({ reason: 'machine-credentials-empty', server }, 'the stored machine credentials have neither a secret nor a key');
}

/** A machine sign-in's client authentication (secret or key), for requests outside auth() such as revocation. */
export function machineAuthFor(sdk: Sdk, record: SignInRecord, env: NodeJS.ProcessEnv): OAuthClientProvider | undefined {
  return record.kind === 'client_credentials' && record.machine ? machineDelegate(sdk, record.server, record.machine, env, record.issuer, record.scope) : undefined;
}

/** RFC 7518 algorithm for a PEM key: ES256/384/512 by curve, RS256 for RSA, EdDSA for Ed25519. */
export function signingAlgorithm(pem: string): string {
  const key = createPrivateKey(pem);
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
  }
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'rsa-pss') return 'PS256';
  return 'RS256';
}

/**
 * The `sub` of an id_token that came with a token response, if its `iss` is the issuer signed in
 * to. Not signature-checked: it came straight from the token endpoint on the connection the SDK
 * opened (OIDC Core 3.1.3.7), and it only names who the tokens act for.
 */
export function idTokenSubject(idToken: unknown, issuer: string): string | undefined {
  if (typeof idToken !== 'string') return undefined;
  const payload = idToken.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown; iss?: unknown };
    if (typeof claims.iss === 'string' && !sameIssuer(claims.iss, issuer)) return undefined;
    return typeof claims.sub === 'string' && claims.sub.length > 0 && claims.sub.length <= 255 ? claims.sub : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One refresh at a time per sign-in file, in this process (several sessions on one server) and
 * across processes (the file lock): a rotating refresh token is single-use, so a second refresh
 * with the same token is refused, and many servers then revoke the whole grant.
 */
const refreshChains = new Map<string, Promise<void>>();

/**
 * The send a refresh runs under (the SDK refreshes inside the transport's send, on a 401): when
 * that send fails, the lock its own refresh took is released there, and no other send's. A
 * refresh the token endpoint refuses is released when the refusal arrives (watchingRefresh).
 */
const sendTurn = new AsyncLocalStorage<object>();

/** How long a refresh waits for a peer's before it gives up (the peer's lock is taken over if it died). */
const REFRESH_LOCK_WAIT_MS = 60_000;
const REFRESH_LOCK_STALE_MS = 120_000;

/**
 * Storage for one server's sign-in, read at construction and written through on every change.
 * `interactive` present: redirectToAuthorization opens the browser and the loopback waits for the
 * callback; absent: a needed sign-in is an exit-8 error naming `server login`.
 */
export class StoredSignInProvider implements OAuthClientProvider {
  private record: SignInRecord;
  private discovery: OAuthDiscoveryState | undefined;
  private delegate?: OAuthClientProvider;
  private stateValue?: string;
  /** Set once the browser was sent to the authorization server: the transport then waits for the callback. */
  pendingAuthorization = false;
  /** One browser sign-in per process: a server that refuses again after it gets an error, not a loop. */
  private browserSignInsLeft = 1;
  /** Set while the SDK redeems an authorization code: the tokens saved next start a new grant. */
  private redeemingCode = false;
  /** Held from the SDK's read of the tokens before a refresh until the outcome is saved (see refreshChains). */
  private releaseRefresh: (() => void) | undefined;
  /** The tokens handed to the SDK under the lock: saving them again (an issuer stamp) is no outcome. */
  private tokensUnderLock: StoredTokens | undefined;
  /** The send whose refresh holds the lock (see sendTurn). */
  private refreshTurn: object | undefined;

  constructor(
    sdk: Sdk,
    private readonly io: SignInIO,
    record: SignInRecord,
    private readonly interactive?: InteractiveOptions,
  ) {
    this.record = record;
    if (record.clientMetadataUrl !== undefined) this.clientMetadataUrl = record.clientMetadataUrl;
    this.redactAll();
    if (record.kind === 'client_credentials' && record.machine) {
      this.delegate = machineDelegate(sdk, record.server, record.machine, io.env, record.issuer, record.scope);
      const d = this.delegate as unknown as { addClientAuthentication?: OAuthClientProvider['addClientAuthentication'] };
      if (d.addClientAuthentication) this.addClientAuthentication = d.addClientAuthentication;
    }
    if (interactive?.loopback.listening && record.kind === 'authorization_code') this.record.redirectUri = interactive.loopback.redirectUri;
  }

  addClientAuthentication?: NonNullable<OAuthClientProvider['addClientAuthentication']>;
  /** Fixed for the provider's life (set before it is built); absent, not undefined, for the SDK's interface. */
  readonly clientMetadataUrl?: string;

  get current(): SignInRecord {
    return this.record;
  }

  private redactAll(): void {
    const r = this.record;
    this.io.redact(r.tokens?.access_token);
    this.io.redact(r.tokens?.refresh_token);
    this.io.redact(r.tokens?.id_token as string | undefined);
    this.io.redact(r.codeVerifier);
    this.io.redact(r.clientInformation?.client_secret as string | undefined);
    this.io.redact(r.machine?.clientSecret);
  }

  private persist(): void {
    this.redactAll();
    const { createdKeyFile } = writeSignIn(this.io.home, this.record, this.io.env);
    if (createdKeyFile) this.io.say(`mcp-tasks: created the key ${createdKeyFile} (mode 0600); sign-ins and the vault are encrypted with it: back it up, and keep it out of shared places`);
  }

  get redirectUrl(): string | undefined {
    return this.record.kind === 'authorization_code' ? this.record.redirectUri ?? 'http://127.0.0.1/callback' : undefined;
  }

  get clientMetadata() {
    if (this.delegate) return this.delegate.clientMetadata;
    return {
      client_name: 'mcp-tasks',
      redirect_uris: [this.redirectUrl!],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // A command-line tool is a native application (OIDC client types; SEP-837).
      application_type: 'native',
      ...(this.record.scope ? { scope: this.record.scope } : {}),
    } as OAuthClientProvider['clientMetadata'];
  }

  state(): string {
    this.stateValue = randomBytes(16).toString('base64url');
    if (this.interactive) this.interactive.loopback.expectedState = this.stateValue;
    return this.stateValue;
  }

  clientInformation() {
    if (this.delegate) return this.delegate.clientInformation() as never;
    return this.record.clientInformation as never;
  }

  saveClientInformation(info: Record<string, unknown>): void {
    if (this.delegate) return;
    this.record.clientInformation = { ...info };
    this.persist();
  }

  async tokens(ctx?: { issuer: string }) {
    // Inside auth() (ctx given) a refresh follows when there is a refresh token: it waits for any
    // other refresh of this sign-in, then takes the tokens from the file, which another process
    // may have refreshed meanwhile (a rotated refresh token is single-use).
    if (ctx) {
      this.adoptNewerTokens();
      if (this.record.kind === 'authorization_code' && this.record.tokens?.refresh_token) {
        await this.takeRefreshLock();
        this.adoptNewerTokens();
        this.tokensUnderLock = this.record.tokens;
      }
    }
    return this.record.tokens as never;
  }

  private async takeRefreshLock(): Promise<void> {
    const path = signInPath(this.io.home, this.record.server);
    const before = refreshChains.get(path) ?? Promise.resolve();
    let releaseHere!: () => void;
    const mine = new Promise<void>((r) => (releaseHere = r));
    refreshChains.set(path, before.then(() => mine));
    await before;
    let releaseFile: () => void;
    try {
      releaseFile = await holdFileLockAsync(path, {
        timeoutMs: REFRESH_LOCK_WAIT_MS,
        staleMs: REFRESH_LOCK_STALE_MS,
        onWait: () => this.io.debug(`another mcp-tasks process is refreshing the sign-in for ${this.record.server}; waiting for it`),
      });
    } catch (err) {
      releaseHere();
      throw new SignInError({ reason: 'refresh-lock-busy', server: this.record.server }, `the sign-in for server "${this.record.server}" is being refreshed by another mcp-tasks process that does not finish (${(err as Error).message})`);
    }
    this.refreshTurn = sendTurn.getStore();
    this.releaseRefresh = () => {
      this.releaseRefresh = undefined;
      this.refreshTurn = undefined;
      releaseFile();
      releaseHere();
    };
  }

  /** Run one send; if it fails while its own refresh holds the lock (the SDK rethrew from auth(), nothing saved), release it now. */
  async sending<T>(send: () => Promise<T>): Promise<T> {
    const turn = {};
    try {
      return await sendTurn.run(turn, send);
    } catch (err) {
      if (this.releaseRefresh && this.refreshTurn === turn) this.endRefresh();
      throw err;
    }
  }

  /**
   * The fetch the SDK sends token requests with: a refresh under the lock that the token endpoint
   * refuses (or that gets no answer) is over, with nothing to save, so the lock is released at
   * once. Whoever started it: the SDK's standalone GET stream refreshes outside any send, and its
   * failure reaches no caller (only the transport's onerror), so `sending` never sees it.
   */
  watchingRefresh(base: (url: string | URL, init?: RequestInit) => Promise<Response>): (url: string | URL, init?: RequestInit) => Promise<Response> {
    return async (input: string | URL, init?: RequestInit) => {
      const body = init?.body;
      const isRefresh = init?.method === 'POST' && body instanceof URLSearchParams && body.get('grant_type') === 'refresh_token';
      if (!isRefresh || !this.releaseRefresh) return base(input, init);
      let response: Response;
      try {
        response = await base(input, init);
      } catch (err) {
        this.endRefresh();
        throw err;
      }
      if (!response.ok) this.endRefresh();
      return response;
    };
  }

  /** The refresh's outcome is on disk (or there was none to make): the next refresh may start. */
  private endRefresh(): void {
    this.tokensUnderLock = undefined;
    this.releaseRefresh?.();
  }

  private adoptNewerTokens(): void {
    try {
      const onDisk = readSignIn(this.io.home, this.record.server, this.io.env);
      if (onDisk?.serverUrl === this.record.serverUrl && onDisk.tokens && (onDisk.tokensSavedAt ?? 0) > (this.record.tokensSavedAt ?? 0)) {
        this.record.tokens = onDisk.tokens;
        this.record.tokensSavedAt = onDisk.tokensSavedAt!;
        this.redactAll();
      }
    } catch { /* keep ours */ }
  }

  saveTokens(tokens: StoredTokens): void {
    // The SDK saves the tokens it read back with its issuer stamp when the file predates the
    // stamp, before it refreshes: the refresh is still to come, so the lock stays held for it.
    const refreshed = !this.tokensUnderLock || !sameTokens(tokens, this.tokensUnderLock);
    try {
      const newGrant = this.redeemingCode;
      this.redeemingCode = false;
      this.record.tokens = { ...tokens };
      this.record.tokensSavedAt = Date.now();
      if (typeof tokens.issuer === 'string') this.record.issuer = tokens.issuer;
      const principal = this.principalFor(tokens, newGrant);
      if (principal) this.record.principal = principal;
      // A redeemed verifier is useless; keep nothing we do not need.
      delete this.record.codeVerifier;
      this.persist();
    } finally {
      if (refreshed) this.endRefresh();
    }
  }

  /**
   * Who these tokens act for: the client for a machine sign-in; else the id_token's subject when
   * one came; else the grant, which a refresh continues and a redeemed authorization code starts
   * anew (a random id: it names the grant without deriving anything from a token).
   */
  private principalFor(tokens: StoredTokens, newGrant: boolean): Principal | undefined {
    const issuer = this.record.issuer;
    if (!issuer) return this.record.principal;
    if (this.record.kind === 'client_credentials' && this.record.machine) return { issuer, kind: 'client', clientId: this.record.machine.clientId };
    const clientId = typeof this.record.clientInformation?.client_id === 'string' ? this.record.clientInformation.client_id : undefined;
    const subject = idTokenSubject(tokens.id_token, issuer);
    if (subject) return { issuer, kind: 'subject', subject, ...(clientId ? { clientId } : {}) };
    const before = this.record.principal;
    if (!newGrant && before && before.kind !== 'client' && before.issuer === issuer) return before;
    return { issuer, kind: 'grant', grant: randomBytes(16).toString('base64url'), ...(clientId ? { clientId } : {}) };
  }

  saveCodeVerifier(codeVerifier: string): void {
    // A new authorization starts: whatever refresh came before it is over.
    this.endRefresh();
    this.record.codeVerifier = codeVerifier;
    this.persist();
  }

  codeVerifier(): string {
    if (!this.record.codeVerifier) throw new SignInError({ reason: 'not-in-progress', server: this.record.server }, 'no sign-in is in progress for this server');
    // The SDK reads the verifier only to redeem an authorization code.
    this.redeemingCode = true;
    return this.record.codeVerifier;
  }

  // Discovery is kept for this process only: the callback leg needs it, and a later process
  // rediscovering is how a server that moved to another authorization server is followed.
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    try {
      if (scope === 'all' || scope === 'tokens') delete this.record.tokens;
      if ((scope === 'all' || scope === 'client') && !this.record.preRegistered && !this.delegate) delete this.record.clientInformation;
      if (scope === 'all' || scope === 'verifier') delete this.record.codeVerifier;
      if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
      this.persist();
    } finally {
      // Refused under the lock, with the newest refresh token: the refusal is real, not a race.
      this.endRefresh();
    }
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    return this.delegate?.prepareTokenRequest?.(scope) as URLSearchParams | undefined;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.endRefresh();
    const server = this.record.server;
    const stepUp = stepUpScope(authorizationUrl, this.record.tokens?.scope);
    const scoped = stepUp ? { scope: stepUp } : {};
    if (this.interactive && this.browserSignInsLeft === 0) {
      throw new SignInError({ reason: 'still-refused', server, ...scoped }, `server "${server}" still refuses access after a new sign-in${this.record.tokens?.scope ? ` (granted: ${clean(this.record.tokens.scope)})` : ''}`);
    }
    if (!this.interactive) {
      // A 403 insufficient_scope: the server named the scopes it needs, and the hint passes them on.
      if (stepUp) throw new SignInError({ reason: 'no-browser', server, scope: stepUp }, `server "${server}" refused the request: it needs the scopes "${stepUp}" (granted: "${clean(this.record.tokens?.scope ?? '')}"), which takes a new sign-in, and no browser can be used here`);
      throw new SignInError({ reason: 'no-browser', server }, `server "${server}" needs you to sign in again, and no browser can be used here`);
    }
    const url = authorizationUrl.toString();
    const { plan, loopback } = this.interactive;
    if (!loopback.listening) {
      // A sign-in started mid-command: the redirect must reach the port the client registered.
      const port = Number(new URL(this.redirectUrl!).port) || undefined;
      try {
        await loopback.listen(port, true);
      } catch {
        throw new SignInError({ reason: 'redirect-port-busy', server: this.record.server }, `server "${this.record.server}" needs a new sign-in, and its redirect port ${port ?? '(none)'} on 127.0.0.1 is busy`);
      }
    }
    if (plan.mode === 'print') this.io.say(`Open this URL in a browser to sign in to ${this.record.server}:\n  ${url}\nWaiting for the sign-in (up to ${Math.round(this.interactive.timeoutMs / 1000)} s)…`);
    else this.io.say(`Opening the browser to sign in to ${this.record.server}. If it does not open, visit:\n  ${url}`);
    openInBrowser(url, plan, this.io);
    this.browserSignInsLeft--;
    this.pendingAuthorization = true;
  }

  /** Stop listening for a callback (the connection is closing). */
  dispose(): void {
    // A refresh still held when the connection closes (one the GET stream started) ends with it.
    this.endRefresh();
    this.interactive?.loopback.close();
    this.pendingAuthorization = false;
  }

  /** The authorization server's answer on the loopback (after redirectToAuthorization). */
  async awaitCallback(): Promise<URLSearchParams> {
    if (!this.interactive || !this.pendingAuthorization) throw new SignInError({ reason: 'not-in-progress', server: this.record.server }, 'no sign-in is in progress');
    try {
      return await this.interactive.loopback.wait(this.record.server, this.interactive.timeoutMs, this.io.interrupt);
    } finally {
      this.pendingAuthorization = false;
      if (this.interactive.closeAfterCallback) this.interactive.loopback.close();
    }
  }
}

/**
 * The SDK's Streamable HTTP transport, plus the one thing it leaves to hosts: when a 401 or a
 * 403 insufficient_scope sent the browser to the authorization server, wait for the loopback
 * callback, finish the sign-in (`finishAuth`) and retry the request once.
 */
export function signInTransportClass(sdk: Sdk) {
  return class SignInHttpTransport extends sdk.StreamableHTTPClientTransport {
    constructor(
      url: URL,
      private readonly provider: StoredSignInProvider,
      opts: ConstructorParameters<typeof SdkHttpTransport>[1],
      /** The principal a task was created under: after an in-place sign-in as anyone else, nothing is resent. */
      private readonly expected?: Principal,
    ) {
      super(url, { ...opts, fetch: provider.watchingRefresh(opts?.fetch ?? globalThis.fetch), authProvider: provider });
    }

    override async send(...args: Parameters<SdkHttpTransport['send']>): Promise<void> {
      try {
        return await this.provider.sending(() => super.send(...args));
      } catch (err) {
        if (!(err instanceof sdk.UnauthorizedError) || !this.provider.pendingAuthorization) throw err;
        const params = await this.provider.awaitCallback();
        await finishSignIn(this.provider.current.server, params, (p) => this.finishAuth(p));
        if (this.expected && comparePrincipals(this.expected, this.provider.current.principal) === 'different') throw new OtherPrincipalError(this.expected, this.provider.current.principal);
        return await this.provider.sending(() => super.send(...args));
      }
    }

    override async close(): Promise<void> {
      this.provider.dispose();
      return super.close();
    }
  };
}

/** Redeem a loopback callback: an `error` is the authorization server's refusal, shown as such. */
export async function finishSignIn(server: string, params: URLSearchParams, redeem: (p: URLSearchParams) => Promise<void>): Promise<void> {
  const error = params.get('error');
  if (error && !params.get('code')) {
    const desc = params.get('error_description');
    throw new SignInError({ reason: 'refused-by-authorization-server', server }, `the authorization server refused the sign-in: ${clean(error)}${desc ? ` (${clean(desc)})` : ''}`);
  }
  await redeem(params);
}

/**
 * The scopes a new authorization asks for when they go beyond what the current tokens were
 * granted (the SDK's step-up after a 403 insufficient_scope, which unites the granted scopes with
 * the challenge's); undefined for a plain new sign-in. `offline_access` is the SDK's own addition
 * (it asks for a refresh token), not the server's, and `server login` adds it again by itself.
 */
function stepUpScope(authorizationUrl: URL, granted: string | undefined): string | undefined {
  if (granted === undefined) return undefined;
  const have = new Set(granted.split(/\s+/).filter(Boolean));
  const asked = (authorizationUrl.searchParams.get('scope') ?? '').split(/\s+/).filter((t) => t && t !== 'offline_access');
  if (!asked.some((t) => !have.has(t))) return undefined;
  const scope = clean(asked.join(' '));
  return scope || undefined;
}

/** The same grant state: a save of these adds or changes only metadata (the issuer stamp). */
const sameTokens = (a: StoredTokens, b: StoredTokens) => a.access_token === b.access_token && a.refresh_token === b.refresh_token;

const clean = (s: string) => s.replace(/[^\x20-\x7e]/g, '').slice(0, 200);

/** A fresh record for `server login`. */
export function newSignInRecord(server: string, serverUrl: string, kind: SignInRecord['kind']): SignInRecord {
  return { server, serverUrl, kind, updatedAt: new Date().toISOString() };
}

/** The stored sign-in for a server entry, if one exists for its current URL. */
export function storedSignIn(home: string, server: string, serverUrl: string, env: NodeJS.ProcessEnv): SignInRecord | undefined {
  const record = readSignIn(home, server, env);
  if (!record) return undefined;
  if (record.serverUrl !== serverUrl) return undefined;
  return record;
}

export { readSignIn };

export interface AuthProbe {
  /** The server asked for a sign-in (401 with a challenge, or protected-resource metadata). */
  requiresSignIn: boolean;
  status?: number;
  resourceMetadataUrl?: URL;
  scope?: string;
}

/**
 * One unauthenticated `server/discover` POST: does the server ask for a sign-in? A network
 * failure is "unknown" (undefined): adding a server must work offline.
 */
export async function probeServerAuth(sdk: Sdk, url: string, headers: Record<string, string>, timeoutMs: number, opts: { metadataEvenIfAdmitted?: boolean } = {}): Promise<AuthProbe | undefined> {
  const { MODERN_PROTOCOL_VERSION, META_PROTOCOL_VERSION, META_CLIENT_INFO, META_CLIENT_CAPABILITIES } = await import('../protocol/constants.js');
  const { VERSION } = await import('../version.js');
  const { DECLARED_CLIENT_CAPABILITIES } = await import('./client-capabilities.js');
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'server/discover' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'mcp-tasks-auth-probe',
        method: 'server/discover',
        params: { _meta: { [META_PROTOCOL_VERSION]: MODERN_PROTOCOL_VERSION, [META_CLIENT_INFO]: { name: 'mcp-tasks', version: VERSION }, [META_CLIENT_CAPABILITIES]: DECLARED_CLIENT_CAPABILITIES } },
      }),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    return undefined;
  }
  await response.body?.cancel().catch(() => {});
  if (response.status !== 401 && response.status !== 403 && !opts.metadataEvenIfAdmitted) return { requiresSignIn: false, status: response.status };
  const { resourceMetadataUrl, scope } = sdk.extractWWWAuthenticateParams(response);
  if (response.headers.has('www-authenticate') && response.status === 401) return { requiresSignIn: true, status: 401, ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  try {
    await sdk.discoverOAuthProtectedResourceMetadata(url, resourceMetadataUrl ? { resourceMetadataUrl } : undefined);
    return { requiresSignIn: true, status: response.status, ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  } catch {
    return { requiresSignIn: false, status: response.status };
  }
}

export const IN_PLACE_SIGN_IN_TIMEOUT_MS = 5 * 60_000;

export type HttpTransportFactory = (url: URL, opts: { requestInit: RequestInit; fetch?: typeof globalThis.fetch; sessionId?: string; protocolVersion?: string }) => import('@modelcontextprotocol/client').Transport;

/** The transport factory of a stored sign-in, and who that sign-in acts for now (it changes with an in-place sign-in). */
export interface SignInTransport {
  factory: HttpTransportFactory;
  principal(): Principal | undefined;
}

/**
 * The transport for a server with a stored sign-in (undefined without one). Refresh is the
 * SDK's; a sign-in needed mid-command is started in place only where a browser can be used
 * and --stored-auth-only is not set. `expected`: the principal a task was created under; a
 * stored sign-in that is provably someone else (or none) is refused before anything is sent.
 */
export async function signInTransportFor(
  io: SignInIO,
  entry: { name: string; url: string },
  where: { tty: boolean; storedAuthOnly: boolean },
  expected?: Principal,
): Promise<SignInTransport | undefined> {
  const record = storedSignIn(io.home, entry.name, entry.url, io.env);
  if (expected && comparePrincipals(expected, record?.tokens ? record.principal : undefined) === 'different') throw new OtherPrincipalError(expected, record?.tokens ? record.principal : undefined);
  if (!record) return undefined;
  const sdk = await import('@modelcontextprotocol/client');
  const inPlace = record.kind === 'authorization_code' && !where.storedAuthOnly && canSignInInPlace(io.env, where.tty);
  const provider = new StoredSignInProvider(
    sdk,
    io,
    record,
    inPlace ? { plan: browserPlan(io.env, where.tty, false), timeoutMs: IN_PLACE_SIGN_IN_TIMEOUT_MS, loopback: new LoopbackRedirect(), closeAfterCallback: true } : undefined,
  );
  const Transport = signInTransportClass(sdk);
  io.debug(`using the stored sign-in for ${entry.name}${inPlace ? ' (a new sign-in may open the browser)' : ''}`);
  return { factory: (url, opts) => new Transport(url, provider, opts, expected), principal: () => provider.current.principal };
}
