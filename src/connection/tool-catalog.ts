// The tool list and the header rules: over Streamable HTTP every tools/call mirrors the tool's
// x-mcp-header arguments (SEP-2243), read from the tool list; tools whose declarations break the
// rules are never called.
import { RefusedToolError } from './connection-errors.js';
import { ErrorCode } from '../protocol/constants.js';
import { markNotSent, ProtocolViolationError, RpcResponseError } from '../protocol/remote-errors.js';
import { paramHeaders, scanHeaderDeclarations, type HeaderDeclaration } from '../protocol/tool-headers.js';
import type { ToolInfo } from '../protocol/task-wire.js';
import type { RefusedTool } from './connection-types.js';
import type { RawChannel, SendOptions } from './raw-channel.js';

export class ToolCatalog {
  /** Each callable tool's header declarations; undefined until the tools were listed or adopted. */
  private declarations: Map<string, HeaderDeclaration[]> | undefined;
  private refused: RefusedTool[] = [];

  constructor(
    private readonly server: string,
    /** Streamable HTTP: tools/call carries Mcp-Param-* headers (stdio has no headers). */
    private readonly mirrorsHeaders: boolean,
    private readonly channel: RawChannel,
    private readonly debug?: (line: string) => void,
  ) {}

  /** Every page of tools/list (a repeated cursor ends it), then classified. */
  async list(): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    const seenCursors = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = (await this.channel.send('tools/list', cursor ? { cursor } : {}, {})) as { tools?: unknown; nextCursor?: unknown } | null;
      if (!page || !Array.isArray(page.tools)) throw new ProtocolViolationError('tools/list: the server\'s answer has no tools array');
      for (const t of page.tools as ToolInfo[]) {
        if (t && typeof t.name === 'string' && t.inputSchema && typeof t.inputSchema === 'object') tools.push(t);
      }
      cursor = typeof page.nextCursor === 'string' && !seenCursors.has(page.nextCursor) ? page.nextCursor : undefined;
      if (cursor) seenCursors.add(cursor);
    } while (cursor);
    return this.classify(tools);
  }

  /** The callable tools of a list (fresh or cached); the others are kept with the rule they break. */
  classify(tools: ToolInfo[]): ToolInfo[] {
    const found = new Map<string, HeaderDeclaration[]>();
    const refusedNow: RefusedTool[] = [];
    const callable = tools.filter((t) => {
      if (!this.mirrorsHeaders) return true;
      const scan = scanHeaderDeclarations(t.inputSchema);
      if (!scan.valid) {
        refusedNow.push({ name: t.name, rule: scan.rule, reason: scan.reason });
        this.debug?.(`tool ${JSON.stringify(t.name.slice(0, 80))} refused: ${scan.reason}`);
        return false;
      }
      found.set(t.name, scan.declarations);
      return true;
    });
    this.declarations = found;
    this.refused = refusedNow;
    return callable;
  }

  refusedTools(): RefusedTool[] {
    return [...this.refused];
  }

  /** The Mcp-Param-* headers of one tools/call; a refused tool throws before anything is sent. */
  private async headersFor(params: Record<string, unknown>): Promise<Record<string, string> | undefined> {
    if (!this.mirrorsHeaders || typeof params.name !== 'string') return undefined;
    if (!this.declarations) await this.list();
    const r = this.refused.find((x) => x.name === params.name);
    if (r) throw refusedToolError(this.server, r);
    const decls = this.declarations?.get(params.name);
    const args = params.arguments && typeof params.arguments === 'object' ? (params.arguments as Record<string, unknown>) : {};
    return decls?.length ? paramHeaders(decls, args) : undefined;
  }

  /** tools/call with its headers; a -32020 header mismatch lists the tools again and retries once. */
  async call(params: Record<string, unknown>, ro: SendOptions): Promise<unknown> {
    let headers: Record<string, string> | undefined;
    try {
      headers = await this.headersFor(params);
    } catch (err) {
      throw markNotSent(err);
    }
    try {
      return await this.channel.send('tools/call', params, ro, headers);
    } catch (err) {
      // -32020: the headers did not match what the server expects, so it admitted nothing. The
      // spec's remedy: list the tools again (the schema may have changed) and retry once.
      if (!(this.mirrorsHeaders && err instanceof RpcResponseError && err.code === ErrorCode.HeaderMismatch)) throw err;
      this.debug?.('tools/call not admitted (-32020 header mismatch); listing tools again and retrying once');
      await this.list();
      return this.channel.send('tools/call', params, ro, await this.headersFor(params));
    }
  }
}

/** Calling a tool whose x-mcp-header declarations break the spec: refused before anything is sent. */
export function refusedToolError(server: string, r: RefusedTool): RefusedToolError {
  return new RefusedToolError(server, r.name, `server "${server}" declares tool ${JSON.stringify(r.name.slice(0, 80))} with an invalid x-mcp-header (rule: ${r.rule}): ${r.reason}; mcp-tasks does not call such a tool`);
}
