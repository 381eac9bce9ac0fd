// The only exit point: everything else returns an exit code.
import { readFileSync } from 'node:fs';
import { main } from './main.js';

// A reader that goes away (`mcp-tasks list | head`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const controller = new AbortController();
let interrupted = false;
// First Ctrl-C (or a SIGTERM from a CI runner) asks the running command to stop cleanly, with
// its handles kept; a second one forces the exit.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    controller.abort();
  });
}

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdinIsTTY: Boolean(process.stdin.isTTY),
  readStdin: () => readFileSync(0, 'utf8'),
  env: process.env,
  platform: process.platform,
  interrupt: controller.signal,
  ...(process.argv[1] ? { script: process.argv[1] } : {}),
});
