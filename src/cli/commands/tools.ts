// `tools <server> [<tool>]`: the server's tools with their readOnly / destructive / idempotent
// hints; with a tool name, that tool's arguments as a table.
import type { Context } from '../../context.js';
import { sayOn } from '../../output/notes.js';
import { CliError } from '../../errors.js';
import { safeName } from '../../output/sanitize.js';
import { ServerStore } from '../../servers/server-store.js';
import { withServerName } from '../../app/remote-error.js';
import { probeServer } from '../../session/open-session.js';
import { didYouMean } from '../../output/did-you-mean.js';
import { finish } from '../finish.js';
import { cmd, hint } from '../../hint.js';

export async function runTools(server: string, ctx: Context, toolName?: string): Promise<number> {
  const entry = new ServerStore(ctx.home).get(server);
  const conn = await withServerName(server, () => probeServer(ctx, entry));
  try {
    return await withServerName(server, async () => {
      const tools = await conn.listTools();
      // The spec's SHOULD: say which tools were left out and why (the reason quotes server text as JSON).
      for (const r of conn.refusedTools()) sayOn(ctx)(`mcp-tasks: left out tool ${JSON.stringify(r.name.slice(0, 80))}: ${r.reason}`);
      const offer = { offersTools: conn.offersTools, capabilities: conn.capabilities };
      if (toolName === undefined) return finish(ctx, { kind: 'tools-listed', server, tools, ...offer });
      const tool = tools.find((t) => t.name === toolName);
      if (!tool) {
        if (!conn.offersTools) throw new CliError('not-found', `server "${server}" offers no tools, so none is called "${safeName(toolName, 80)}"`, hint`See what it offers: \`${cmd('server', 'check', server)}\`.`);
        throw new CliError('not-found', `server "${server}" has no tool "${safeName(toolName, 80)}"${didYouMean(toolName, tools.map((t) => safeName(t.name, 80)))}`, hint`See its tools: \`${cmd('tools', server)}\`.`);
      }
      return finish(ctx, { kind: 'tools-listed', server, tools, tool });
    });
  } finally {
    await conn.close();
  }
}
