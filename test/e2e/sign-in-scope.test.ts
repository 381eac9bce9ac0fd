// A server that needs more scope for one tool (HTTP 403 `insufficient_scope`, the MCP
// authorization spec's step-up) refused the call before it reached the tool: with no browser to
// sign in again (or `--stored-auth-only`), that is a refusal (exit 8) with nothing in doubt, and
// the next step is the `server login … --scope` the server asked for, written out. Against the
// demo server behind a real authorization server (oidc-provider) whose gate asks for
// `mcp:payments` on `send_payment`; the demo server's own request log proves no call reached it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonDoc, startDemo, type DemoServer } from '../helpers/cli.js';
import { startAuthWorld, type AuthWorld } from '../helpers/auth-server.js';
import { browserEnv, signedInHome } from '../helpers/signed-in.js';

describe('403 insufficient_scope with no new sign-in possible: a refusal, not a doubt', () => {
  let demo: DemoServer;
  let world: AuthWorld;
  before(async () => {
    demo = await startDemo({ verbose: true });
    world = await startAuthWorld(demo.url, { toolScopes: { send_payment: 'mcp:payments' } });
  });
  after(async () => {
    await world.close();
    await demo.stop();
  });

  for (const how of ['no browser', '--stored-auth-only'] as const) {
    test(`${how}: exit 8, no record left, next: server login secure --scope "mcp:tasks mcp:payments"`, async () => {
      const h = await signedInHome(world);
      const refusedBefore = world.scopeRefusals;
      const callsBefore = await demo.count('tools/call');
      const args = ['call', 'secure', 'send_payment', 'to=bob', 'amount=5'];
      const global = how === '--stored-auth-only' ? ['--stored-auth-only'] : [];
      // --stored-auth-only never opens a browser even where one could be used.
      const env = how === '--stored-auth-only' ? browserEnv() : {};
      const r = await h.run([...global, ...args], { env });
      assert.equal(r.code, 8, r.stderr);
      assert.ok(world.scopeRefusals > refusedBefore, 'the gate refused the call for its scope');
      assert.equal(await demo.count('tools/call'), callsBefore, 'no tools/call reached the demo server');
      assert.doesNotMatch(r.stderr, /in doubt|do not simply run/i);
      assert.match(r.stderr, /next: .*server login secure --scope "mcp:tasks mcp:payments"/);
      // Nothing was admitted: nothing to recover, nothing listed.
      const recover = await h.run(['--json', 'recover']);
      assert.equal(recover.code, 0, recover.stderr);
      assert.deepEqual(parseJsonDoc(recover.stdout), []);
      const all = parseJsonDoc((await h.ok(['--json', 'list', '--all'])).stdout);
      assert.deepEqual(all, []);

      const j = await h.run([...global, '--json', ...args], { env });
      assert.equal(j.code, 8, j.stderr);
      const err = parseJsonDoc(j.stdout).error;
      assert.equal(err.kind, 'auth');
      assert.match(err.next, /server login secure --scope "mcp:tasks mcp:payments"/);
      assert.equal(await demo.count('tools/call'), callsBefore);

      // The next step, as printed, works: a new sign-in with those scopes, then the call goes through.
      await h.ok(['server', 'login', 'secure', '--scope', 'mcp:tasks mcp:payments'], { env: browserEnv() });
      const paid = await h.run(['--json', 'call', 'secure', 'send_payment', 'to=bob', 'amount=5']);
      assert.equal(paid.code, 0, paid.stderr);
      assert.equal(parseJsonDoc(paid.stdout).status, 'completed');
      assert.equal(await demo.count('tools/call'), callsBefore + 1);
    });
  }
});
