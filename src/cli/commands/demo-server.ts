// `mcp-tasks demo-server`: the embedded 2026-07-28 tasks server, over HTTP or stdio. The server is
// started by app/demo-server.ts; this file runs it until a signal (or, over stdio, the end of stdin).
import type { Context } from '../../context.js';
import { ExitCode, usageError } from '../../errors.js';
import type { DemoServerOptions, RunningDemo } from '../../app/demo-server.js';
export type { DemoServerOptions };

export async function runDemoServer(opts: DemoServerOptions, ctx: Context): Promise<number> {
  if (opts.http !== undefined && opts.stdio) throw usageError('choose one of --http <port> and --stdio');
  const { startDemoServer } = await import('../../app/demo-server.js');
  const demo = await startDemoServer(ctx, opts);
  await stopped(ctx, demo);
  await demo.close();
  return ExitCode.Ok;
}

/** Ctrl-C or SIGTERM; over stdio also the end of stdin (the client went away). */
function stopped(ctx: Context, demo: RunningDemo): Promise<void> {
  return new Promise<void>((resolve) => {
    if (demo.transport === 'http') {
      if (ctx.interrupt.aborted) return resolve();
    } else {
      process.stdin.once('end', () => resolve());
      process.stdin.once('close', () => resolve());
    }
    ctx.interrupt.addEventListener('abort', () => resolve(), { once: true });
    process.once('SIGTERM', () => resolve());
  });
}
