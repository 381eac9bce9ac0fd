// A real Secret Service for the keychain tests: a private D-Bus session bus (dbus-daemon) with
// GNOME Keyring's daemon on it, its login keyring unlocked, in a throw-away home: what a Linux
// desktop session gives the CLI. Checked from outside with libsecret's `secret-tool`. Debian's
// packages are installed where missing and this is root with apt-get (a fresh CI machine, as
// .ci/run does up front); anywhere else a missing one fails the test loudly, naming the packages.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dirs.js';

const PACKAGES = ['dbus-daemon', 'gnome-keyring', 'libsecret-tools'];
const PROGRAMS = ['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool', 'dbus-send'];

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the private bus. */
  address: string;
  /** The secret kept for mcp-tasks under `account`, as secret-tool reads it; undefined when none. */
  lookup(account: string): string | undefined;
  /** Every mcp-tasks entry's account (its username attribute), as secret-tool lists them. */
  accounts(): string[];
  /** Write an entry from outside, as another program would (secret-tool store); throws when it fails. */
  put(account: string, secret: string): void;
  stop(): void;
}

const onPath = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;

function ensurePrograms(): void {
  if (process.platform !== 'linux') throw new Error(`the keychain tests drive a Secret Service on Linux; this is ${process.platform}`);
  if (PROGRAMS.every(onPath)) return;
  const why = `the keychain tests need a Secret Service: ${PROGRAMS.filter((p) => !onPath(p)).join(', ')} not found (Debian: apt-get install --no-install-recommends ${PACKAGES.join(' ')})`;
  if (process.getuid?.() !== 0 || !onPath('apt-get')) throw new Error(why);
  const install = () => spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...PACKAGES], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8', timeout: 300_000 });
  let r = install();
  if (r.status !== 0) {
    spawnSync('apt-get', ['update', '-qq'], { encoding: 'utf8', timeout: 300_000 });
    r = install();
  }
  if (r.status !== 0 || !PROGRAMS.every(onPath)) throw new Error(`${why}; installing them failed:\n${r.stdout}\n${r.stderr}`);
}

function waitForLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    let err = '';
    child.stderr?.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl >= 0) resolve(text.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`${what} exited ${code} before it was ready: ${err.slice(-1000)}`)));
  });
}

export async function startSecretService(): Promise<SecretService> {
  ensurePrograms();
  const dir = tempDir('mcp-tasks-secrets-');
  const run = join(dir, 'run');
  mkdirSync(run);
  chmodSync(run, 0o700);
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--nopidfile', '--print-address=1', `--address=unix:path=${join(dir, 'bus')}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  const address = await waitForLine(bus, 'dbus-daemon');
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_RUNTIME_DIR: run };
  // --unlock reads the login keyring's password on stdin and creates that keyring unlocked: no prompt.
  const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'pipe'] });
  let keyringErr = '';
  keyring.stderr!.on('data', (d) => (keyringErr += d));
  keyring.stdin!.end('test-only-keyring-password');
  const stop = () => {
    keyring.kill('SIGTERM');
    bus.kill('SIGTERM');
  };
  process.once('exit', stop);
  // Ready when the bus says org.freedesktop.secrets has an owner.
  for (let i = 0; ; i++) {
    const r = spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'], { env, encoding: 'utf8' });
    if (r.stdout.includes('boolean true')) break;
    if (keyring.exitCode !== null || i > 200) {
      stop();
      throw new Error(`gnome-keyring-daemon did not take org.freedesktop.secrets on the bus: ${keyringErr.slice(-1000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const tool = (args: string[], input?: string) => spawnSync('secret-tool', args, { env, encoding: 'utf8', ...(input !== undefined ? { input } : {}) });
  return {
    address,
    lookup(account) {
      const r = tool(['lookup', 'service', 'mcp-tasks', 'username', account]);
      return r.status === 0 ? r.stdout : undefined;
    },
    accounts() {
      const r = tool(['search', '--all', 'service', 'mcp-tasks']);
      // search prints attributes on stdout and the item headers on stderr; no match is exit 1.
      return [...`${r.stdout}`.matchAll(/^attribute\.username = (.*)$/gm)].map((m) => m[1]!);
    },
    put(account, secret) {
      const r = tool(['store', '--label', `replaced ${account}`, 'service', 'mcp-tasks', 'username', account], secret);
      if (r.status !== 0) throw new Error(`secret-tool store failed: ${r.stderr}`);
    },
    stop() {
      process.removeListener('exit', stop);
      stop();
    },
  };
}
