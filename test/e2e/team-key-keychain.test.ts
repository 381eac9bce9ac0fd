// The team key in the OS keychain (`store key save|forget`), against a real PostgreSQL and a real
// Secret Service (a private D-Bus session with GNOME Keyring, test/helpers/secret-service.ts),
// read back from outside with libsecret's secret-tool: a saved key opens its store with no
// MCP_TASKS_TEAM_KEY, and only that store; a wrong key, a key on the command line, a store
// without a schema or no usable keychain save nothing; the variable wins over the keychain; a
// wrong key in the keychain is named as such; forget removes it. Every CLI run is a real child
// process: the keychain binding reads the session bus from the process's own environment.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homeWithServer, parseJsonDoc, startDemo, type DemoServer, type TestHome } from '../helpers/cli.js';
import { startCluster, type TestCluster } from '../helpers/postgres.js';
import { startSecretService, type SecretService } from '../helpers/secret-service.js';

const TEAM_KEY = 'team-key-for-keychain-tests-0123';

let cluster: TestCluster;
let demo: DemoServer;
let secrets: SecretService;
let dbs = 0;

before(async () => {
  cluster = await startCluster();
  secrets = await startSecretService();
  demo = await startDemo();
});
after(async () => {
  secrets?.stop();
  await demo?.stop();
  await cluster?.stop();
});

/** The keychain entry's account for a store URL: its user, host, port and database. */
const accountOf = (url: string) => {
  const u = new URL(url);
  return `team-key postgres://${u.username}@${u.host}${u.pathname}`;
};

/**
 * A fresh store made with the team key, a home pointed at it, and the environment of a person
 * on a desktop: the store URL, the session bus, the keychain allowed, no MCP_TASKS_TEAM_KEY.
 */
async function storeAndHome(): Promise<{ url: string; h: TestHome; desk: Record<string, string | undefined> }> {
  const url = await cluster.newDatabase(`kc_${++dbs}`);
  const h = await homeWithServer('demo-http', demo.url);
  await h.ok(['store', 'init'], { env: { MCP_TASKS_STORE: url, MCP_TASKS_TEAM_KEY: TEAM_KEY } });
  const desk = { MCP_TASKS_STORE: url, DBUS_SESSION_BUS_ADDRESS: secrets.address, MCP_TASKS_NO_KEYCHAIN: undefined, MCP_TASKS_TEAM_KEY: undefined };
  return { url, h, desk };
}

/** Every file under `dir`, as text. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...filesUnder(p));
    // Files only: the connection keeper's socket (keep/) holds nothing to read.
    else if (st.isFile()) out.push(readFileSync(p).toString('latin1'));
  }
  return out;
}

test('a saved team key opens its store with no MCP_TASKS_TEAM_KEY, and only that store; it is in the keychain, in no file of the home', async () => {
  const { url, h, desk } = await storeAndHome();
  const saved = await h.run(['--json', 'store', 'key', 'save'], { env: desk, input: `${TEAM_KEY}\n`, spawn: true });
  assert.equal(saved.code, 0, saved.stderr);
  assert.equal((parseJsonDoc(saved.stdout) as { saved: boolean }).saved, true);
  // From outside: the Secret Service holds exactly this key, under this store's name (the pipe's newline not in it).
  assert.equal(secrets.lookup(accountOf(url)), TEAM_KEY);

  const call = await h.run(['--json', 'call', 'demo-http', 'slow_compute', 'seconds=30', '--detach', '--label', 'kc=saved'], { env: desk, spawn: true });
  assert.equal(call.code, 0, call.stderr);
  const listed = await h.run(['--json', 'list', '--label', 'kc=saved'], { env: desk, spawn: true });
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal((parseJsonDoc(listed.stdout) as unknown[]).length, 1);
  const got = await h.run(['--json', 'get', 'saved'], { env: desk, spawn: true });
  assert.equal(got.code, 0, got.stderr);
  assert.equal((parseJsonDoc(got.stdout) as { status: string }).status, 'working');
  const status = await h.run(['--json', 'store', 'status'], { env: desk, spawn: true });
  assert.equal(status.code, 0, status.stderr);
  assert.equal((parseJsonDoc(status.stdout) as { teamKey: string }).teamKey, 'keychain');
  // The same records read with the variable: the keychain's key is the team key itself.
  const withVar = await h.run(['--json', 'list', '--label', 'kc=saved'], { env: { ...desk, MCP_TASKS_TEAM_KEY: TEAM_KEY }, spawn: true });
  assert.equal((parseJsonDoc(withVar.stdout) as unknown[]).length, 1);

  for (const text of filesUnder(h.dir)) assert.ok(!text.includes(TEAM_KEY), 'the team key is in a file of the home');

  // Another store on the same server: the key saved for the first is not used for it.
  const other = await cluster.newDatabase(`kc_${++dbs}`);
  await h.ok(['store', 'init'], { env: { MCP_TASKS_STORE: other, MCP_TASKS_TEAM_KEY: TEAM_KEY } });
  const elsewhere = await h.run(['list'], { env: { ...desk, MCP_TASKS_STORE: other }, spawn: true });
  assert.equal(elsewhere.code, 9, elsewhere.stderr);
  assert.match(elsewhere.stderr, /MCP_TASKS_TEAM_KEY is not set, and the OS keychain holds none for this store/);
  assert.match(elsewhere.stderr, /store key save/);
});

test('a wrong key, a key on the command line, a store without a schema, no usable keychain: each saves nothing', async () => {
  const { url, h, desk } = await storeAndHome();
  const wrong = await h.run(['store', 'key', 'save'], { env: desk, input: 'not-the-team-key-0123456789', spawn: true });
  assert.equal(wrong.code, 9, wrong.stderr);
  assert.match(wrong.stderr, /the team key given is not the key it was created with/);
  assert.equal(secrets.lookup(accountOf(url)), undefined);

  const onArgv = await h.run(['store', 'key', 'save', TEAM_KEY], { env: desk, spawn: true });
  assert.equal(onArgv.code, 1, onArgv.stderr);
  assert.match(onArgv.stderr, /takes no argument: a team key on a command line is seen by other users/);
  assert.match(onArgv.stderr, /printf %s "\$TEAM_KEY" \| mcp-tasks store key save/);
  assert.equal(secrets.lookup(accountOf(url)), undefined);

  const empty = await h.run(['store', 'key', 'save'], { env: desk, input: '', spawn: true });
  assert.equal(empty.code, 1, empty.stderr);
  assert.match(empty.stderr, /no team key on stdin/);

  const bare = await cluster.newDatabase(`kc_${++dbs}`);
  const noSchema = await h.run(['store', 'key', 'save'], { env: { ...desk, MCP_TASKS_STORE: bare }, input: TEAM_KEY, spawn: true });
  assert.equal(noSchema.code, 9, noSchema.stderr);
  assert.match(noSchema.stderr, /has no mcp-tasks schema yet: there is nothing to check the key against, so it was not saved/);
  assert.equal(secrets.lookup(accountOf(bare)), undefined);

  // No session bus (an ssh session, a headless box): the key checks out, and the keychain says why it cannot keep it.
  const headless = await h.run(['store', 'key', 'save'], { env: { ...desk, DBUS_SESSION_BUS_ADDRESS: undefined }, input: TEAM_KEY, spawn: true });
  assert.equal(headless.code, 9, headless.stderr);
  assert.match(headless.stderr, /the Secret Service keyring cannot be used here \(.+\); the team key was checked but not saved/);
  assert.equal(secrets.lookup(accountOf(url)), undefined);
  assert.deepEqual(secrets.accounts().filter((a) => a === accountOf(url) || a === accountOf(bare)), []);
});

test('MCP_TASKS_TEAM_KEY wins over the saved key; a wrong key in the keychain is named as such; forget removes it', async () => {
  const { url, h, desk } = await storeAndHome();
  const saved = await h.run(['store', 'key', 'save'], { env: desk, input: TEAM_KEY, spawn: true });
  assert.equal(saved.code, 0, saved.stderr);

  const varWins = await h.run(['list'], { env: { ...desk, MCP_TASKS_TEAM_KEY: 'a-wrong-key-in-the-variable' }, spawn: true });
  assert.equal(varWins.code, 9, varWins.stderr);
  assert.match(varWins.stderr, /MCP_TASKS_TEAM_KEY is not the key it was created with/);

  // Another program replaces the entry (secret-tool, from outside): the CLI names the keychain's key, and how to mend it.
  secrets.put(accountOf(url), 'someone-elses-key-0123456789');
  const wrongSaved = await h.run(['list'], { env: desk, spawn: true });
  assert.equal(wrongSaved.code, 9, wrongSaved.stderr);
  assert.match(wrongSaved.stderr, /the team key in the OS keychain is not the key it was created with/);
  assert.match(wrongSaved.stderr, /next: Save the right one: `mcp-tasks store key save`/);

  const forgot = await h.run(['--json', 'store', 'key', 'forget'], { env: desk, spawn: true });
  assert.equal(forgot.code, 0, forgot.stderr);
  assert.equal((parseJsonDoc(forgot.stdout) as { removed: boolean }).removed, true);
  assert.equal(secrets.lookup(accountOf(url)), undefined);
  const again = await h.run(['store', 'key', 'forget'], { env: desk, spawn: true });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /held no team key for .*; nothing was removed/);
  const none = await h.run(['list'], { env: desk, spawn: true });
  assert.equal(none.code, 9, none.stderr);
  assert.match(none.stderr, /MCP_TASKS_TEAM_KEY is not set, and the OS keychain holds none for this store/);
});
