// Third-party MCP servers from npm, started over Streamable HTTP on 127.0.0.1 with an ephemeral
// port. Every child is killed when the test ends (or when the test process exits).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { PORT_LINE_PREFIX } from './port-line.js';

const require = createRequire(import.meta.url);
const PRELOAD = fileURLToPath(new URL('./listen-on-loopback.js', import.meta.url));

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
});

export interface RunningServer {
  url: string;
  port: number;
  /** What the server printed on stderr so far (for failure messages). */
  stderr(): string;
  stop(): Promise<void>;
}

interface HasAfter {
  after(fn: () => unknown): void;
}

/** The entry script of an npm package's (first) bin. */
export function packageBin(pkgName: string): string {
  const pkgDir = dirname(require.resolve(`${pkgName}/package.json`));
  const pkg = require(`${pkgName}/package.json`) as { bin?: string | Record<string, string> };
  const rel = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin ?? {})[0]!;
  return join(pkgDir, rel);
}

/** Start `node <script> ...args` with PORT=0 and wait until it reports the port it listens on. */
export async function startHttpServer(t: HasAfter | undefined, script: string, args: string[], opts: { path?: string; env?: Record<string, string> } = {}): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--import', PRELOAD, script, ...args], {
    env: { ...process.env, ...opts.env, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  live.add(child);
  let stderr = '';
  const stop = async () => {
    live.delete(child);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await gone;
  };
  t?.after(stop);
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stderr! });
    lines.on('line', (line) => {
      stderr += line + '\n';
      if (line.startsWith(PORT_LINE_PREFIX)) resolve(Number(line.slice(PORT_LINE_PREFIX.length)));
    });
    child.once('exit', (code, signal) => reject(new Error(`${script} exited (${code ?? signal}) before listening:\n${stderr}`)));
    child.once('error', reject);
  });
  return { url: `http://127.0.0.1:${port}${opts.path ?? '/mcp'}`, port, stderr: () => stderr, stop };
}

/** @modelcontextprotocol/server-everything over Streamable HTTP (2025-11-25, experimental tasks). */
export function startEverythingServer(t?: HasAfter): Promise<RunningServer> {
  return startHttpServer(t, packageBin('@modelcontextprotocol/server-everything'), ['streamableHttp']);
}

/** The official SDK 1.x `simpleTaskInteractive` example server (elicitation and sampling inside tasks). */
export function startSdkTaskInteractiveServer(t?: HasAfter): Promise<RunningServer> {
  const script = require.resolve('@modelcontextprotocol/sdk/examples/server/simpleTaskInteractive.js');
  return startHttpServer(t, script, []);
}

/** A server built with mcp-framework (npm) with one task-enabled tool (test/helpers/mcp-framework-server.ts). */
export function startMcpFrameworkServer(t?: HasAfter): Promise<RunningServer> {
  return startHttpServer(t, fileURLToPath(new URL('./mcp-framework-server.js', import.meta.url)), []);
}
