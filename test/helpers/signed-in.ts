// The setup the sign-in tests share: the demo server behind a real authorization server
// (oidc-provider, test/helpers/auth-server.ts) for one describe block, and a home whose server
// "secure" is added and signed in through `server login` with the scripted browser ($BROWSER).
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { newHome, startDemo, type DemoServer, type TestHome } from './cli.js';
import { startAuthWorld, type AuthWorld } from './auth-server.js';

export const BROWSER_SCRIPT = fileURLToPath(new URL('../../../test/helpers/browser.mjs', import.meta.url));

/** The environment that makes `server login` (or an in-place sign-in) use the scripted browser. */
export const browserEnv = (extra: Record<string, string> = {}): Record<string, string> => ({ BROWSER: `${process.execPath} ${BROWSER_SCRIPT}`, ...extra });

export interface AuthSuite {
  /** Set once the suite's `before` ran. */
  readonly demo: DemoServer;
  readonly world: AuthWorld;
}

/** Inside a describe: the demo server and an authorization server in front of it, started before its tests, closed after. */
export function useAuthWorld(): AuthSuite {
  const suite = {} as { demo: DemoServer; world: AuthWorld };
  before(async () => {
    suite.demo = await startDemo();
    suite.world = await startAuthWorld(suite.demo.url);
  });
  after(async () => {
    await suite.world.close();
    await suite.demo.stop();
  });
  return suite;
}

/** A home (new, or the one given) with server `name` (default "secure") at the world's gate, signed in with the scripted browser. */
export async function signedInHome(world: AuthWorld, opts: { name?: string; home?: TestHome } = {}): Promise<TestHome> {
  const h = opts.home ?? newHome();
  const name = opts.name ?? 'secure';
  await h.ok(['server', 'add', name, '--url', world.url]);
  await h.ok(['server', 'login', name], { env: browserEnv() });
  return h;
}
