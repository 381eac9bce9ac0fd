// The team store's connection keeper: a small process of its own (src/keeper.ts) that keeps
// signed-in connections to one team store for the commands of one home, so that a command finds
// a connection ready instead of loading the driver, signing in (SCRAM) and waiting for the database
// to start a backend. A command that finds no keeper connects itself and starts one for the next
// (pg-keeper-client.ts); the keeper leaves once no command has used it for MCP_TASKS_STORE_KEEP
// seconds (default 300), or when its socket is removed (the home deleted).
//
// What it holds: the database connection and nothing more. It never has the team key: it passes
// statements and their rows, which are sealed records and keyed hashes, as the database sees them.
// Its socket is in the home's keep/ directory (0700) and is itself 0600: only this user reaches it.
// A command's connection is its own for as long as the command holds it (a lease); a command that
// ends without giving it back (killed) has its connection closed, so the database rolls back what
// it left open and no lock outlives it, as when a command's own connection drops.
import { chmodSync, rmSync, statSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { ensureDir } from '../../fs/atomic-file.js';
import { loadPg } from './pg-driver.js';
import { DatabaseSilent } from './pg-patient.js';
import { teamStoreClient } from './pg-connect.js';
import { decodeValue, encodeValue, lineReader, mapRows, type WireError } from './pg-keeper-wire.js';

export interface KeeperOptions {
  url: string;
  /** The keeper's own environment (keeperEnv): the driver's variables, the store's timeout. */
  env: NodeJS.ProcessEnv;
  socket: string;
  /** How long to stay once no command is connected. */
  keepMs: number;
}

/** Connections a keeper holds at most; more commands at once wait for one (for a moment: each holds it for a few statements). */
const KEEPER_CONNECTIONS = 10;
/**
 * Connections it keeps while no command uses them: one. A fleet's runners gone quiet hold one
 * each, and a burst's extra connections close as it ends, as a command's own would.
 */
const KEPT_IDLE = 1;
/** How long a leaving keeper waits for its connections to close. */
const END_WAIT_MS = 5_000;
/** How often the keeper checks that its socket is still its own. */
const WATCH_MS = 2_000;

interface Request {
  i: number;
  t: 'lease' | 'query' | 'release';
  l?: number;
  text?: string;
  values?: unknown[];
  broken?: boolean;
}

const wireError = (err: unknown): WireError => {
  const e = err as { message?: unknown; code?: unknown };
  return { message: typeof e?.message === 'string' ? e.message : String(err), ...(typeof e?.code === 'string' ? { code: e.code } : {}), ...(err instanceof DatabaseSilent ? { silent: true } : {}) };
};

/** Listen on `path`, taking over a socket file no keeper answers on; false when a live keeper has it. */
async function listenOn(server: Server, path: string): Promise<boolean> {
  const listen = () => new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const failed = (err: NodeJS.ErrnoException) => resolve(err);
    server.once('error', failed);
    server.listen(path, () => {
      server.off('error', failed);
      resolve(undefined);
    });
  });
  const first = await listen();
  if (!first) return true;
  if (first.code !== 'EADDRINUSE') throw first;
  const alive = await new Promise<boolean>((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (alive) return false;
  rmSync(path, { force: true });
  const second = await listen();
  if (second) throw second;
  return true;
}

/** Runs a keeper until it is idle for keepMs, its socket goes, or `stop` is called; resolves then. */
export async function runKeeper(o: KeeperOptions): Promise<{ stop: () => void; ended: Promise<void> }> {
  ensureDir(dirname(o.socket));
  chmodSync(dirname(o.socket), 0o700);
  const live = new Set<Socket>();
  let pool: Pool | undefined;
  const poolNow = (): Pool => {
    if (!pool) {
      const pg = loadPg();
      pool = new pg.Pool({ connectionString: o.url, max: KEEPER_CONNECTIONS, idleTimeoutMillis: o.keepMs, Client: teamStoreClient(o.env), application_name: 'mcp-tasks keeper' });
      // A connection dropped while idle (a restarted server) is replaced on the next lease.
      pool.on('error', () => {});
    }
    return pool;
  };
  const server = createServer((conn) => serve(conn));
  let finish!: () => void;
  const ended = new Promise<void>((resolve) => (finish = resolve));
  let stopping = false;
  let idle: NodeJS.Timeout | undefined;
  /** The socket file this keeper made (its inode): one it finds replaced is no longer its own. */
  const own = { ino: -1 };

  const stop = () => {
    if (stopping) return;
    stopping = true;
    clearInterval(watch);
    if (idle) clearTimeout(idle);
    try {
      if (statSync(o.socket).ino === own.ino) rmSync(o.socket, { force: true });
    } catch { /* gone already */ }
    server.close();
    for (const c of live) c.destroy();
    // Its connections are told to close; a database that no longer answers does not keep the keeper.
    setTimeout(finish, END_WAIT_MS).unref();
    void (pool ? pool.end().catch(() => {}) : Promise.resolve()).then(finish);
  };
  // The home removed, or the socket taken by another keeper: nobody reaches this one any more.
  const watch = setInterval(() => {
    if (own.ino < 0) return; // not listening yet
    try {
      if (statSync(o.socket).ino !== own.ino) stop();
    } catch {
      stop();
    }
  }, WATCH_MS);
  const idleSoon = () => {
    if (idle) clearTimeout(idle);
    idle = live.size === 0 ? setTimeout(stop, o.keepMs) : undefined;
  };

  function serve(conn: Socket): void {
    if (stopping) return void conn.destroy();
    live.add(conn);
    idleSoon();
    const leases = new Map<number, PoolClient>();
    // Connections taken for one statement alone (a read with no lease), until it answers.
    const shots = new Set<PoolClient>();
    /** Back to the pool: kept only at rest and while fewer than KEPT_IDLE wait there. */
    const giveBack = (c: PoolClient, broken: boolean) => c.release(broken || c.getTransactionStatus?.() !== 'I' || (pool?.idleCount ?? 0) >= KEPT_IDLE);
    const reply = (m: object) => {
      if (!conn.destroyed) conn.write(`${JSON.stringify(m)}\n`);
    };
    /** Run the request's statement on `c`; its rows answered as they travel. */
    const run = (c: PoolClient, m: Request) =>
      c.query({ text: m.text ?? '', values: (m.values ?? []).map(decodeValue) }).then((r) => ({ i: m.i, rows: mapRows(r.rows as Array<Record<string, unknown>>, encodeValue), rowCount: r.rowCount }));
    const handle = (m: Request) => {
      if (m.t === 'lease') {
        poolNow().connect().then(
          (c) => {
            // The command left while it waited: the connection goes back unused.
            if (conn.destroyed) return c.release();
            leases.set(m.i, c);
            reply({ i: m.i, ok: true });
          },
          (err) => reply({ i: m.i, error: wireError(err) }),
        );
      } else if (m.t === 'query' && m.l === undefined) {
        poolNow().connect().then(
          (c) => {
            // The command left while it waited: nothing was asked yet.
            if (conn.destroyed) return c.release();
            shots.add(c);
            run(c, m).then(
              (answer) => {
                // Closed already when the command left meanwhile.
                if (!shots.delete(c)) return;
                giveBack(c, false);
                reply(answer);
              },
              (err) => {
                if (shots.delete(c)) giveBack(c, true);
                reply({ i: m.i, error: wireError(err) });
              },
            );
          },
          (err) => reply({ i: m.i, error: wireError(err) }),
        );
      } else if (m.t === 'query') {
        const c = leases.get(m.l!);
        if (!c) return reply({ i: m.i, error: { message: 'the connection keeper holds no such connection', code: '08003' } });
        run(c, m).then(reply, (err) => reply({ i: m.i, error: wireError(err) }));
      } else if (m.t === 'release') {
        const c = m.l === undefined ? undefined : leases.get(m.l);
        if (!c) return;
        leases.delete(m.l!);
        // Only a connection back at rest is kept: one left inside a transaction is closed, and so is one beyond KEPT_IDLE.
        giveBack(c, m.broken === true);
      }
    };
    conn.on('data', lineReader((text) => {
      let m: Request;
      try {
        m = JSON.parse(text) as Request;
      } catch {
        return void conn.destroy();
      }
      if (m && typeof m.i === 'number') handle(m);
    }));
    conn.on('error', () => {});
    conn.on('close', () => {
      live.delete(conn);
      // A command gone while it held a connection: closed, so nothing it began stays open.
      for (const c of leases.values()) c.release(true);
      leases.clear();
      // And a read it left running: no answer is waited for.
      for (const c of shots) c.release(true);
      shots.clear();
      if (!stopping) idleSoon();
    });
  }

  if (!(await listenOn(server, o.socket))) {
    clearInterval(watch);
    return { stop: () => {}, ended: Promise.resolve() };
  }
  chmodSync(o.socket, 0o600);
  own.ino = statSync(o.socket).ino;
  rmSync(`${o.socket}.starting`, { force: true });
  idleSoon();
  return { stop, ended };
}
