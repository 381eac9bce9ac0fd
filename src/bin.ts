// The only exit point: everything else returns an exit code.
import { readFileSync } from 'node:fs';
import nodeModule from 'node:module';
import { isatty } from 'node:tty';
import { registerChunkResolve } from './bundle-resolve.js';
import { printSnapshotHelp } from './cli/fast-help.js';
import { unfinishedWork } from './fs/own-process.js';

// A reader that goes away (`mcp-tasks list | head`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const controller = new AbortController();
let interrupted = false;
const HANDLED = ['SIGINT', 'SIGTERM'] as const;
// First Ctrl-C (or a SIGTERM from a CI runner) asks the running command to stop cleanly, with
// its handles kept (an in-flight tools/call becomes an in-doubt record, exit 10); a second one
// from the user forces the exit.
for (const signal of HANDLED) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    controller.abort();
  });
}
// The signal handling is ours alone: a dependency that re-raises a signal on itself to die after
// its own cleanup (when-exit, under conf's atomic writes, does) would otherwise count as the
// person's second Ctrl-C and turn an in-doubt submission (exit 10) into a bare exit 130.
const realKill = process.kill.bind(process);
process.kill = ((pid: number, signal?: string | number) => {
  const name = typeof signal === 'number' ? (signal === 2 ? 'SIGINT' : signal === 15 ? 'SIGTERM' : undefined) : signal;
  if (pid === process.pid && (HANDLED as readonly (string | undefined)[]).includes(name)) return true;
  return realKill(pid, signal);
}) as typeof process.kill;

const argv = process.argv.slice(2);
const script = process.argv[1] ? { script: process.argv[1] } : {};
// Plain help from the build's snapshot (beside the bundle), without loading commander; main
// otherwise (MCP_TASKS_TIMING reports main's own figures).
if (process.env.MCP_TASKS_TIMING !== '1' && printSnapshotHelp(argv, { stdout: process.stdout, env: process.env, ...script }, new URL('./help-snapshot.json', import.meta.url))) {
  await exitNow(0);
} else {
  // V8 doubles the young generation whenever most of it survives a scavenge, as a start-up's
  // objects do (modules, the SDK's ~1,450 zod schemas): by the end of a `get` it holds 8 MB that
  // the rest of the run never uses. On Node 22, kept at its first size, `get`'s peak RSS is 5 MB
  // lower (74 MB, where it would sit at the 80 MB cap), for about 9 % more wall time, same CPU
  // (npm run bench; docs/performance.md). Node 20 (69 MB, +10 % CPU) and 24 (77 MB, +11 % wall)
  // keep V8's default. Only on the line measured: V8 prints an error for a flag it does not know.
  if (process.versions.node.split('.')[0] === '22') (await import('node:v8')).default.setFlagsFromString('--semi-space-growth-factor=1');
  // The chunks main needs find each other without the default resolver's filesystem work (see the module).
  registerChunkResolve(nodeModule, new URL('./', import.meta.url).href);
  const { main } = await import('./main.js');
  await exitNow(await main(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    // Not process.stdin.isTTY: reading process.stdin makes the stream, and a stdin that is a file
    // or /dev/null (CI, cron) makes an fs.ReadStream, loading fs/promises and readline for nothing.
    stdinIsTTY: isatty(0),
    readStdin: () => readFileSync(0, 'utf8'),
    env: process.env,
    platform: process.platform,
    interrupt: controller.signal,
    ...script,
  }));
}

/**
 * End the process once the command is done, rather than when its event loop empties. Left to end
 * on its own, Node first finishes V8's pending garbage collection work (an incremental marking
 * begun near the end of a command is completed, not dropped) and then tears the heap down: 10 to
 * 45 ms after the last line of output, the larger on Node 20 (docs/performance.md). Waited for
 * first: work a command left running on purpose (fs/own-process.ts finishBeforeExit), and stdout
 * and stderr written out (a pipe writes asynchronously on macOS and Windows). The 'exit' handlers
 * still run.
 */
async function exitNow(code: number): Promise<never> {
  process.exitCode = code;
  await unfinishedWork();
  await Promise.all([written(process.stdout), written(process.stderr)]);
  process.exit(code);
}

/** Settles once what was written to `stream` has left the process (or the stream has failed). */
function written(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}
