// Tasks belong to a principal: the demo server behind a real authorization server (oidc-provider)
// whose gate, like a server that binds tasks to the authorization context, knows a task only
// under the account that created it. A task created as alice keeps that principal in its vault
// record; signed in as bob, its handle is not sent when bob is provably someone else (an
// id_token subject), and a -32602 under a sign-in that cannot be compared (two opaque grants) is
// "not visible with this sign-in", exit 8 — never lost.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { newHome, parseJsonDoc, startDemo, type DemoServer, type TestHome } from '../helpers/cli.js';
import { startAuthWorld, type AuthWorld } from '../helpers/auth-server.js';

const BROWSER_SCRIPT = fileURLToPath(new URL('../../../test/helpers/browser.mjs', import.meta.url));
const browserEnv = { BROWSER: `${process.execPath} ${BROWSER_SCRIPT}` };

describe('tasks belong to the principal they were created under', () => {
  let demo: DemoServer;
  let world: AuthWorld;
  before(async () => {
    demo = await startDemo();
    world = await startAuthWorld(demo.url, { scopeTasksToAccount: true });
  });
  after(async () => {
    await world.close();
    await demo.stop();
  });

  async function loginAs(h: TestHome, account: string, scope?: string): Promise<void> {
    world.account = account;
    await h.ok(['server', 'login', 'secure', ...(scope ? ['--scope', scope] : [])], { env: browserEnv });
  }

  async function detachedTask(h: TestHome): Promise<{ taskId: string; opId: string }> {
    const r = await h.ok(['--json', 'call', 'secure', 'slow_compute', 'seconds=60', '--detach']);
    const taskId = parseJsonDoc(r.stdout).taskId as string;
    const listed = parseJsonDoc((await h.ok(['--json', 'list', '--all'])).stdout) as Array<{ taskId: string; opId: string }>;
    return { taskId, opId: listed.find((x) => x.taskId === taskId)!.opId };
  }

  const showJson = async (h: TestHome, opId: string) => parseJsonDoc((await h.ok(['--json', 'show', opId.slice(0, 8)])).stdout);

  test('an id_token subject: signed in as someone else, the handle is not sent; as the creator, it is', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'secure', '--url', world.url]);
    await loginAs(h, 'alice', 'mcp:tasks openid');
    const { taskId, opId } = await detachedTask(h);
    const created = await showJson(h, opId);
    assert.match(created.signedInAs, /subject "alice" at http:\/\/127\.0\.0\.1/, 'the record keeps issuer and subject');

    await loginAs(h, 'bob', 'mcp:tasks openid');
    const before = world.taskRequests.filter((r) => r.taskId === taskId).length;
    for (const verb of ['get', 'watch', 'cancel', 'answer']) {
      const r = await h.run([verb, opId.slice(0, 8)]);
      assert.equal(r.code, 8, `${verb}: ${r.stderr}`);
      assert.match(r.stderr, /was created under subject "alice" at .*; the stored sign-in for server "secure" is subject "bob" at .*, so its handle was not sent/, verb);
      assert.match(r.stderr, /next: `mcp-tasks server login secure` as the account that created it/, verb);
    }
    assert.equal(world.taskRequests.filter((r) => r.taskId === taskId).length, before, 'no request carried the handle under bob');
    const json = parseJsonDoc((await h.run(['--json', 'get', opId.slice(0, 8)])).stdout);
    assert.equal(json.visible, false);
    assert.equal(json.handleSent, false);
    assert.equal((await showJson(h, opId)).phase, 'active', 'never marked lost');

    await loginAs(h, 'alice', 'mcp:tasks openid');
    const back = await h.run(['--json', 'get', opId.slice(0, 8)]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(parseJsonDoc(back.stdout).status, 'working');
    assert.ok(world.taskRequests.some((r) => r.taskId === taskId && r.account === 'alice'));
  });

  test('opaque tokens only: another grant that does not know the task is "not visible with this sign-in", never lost', async () => {
    const h = newHome();
    await h.ok(['server', 'add', 'secure', '--url', world.url]);
    await loginAs(h, 'alice');
    const { taskId, opId } = await detachedTask(h);
    const created = await showJson(h, opId);
    assert.match(created.signedInAs, /^sign-in grant [^ ]{8} at http:\/\/127\.0\.0\.1:\d+ \(no subject named\)$/, 'no subject: the grant is recorded');

    await loginAs(h, 'bob');
    // `server show` describes the sign-in in use now for what it is, not as "an earlier" one.
    const shownSignIn = parseJsonDoc((await h.run(['--json', 'server', 'show', 'secure'])).stdout).signIn;
    assert.match(shownSignIn.principal, /^sign-in grant [^ ]{8} at http:\/\/127\.0\.0\.1:\d+ \(no subject named\)$/);
    for (const verb of ['get', 'watch', 'cancel']) {
      const r = await h.run([verb, opId.slice(0, 8)]);
      assert.equal(r.code, 8, `${verb}: ${r.stderr}`);
      assert.match(r.stderr, /is not visible with this sign-in: server "secure" does not know it under sign-in grant [^ ]{8} at .*, and it was created under sign-in grant [^ ]{8} at .*\. It is not marked lost\./, verb);
      assert.match(r.stderr, /next: `mcp-tasks server login secure`/, verb);
    }
    assert.ok(world.taskRequests.some((r) => r.taskId === taskId && r.account === 'bob'), 'the handle went to the same server under a sign-in that could not be told apart');
    const shown = await showJson(h, opId);
    assert.equal(shown.phase, 'active', 'not lost');
    assert.equal(shown.reason, undefined);

    // The same person signing in again is a new grant too: visible again once the server knows it.
    await loginAs(h, 'alice');
    const back = await h.run(['--json', 'get', opId.slice(0, 8)]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(parseJsonDoc(back.stdout).status, 'working');
  });
});
