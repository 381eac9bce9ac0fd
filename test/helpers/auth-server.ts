// A real OAuth 2.1 authorization server (the certified `oidc-provider`) and a resource gate in
// front of the demo server that admits only its access tokens: the sign-in tests' "production".
// The gate serves protected-resource metadata and answers 401 with a WWW-Authenticate
// challenge, as an MCP server behind OAuth does. Login and consent are granted at once (the
// test browser script follows the redirects), so a sign-in needs no person.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface AuthWorld {
  /** The gated MCP endpoint (what `server add --url` gets). */
  url: string;
  issuer: string;
  /** Every access and refresh token the authorization server issued, by value. */
  issued: { access: string[]; refresh: string[] };
  /** Bearer tokens the gate was shown (to check they are the issued ones). */
  presented: Set<string>;
  /** Requests the gate refused (401). */
  refused(): number;
  /** tools/call requests the gate refused with 403 insufficient_scope (AuthWorldOptions.toolScopes): none reached the demo server. */
  scopeRefusals: number;
  /** Forget every access token (the next request gets a 401, so the client must refresh). */
  expireAccessTokens(): Promise<void>;
  /** Revoke every refresh token as well (the sign-in is gone: only a new login helps). */
  revokeRefreshTokens(): Promise<void>;
  /** Who the person at the browser signs in as (default alice). */
  account: string;
  /**
   * tasks/* requests the gate saw: method, taskId and the account whose token came with it.
   * With `scopeTasksToAccount`, a task is known only to the account that created it (as a
   * server binding tasks to the authorization context does): anyone else gets -32602.
   */
  taskRequests: Array<{ method: string; taskId: string; account: string }>;
  /** Set to hold token-endpoint requests: each waits for the promise this returns. */
  tokenGate?: (() => Promise<void>) | undefined;
  /** Set to answer every token-endpoint request with this OAuth error (HTTP 400), e.g. temporarily_unavailable. */
  refuseTokenRequests?: string | undefined;
  /** Set to run before the gate hands back the answer to a request it let through (by its JSON-RPC method; GET: ''). */
  beforeAnswer?: ((method: string) => Promise<void>) | undefined;
  /** Token-endpoint answers by grant type ("refresh_token refused" for a refusal), in order. */
  tokenRequests: string[];
  /** RFC 7009 revocation requests the authorization server received (their HTTP status). */
  revocations: number[];
  /** Answer every revocation request with HTTP 503 (an authorization server that is down). */
  failRevocation: boolean;
  /** How many of the issued access and refresh tokens the authorization server still honours. */
  liveTokens(): Promise<number>;
  close(): Promise<void>;
}

const listen = (server: Server) => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

export interface AuthWorldOptions {
  accessTokenTtlS?: number;
  scopeTasksToAccount?: boolean;
  revocation?: boolean;
  /**
   * Tools that need one more scope than a sign-in gets by default: a tools/call naming one with
   * a token lacking it is refused before it reaches the demo server, with HTTP 403 and
   * `WWW-Authenticate: Bearer error="insufficient_scope", scope="<every scope it needs>"`
   * (RFC 6750 §3.1, the MCP authorization spec's step-up).
   */
  toolScopes?: Record<string, string>;
}

export async function startAuthWorld(demoUrl: string, opts: AuthWorldOptions = {}): Promise<AuthWorld> {
  const asServer = createServer();
  const asPort = await listen(asServer);
  const issuer = `http://127.0.0.1:${asPort}`;
  const gateServer = createServer();
  const gatePort = await listen(gateServer);
  const resource = `http://127.0.0.1:${gatePort}/mcp`;
  const scope = 'mcp:tasks';
  const extraScopes = [...new Set(Object.values(opts.toolScopes ?? {}))];
  // What the resource server accepts: a token gets the ones asked for among these.
  const resourceScopes = [scope, ...extraScopes].join(' ');

  const provider = new Provider(issuer, {
    clients: [],
    scopes: ['openid', 'offline_access', scope, ...extraScopes],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: opts.revocation ?? true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: resourceScopes, audience: resource, accessTokenTTL: opts.accessTokenTtlS ?? 3600, accessTokenFormat: 'opaque' }),
      },
    },
    // Every refresh rotates the refresh token; reusing a rotated one revokes the grant (oidc-provider's reuse detection).
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    cookies: { keys: ['sign-in-tests-only'] },
    ttl: { Session: 3600, Interaction: 600, Grant: 3600, AccessToken: opts.accessTokenTtlS ?? 3600, RefreshToken: 86_400 },
  });
  const issued = { access: [] as string[], refresh: [] as string[] };
  // Filled in below; the servers' handlers read its hooks (account, tokenGate) when requests come.
  const world = { account: 'alice', scopeRefusals: 0, taskRequests: [], tokenRequests: [], revocations: [], failRevocation: false } as unknown as AuthWorld;
  provider.on('access_token.saved', (t: { jti: string }) => issued.access.push(t.jti));
  provider.on('refresh_token.saved', (t: { jti: string }) => issued.refresh.push(t.jti));
  provider.on('grant.success', (ctx: { oidc: { params?: { grant_type?: string } } }) => world.tokenRequests.push(ctx.oidc.params?.grant_type ?? '-'));
  provider.on('grant.error', (ctx: { oidc: { params?: { grant_type?: string } } }) => world.tokenRequests.push(`${ctx.oidc.params?.grant_type ?? '-'} refused`));

  const oidc = provider.callback();
  const onAsRequest = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      if (req.method === 'POST' && req.url === '/token' && world.tokenGate) await world.tokenGate();
      if (req.method === 'POST' && req.url === '/token' && world.refuseTokenRequests) {
        world.tokenRequests.push(`${world.refuseTokenRequests} answered`);
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: world.refuseTokenRequests }));
        return;
      }
      if (req.method === 'POST' && req.url === '/token/revocation') {
        if (world.failRevocation) {
          world.revocations.push(503);
          res.writeHead(503).end();
          return;
        }
        res.once('finish', () => world.revocations.push(res.statusCode));
      }
      if (req.url?.startsWith('/interaction/')) {
        // The person at the browser signs in as alice and consents to everything asked.
        const details = (await provider.interactionDetails(req, res)) as { prompt: { name: string; details: unknown }; grantId?: string; session?: { accountId: string }; params: Record<string, unknown> };
        if (details.prompt.name === 'login') {
          await provider.interactionFinished(req, res, { login: { accountId: world.account } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
        const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
        if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
        for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
        return;
      }
      oidc(req, res);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  };
  asServer.on('request', (req: IncomingMessage, res: ServerResponse) => void onAsRequest(req, res));

  let refusedCount = 0;
  const owners = new Map<string, string>();
  const presented = new Set<string>();
  const demo = new URL(demoUrl);
  const onGateRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: [scope, ...extraScopes], bearer_methods_supported: ['header'] }));
      return;
    }
    const auth = req.headers.authorization ?? '';
    const token = /^Bearer (.+)$/.exec(auth)?.[1];
    if (token) presented.add(token);
    const found = (token ? await provider.AccessToken.find(token) : undefined) as { isExpired: boolean; aud?: string | string[]; accountId?: string; scope?: string } | undefined;
    if (!found || found.isExpired || !(found.aud === resource || (Array.isArray(found.aud) && found.aud.includes(resource)))) {
      refusedCount++;
      res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Bearer resource_metadata="http://127.0.0.1:${gatePort}/.well-known/oauth-protected-resource/mcp", scope="${scope}"` })
        .end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    const account = found.accountId ?? '?';
    let rpc: { id?: unknown; method?: unknown; params?: { taskId?: unknown } } | undefined;
    try {
      rpc = JSON.parse(body.toString('utf8')) as typeof rpc;
    } catch { /* not a single JSON-RPC message */ }
    const method = typeof rpc?.method === 'string' ? rpc.method : '';
    const tool = method === 'tools/call' ? (rpc as { params?: { name?: unknown } } | undefined)?.params?.name : undefined;
    const needed = typeof tool === 'string' ? opts.toolScopes?.[tool] : undefined;
    if (needed && !(found.scope ?? '').split(' ').includes(needed)) {
      world.scopeRefusals++;
      res
        .writeHead(403, { 'content-type': 'application/json', 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope} ${needed}", resource_metadata="http://127.0.0.1:${gatePort}/.well-known/oauth-protected-resource/mcp"` })
        .end(JSON.stringify({ error: 'insufficient_scope' }));
      return;
    }
    if (method.startsWith('tasks/') && typeof rpc?.params?.taskId === 'string') {
      const taskId = rpc.params.taskId;
      world.taskRequests.push({ method, taskId, account });
      if (opts.scopeTasksToAccount && owners.has(taskId) && owners.get(taskId) !== account) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id ?? null, error: { code: -32602, message: 'Unknown task' } }));
        return;
      }
    }
    const headers = { ...req.headers };
    delete headers.authorization;
    const up = httpRequest({ host: demo.hostname, port: demo.port, path: demo.pathname, method: req.method, headers }, (r) => {
      if (method !== 'tools/call') {
        const hook = world.beforeAnswer?.(method) ?? Promise.resolve();
        void hook.then(() => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        return;
      }
      // A task created now belongs to the account that asked for it.
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        for (const m of text.matchAll(/"taskId"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) owners.set(JSON.parse(`"${m[1]}"`) as string, account);
        res.writeHead(r.statusCode ?? 502, r.headers);
        res.end(Buffer.concat(chunks));
      });
    });
    up.on('error', () => res.destroy());
    up.end(body);
  };
  gateServer.on('request', (req: IncomingMessage, res: ServerResponse) => void onGateRequest(req, res));

  const destroyAll = async (model: { adapter: { destroy(id: string): Promise<void> } }, ids: string[]) => {
    for (const id of ids) await model.adapter.destroy(id);
  };
  Object.assign(world, {
    url: resource,
    issuer,
    issued,
    presented,
    refused: () => refusedCount,
    async liveTokens() {
      let n = 0;
      for (const id of issued.access) if (await provider.AccessToken.find(id)) n++;
      for (const id of issued.refresh) if (await provider.RefreshToken.find(id)) n++;
      return n;
    },
    expireAccessTokens: () => destroyAll(provider.AccessToken as never, issued.access),
    async revokeRefreshTokens() {
      await destroyAll(provider.AccessToken as never, issued.access);
      await destroyAll(provider.RefreshToken as never, issued.refresh);
    },
    async close() {
      for (const s of [asServer, gateServer]) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
    },
  });
  return world;
}
