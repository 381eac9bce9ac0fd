// A real MCP server that offers resources and prompts but no tools (no `tools` capability), over
// stdio, built with the official SDK's server package like the demo. Run as a child process by
// the tests: `node resources-only-server.js`. `server check` and `tools` must describe it, not fail.
// With RESOURCES_ONLY_LOG=<file>, the method of every request it reads is appended to that file
// (what tests count at the server).
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

function createServer(): McpServer {
  const server = new McpServer({ name: 'resources-only', version: '1.0.0' }, { capabilities: { resources: {}, prompts: {} } });
  server.registerResource('readme', 'docs://readme', { title: 'Read me', mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'nothing to run here' }] }));
  server.registerPrompt('hello', { description: 'Say hello' }, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
  return server;
}

const log = process.env.RESOURCES_ONLY_LOG;
if (log) {
  let partial = '';
  process.stdin.on('data', (d: Buffer) => {
    const lines = (partial + d.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      try {
        const m = JSON.parse(line) as { method?: unknown };
        if (typeof m.method === 'string') appendFileSync(log, `${m.method}\n`);
      } catch { /* not one JSON message */ }
    }
  });
}

serveStdio(() => createServer(), { onerror: (e) => process.stderr.write(`resources-only: ${e.message}\n`) });
