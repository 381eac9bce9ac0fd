// `mcp-tasks demo-server`: the embedded 2026-07-28 tasks server, over HTTP or stdio.
import type { Context } from '../../context.js';
import { CliError, ExitCode, usageError } from '../../errors.js';
import { defaultDemoStore } from '../../home.js';
import { sayOn, streamLine } from '../../output/notes.js';
import { cmd, hint } from '../../hint.js';

export interface DemoServerOptions {
  http?: string;
  host?: string;
  stdio?: boolean;
  store?: string;
  fault?: string[];
}

export async function runDemoServer(opts: DemoServerOptions, ctx: Context): Promise<number> {
  const { parseFaults, TaskEngine } = await import('../../demo/task-engine.js');
  const { FileTaskStore, StoreError } = await import('../../demo/task-store.js');
  const { TaskSurface } = await import('../../demo/task-surface.js');

  if (opts.http !== undefined && opts.stdio) throw usageError('choose one of --http <port> and --stdio');
  let faults;
  try {
    faults = parseFaults(opts.fault ?? []);
  } catch (err) {
    throw usageError((err as Error).message, hint`See \`${cmd('demo-server', '--help')}\` for the fault names.`);
  }
  const storePath = opts.store ?? defaultDemoStore(ctx.home);
  let store;
  try {
    store = new FileTaskStore(storePath).open();
  } catch (err) {
    if (err instanceof StoreError) throw new CliError('store', err.message, 'Pass a writable file with --store <file>.');
    throw err;
  }
  const surface = new TaskSurface(new TaskEngine(store, faults));
  const say = sayOn(ctx);
  const log = (line: string) => say(`demo-server: ${line}`);

  if (opts.http !== undefined) {
    const port = Number(opts.http);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--http needs a port number (0-65535), got "${opts.http}"`);
    const { startHttpDemo } = await import('../../demo/http-server.js');
    let demo;
    try {
      demo = await startHttpDemo(surface, { port, host: opts.host ?? '127.0.0.1', log: ctx.verbose ? log : undefined });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EADDRINUSE') throw new CliError('usage', `port ${port} is already in use`, 'Pick another port with --http <port>, or --http 0 for a free one.');
      if (e.code === 'EACCES') throw new CliError('usage', `not allowed to listen on port ${port}`, 'Use a port above 1023.');
      if (e.code === 'EADDRNOTAVAIL') throw new CliError('usage', `cannot bind ${opts.host}`, 'Use --host 127.0.0.1.');
      throw err;
    }
    // The URL line is the contract with scripts and tests that start the server: keep it stable.
    streamLine(ctx, `demo-server listening on ${demo.url}`);
    log(`store ${storePath}${opts.fault?.length ? `, faults: ${opts.fault.join(', ')}` : ''}`);
    await new Promise<void>((resolve) => {
      if (ctx.interrupt.aborted) return resolve();
      ctx.interrupt.addEventListener('abort', () => resolve(), { once: true });
      process.once('SIGTERM', () => resolve());
    });
    await demo.close();
    return ExitCode.Ok;
  }

  const { startStdioDemo } = await import('../../demo/stdio-server.js');
  const handle = startStdioDemo(surface, log);
  await new Promise<void>((resolve) => {
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
    ctx.interrupt.addEventListener('abort', () => resolve(), { once: true });
    process.once('SIGTERM', () => resolve());
  });
  await handle.close();
  return ExitCode.Ok;
}
