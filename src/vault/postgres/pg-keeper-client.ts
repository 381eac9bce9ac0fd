// A command's side of the connection keeper (pg-keeper.ts): the store's connections through the
// keeper's socket when one is running for this store, this home and this login; otherwise none,
// and a keeper started for the next command (the command itself connects as before).
//
// Through the keeper a command loads no driver and signs in to nothing. A read is one message,
// run on a connection taken for it alone; a write asks for a connection (a lease, which changes
// nothing in the database) and sends its statements on it. A keeper that is gone or silent before
// a lease is granted, or while a read is on its way, costs nothing but the fallback: the command
// connects itself (and reads again: a read may run twice). A keeper lost while a write is on its
// way is a connection lost at that moment, and is reported as one (the write's outcome is not
// known), exactly as the command's own would be.
import { closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDir } from '../../fs/atomic-file.js';
import { finishBeforeExit, nodeBinary, osPlatform } from '../../fs/own-process.js';
import { DatabaseSilent, patientTimer } from './pg-patient.js';
import { decodeValue, encodeValue, keeperEnv, keeperSocketPath, keepMs, lineReader, mapRows, type WireError } from './pg-keeper-wire.js';

/** What the team store asks of a connection: the driver's PoolClient, or a lease from the keeper. */
export interface StoreClient {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
  release(broken?: boolean): void;
}

/** What reads a statement's rows: a connection, or a pool (one statement on a connection of its own). */
export type StoreQuery = Pick<StoreClient, 'query'>;

/** What the team store asks of its pool: the driver's Pool, or the keeper's. */
export interface StorePool {
  connect(): Promise<StoreClient>;
  /**
   * One statement on a connection taken for it alone (through a keeper: one message, no lease).
   * Only for reads: a keeper lost on the way leaves it unknown whether it ran, and it is run again.
   */
  query: StoreClient['query'];
  end(): Promise<void>;
}

/** The keeper itself failed (gone, or silent): not an answer from the database. */
class KeeperGone extends Error {
  readonly code = '08006';
}

/** How long a keeper that has started but does not yet listen keeps others from starting one. */
const STARTING_MS = 15_000;

/** The keeper's program: beside this module in the bundle, or at the top of the unbundled tree. */
function keeperEntry(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const p of [join(here, 'keeper.js'), join(here, '..', '..', 'keeper.js')]) if (existsSync(p)) return p;
  return undefined;
}

/**
 * Start a keeper for the next command, detached, unless one is starting already. Never fails:
 * without a keeper each command connects itself, as before.
 */
async function startKeeper(socket: string, url: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    const entry = keeperEntry();
    if (!entry) return;
    ensureDir(dirname(socket));
    const starting = `${socket}.starting`;
    try {
      closeSync(openSync(starting, 'wx', 0o600));
    } catch {
      // Another command is starting one; a mark left by a keeper that never listened is taken over.
      if (Date.now() - statSync(starting).mtimeMs < STARTING_MS) return;
      rmSync(starting, { force: true });
      closeSync(openSync(starting, 'wx', 0o600));
    }
    const { spawn } = await import('node:child_process');
    // Its own session, no stdio, in its own directory: it outlives the command and holds nothing of the terminal's or the working directory's.
    const child = spawn(nodeBinary, [entry], { detached: true, stdio: 'ignore', cwd: dirname(socket), env: keeperEnv(url, env, socket) });
    child.on('error', () => rmSync(starting, { force: true }));
    child.unref();
  } catch { /* no keeper: only slower */ }
}

/** One command's connection to a keeper: requests by number, answers matched to them. */
class KeeperLink {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (m: Record<string, unknown>) => void; reject: (e: Error) => void; stop: () => void }>();
  private gone: Error | undefined;

  constructor(private readonly sock: Socket, private readonly waitMs: number) {
    sock.on('data', lineReader((text) => this.answer(text)));
    sock.on('error', () => {});
    sock.on('close', () => this.fail(new KeeperGone('the team store\'s connection keeper closed the connection')));
    // Nothing waiting: the link never keeps a finished command alive.
    sock.unref();
  }

  get broken(): boolean {
    return this.gone !== undefined;
  }

  ask(m: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.gone) return Promise.reject(this.gone);
    const i = this.next++;
    return new Promise((resolve, reject) => {
      // Counted as the command's running time, as the database's own timeouts are (pg-patient.ts).
      const stop = patientTimer(this.waitMs, () => this.fail(new KeeperGone(`the team store's connection keeper did not answer within ${Math.round(this.waitMs / 1000)} s`)));
      this.waiting.set(i, { resolve, reject, stop });
      if (this.waiting.size === 1) this.sock.ref();
      this.sock.write(`${JSON.stringify({ ...m, i })}\n`);
    });
  }

  tell(m: Record<string, unknown>): void {
    if (!this.gone) this.sock.write(`${JSON.stringify({ ...m, i: this.next++ })}\n`);
  }

  end(): void {
    this.sock.end();
  }

  private answer(text: string): void {
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return this.fail(new KeeperGone('the team store\'s connection keeper sent an unreadable answer'));
    }
    const w = this.waiting.get(m.i as number);
    if (!w) return;
    this.waiting.delete(m.i as number);
    w.stop();
    if (this.waiting.size === 0) this.sock.unref();
    const err = m.error as WireError | undefined;
    if (err) w.reject(err.silent ? new DatabaseSilent(err.message) : Object.assign(new Error(err.message), err.code ? { code: err.code } : {}));
    else w.resolve(m);
  }

  private fail(err: Error): void {
    if (this.gone) return;
    this.gone = err;
    this.sock.destroy();
    for (const w of this.waiting.values()) {
      w.stop();
      w.reject(err);
    }
    this.waiting.clear();
  }
}

/** A statement's answer from the keeper, its values as they were. */
const answered = <R>(m: Record<string, unknown>): { rows: R[]; rowCount: number | null } => ({ rows: mapRows(m.rows as Array<Record<string, unknown>>, decodeValue) as R[], rowCount: (m.rowCount as number | null) ?? null });

/** The store's connections through a keeper; once the keeper fails a lease or a read, the command's own (`direct`). */
class KeeperPool implements StorePool {
  fallback: Promise<StorePool> | undefined;

  constructor(private readonly link: KeeperLink, private readonly direct: () => Promise<StorePool>) {}

  async connect(): Promise<StoreClient> {
    if (!this.fallback && !this.link.broken) {
      try {
        const { i } = await this.link.ask({ t: 'lease' });
        return this.leased(i as number);
      } catch (err) {
        // A lease asks nothing of the database: a keeper gone before granting one is left for the command's own connection.
        if (!(err instanceof KeeperGone)) throw err;
      }
    }
    this.fallback ??= this.direct();
    return (await this.fallback).connect();
  }

  async query<R>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }> {
    if (!this.fallback && !this.link.broken) {
      try {
        return answered<R>(await this.link.ask({ t: 'query', text, values: (values ?? []).map(encodeValue) }));
      } catch (err) {
        // A read the keeper may or may not have run, run again on the command's own connection.
        if (!(err instanceof KeeperGone)) throw err;
      }
    }
    this.fallback ??= this.direct();
    return (await this.fallback).query<R>(text, values);
  }

  private leased(lease: number): StoreClient {
    const link = this.link;
    let released = false;
    return {
      async query<R>(text: string, values?: unknown[]) {
        return answered<R>(await link.ask({ t: 'query', l: lease, text, values: (values ?? []).map(encodeValue) }));
      },
      release(broken?: boolean) {
        if (released) return;
        released = true;
        link.tell({ t: 'release', l: lease, broken: broken === true });
      },
    };
  }

  async end(): Promise<void> {
    this.link.end();
    if (this.fallback) await (await this.fallback).end();
  }
}

/**
 * The store's pool through a running keeper for this home, store and login; undefined when there
 * is none (a keeper is then started for the next command), keeping is off (MCP_TASKS_STORE_KEEP=0),
 * or on Windows, whose sockets of this kind (named pipes) it does not use.
 */
export async function keptPool(home: string, url: string, env: NodeJS.ProcessEnv, waitMs: number, direct: () => Promise<StorePool>): Promise<StorePool | undefined> {
  if (keepMs(env) === 0 || osPlatform === 'win32') return undefined;
  const socket = keeperSocketPath(home, url, env);
  if (!socket) return undefined;
  const sock = createConnection(socket);
  const reached = await new Promise<boolean>((resolve) => {
    sock.once('connect', () => resolve(true));
    sock.once('error', () => resolve(false));
  });
  if (!reached) {
    sock.destroy();
    // Started while the command goes on; a command that ends first still starts it.
    finishBeforeExit(startKeeper(socket, url, env));
    return undefined;
  }
  return new KeeperPool(new KeeperLink(sock, waitMs), direct);
}

/** True when `pool` reaches the store through a keeper (and has not fallen back to its own connections). */
export const throughKeeper = (pool: StorePool): boolean => pool instanceof KeeperPool && !pool.fallback;
