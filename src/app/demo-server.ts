// The use case behind `demo-server`: the embedded 2026-07-28 tasks server (demo/) on its durable
// store with the faults asked for, started over HTTP or stdio. What keeps it from starting is a
// CliError with the next step; the command waits for the end (a signal, stdin closed) and closes it.
import type { Context } from '../context.js';
import { CliError, usageError } from '../errors.js';
import { cmd, hint } from '../hint.js';
import { defaultDemoStore } from '../home.js';
import { sayOn, streamLine, type Say } from '../output/notes.js';
import type { HttpDemo } from '../demo/http-server.js';
import type { TaskSurface } from '../demo/task-surface.js';

export interface DemoServerOptions {
  http?: string;
  host?: string;
  stdio?: boolean;
  store?: string;
  fault?: string[];
}

/** A started demo server: over stdio it ends when stdin does. */
export interface RunningDemo {
  transport: 'http' | 'stdio';
  close(): Promise<void>;
}

export async function startDemoServer(ctx: Context, opts: DemoServerOptions): Promise<RunningDemo> {
  const storePath = opts.store ?? defaultDemoStore(ctx.home);
  const surface = await openSurface(storePath, opts.fault ?? []);
  const say = sayOn(ctx);
  const log: Say = (line) => say(`demo-server: ${line}`);
  if (opts.http === undefined) {
    const { startStdioDemo } = await import('../demo/stdio-server.js');
    const handle = startStdioDemo(surface, log);
    return { transport: 'stdio', close: () => handle.close() };
  }
  const demo = await listenHttp(surface, opts.http, opts.host, ctx.verbose ? log : undefined);
  // The URL line is the contract with scripts and tests that start the server: keep it stable.
  streamLine(ctx, `demo-server listening on ${demo.url}`);
  log(`store ${storePath}${opts.fault?.length ? `, faults: ${opts.fault.join(', ')}` : ''}`);
  return { transport: 'http', close: () => demo.close() };
}

/** The task surface over the store at `storePath`, with the faults named. */
async function openSurface(storePath: string, faultNames: string[]): Promise<TaskSurface> {
  const { parseFaults, TaskEngine } = await import('../demo/task-engine.js');
  const { FileTaskStore, StoreError } = await import('../demo/task-store.js');
  const { TaskSurface } = await import('../demo/task-surface.js');
  let faults;
  try {
    faults = parseFaults(faultNames);
  } catch (err) {
    throw usageError((err as Error).message, hint`See \`${cmd('demo-server', '--help')}\` for the fault names.`);
  }
  let store;
  try {
    store = new FileTaskStore(storePath).open();
  } catch (err) {
    if (err instanceof StoreError) throw new CliError('store', err.message, 'Pass a writable file with --store <file>.');
    throw err;
  }
  return new TaskSurface(new TaskEngine(store, faults));
}

/** Streamable HTTP on `--http <port>`: a port that cannot be had is a usage error with another to try. */
async function listenHttp(surface: TaskSurface, portText: string, host: string | undefined, log: Say | undefined): Promise<HttpDemo> {
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--http needs a port number (0-65535), got "${portText}"`);
  const { startHttpDemo } = await import('../demo/http-server.js');
  try {
    return await startHttpDemo(surface, { port, host: host ?? '127.0.0.1', log });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new CliError('usage', `port ${port} is already in use`, 'Pick another port with --http <port>, or --http 0 for a free one.');
    if (e.code === 'EACCES') throw new CliError('usage', `not allowed to listen on port ${port}`, 'Use a port above 1023.');
    if (e.code === 'EADDRNOTAVAIL') throw new CliError('usage', `cannot bind ${host}`, 'Use --host 127.0.0.1.');
    throw err;
  }
}
