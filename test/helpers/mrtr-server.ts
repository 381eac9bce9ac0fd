// A small raw Streamable HTTP server on the 2026-07-28 wire (JSON responses, no session) whose
// tools ask for input with multi round-trip results (InputRequiredResult) in the shapes that
// broke clients on the Inspector's test servers. It logs what every tools/call carried
// (requestState, inputResponses keys), so a test counts at the server how often each key came.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, any>;

export interface ToolCallSeen {
  tool: string;
  requestState?: string;
  answered: string[];
  /** The responses it carried, by key, as received. */
  responses: Json;
}

export interface MrtrServer {
  url: string;
  calls: ToolCallSeen[];
  /** How many tools/call requests carried an answer to `key`. */
  answersTo(key: string): number;
  stop(): Promise<void>;
}

const form = (message: string, field: string) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { [field]: { type: 'string', title: field } }, required: [field] } },
});
/** Every field has a default; `title` and `count` are required. */
const settingsForm = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Report settings',
    requestedSchema: {
      type: 'object',
      properties: { title: { type: 'string', default: 'Weekly' }, count: { type: 'integer', minimum: 1, default: 3 }, draft: { type: 'boolean', default: false } },
      required: ['title', 'count'],
    },
  },
};
const inputRequired = (inputRequests: Json | undefined, requestState: string) => ({ resultType: 'input_required', ...(inputRequests ? { inputRequests } : {}), requestState });
const done = (text: string) => ({ resultType: 'complete', content: [{ type: 'text', text }] });
const field = (response: unknown, name: string) => String((response as Json | undefined)?.content?.[name] ?? '');
const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const decode = (s: string) => String(JSON.parse(Buffer.from(s, 'base64url').toString('utf8')));

/**
 * Each tool decides its round from what the request carries, as a server holding no state does:
 * an answer it finds is taken as that round's answer, whatever the requestState says.
 */
const TOOLS: Record<string, (answers: Json, state: string | undefined) => Json> = {
  // An elicitation round, then a requestState-only round. An answer to `confirm` always means
  // "round one answered" (Inspector's mrtr_edge): a retry that re-sends it never gets past round two.
  edge: (answers, state) => {
    if (answers.confirm !== undefined) return inputRequired(undefined, `edge:2:${encode(field(answers.confirm, 'ok'))}`);
    if (state?.startsWith('edge:2:')) return done(`edge done: ok=${decode(state.slice(7))}`);
    return inputRequired({ confirm: form('Go ahead?', 'ok') }, 'edge:1');
  },
  // Two elicitation rounds; the first answer travels in the requestState of the second.
  two_step: (answers, state) => {
    if (answers.first !== undefined && answers.second === undefined) return inputRequired({ second: form('Second question', 'value') }, `two:2:${encode(field(answers.first, 'value'))}`);
    if (answers.second !== undefined && state?.startsWith('two:2:')) return done(`two_step done: first=${decode(state.slice(6))} second=${field(answers.second, 'value')}`);
    return inputRequired({ first: form('First question', 'value') }, 'two:1');
  },
  // A settings form whose every field has a default (SEP-1034): accepting it as offered is an answer.
  defaults: (answers) => {
    if (answers.settings !== undefined) return done(`defaults done: ${JSON.stringify(answers.settings)}`);
    return inputRequired({ settings: settingsForm }, 'defaults:1');
  },
  // The settings form beside a confirmation without a default: only a person or a file decides that one.
  mixed: (answers) => {
    if (answers.settings !== undefined && answers.confirm !== undefined) return done(`mixed done: ${JSON.stringify(answers.settings)} ${JSON.stringify(answers.confirm)}`);
    return inputRequired({ settings: settingsForm, confirm: form('Really?', 'ok') }, 'mixed:1');
  },
  // Never finishes: every round asks for the same key again (Inspector's mrtr_loop).
  repeat: (_answers, state) => inputRequired({ again: form('Answer again', 'value') }, `repeat:${Number(state?.split(':')[1] ?? 0) + 1}`),
};

export async function startMrtrServer(): Promise<MrtrServer> {
  const calls: ToolCallSeen[] = [];
  const server = createServer((req, res) => void handle(req, res, calls));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    answersTo: (key) => calls.filter((c) => c.answered.includes(key)).length,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, calls: ToolCallSeen[]): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  let body = '';
  for await (const chunk of req) body += String(chunk);
  let msg: Json;
  try {
    msg = JSON.parse(body) as Json;
  } catch {
    reply(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (msg.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  const answer = (result: Json) => reply(res, 200, { jsonrpc: '2.0', id: msg.id, result });
  const params = (msg.params ?? {}) as Json;
  switch (msg.method) {
    case 'server/discover':
      return answer({
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mrtr-test-server', version: '1.0.0' } },
      });
    case 'tools/list':
      return answer({ resultType: 'complete', tools: Object.keys(TOOLS).map((name) => ({ name, description: `MRTR shape ${name}`, inputSchema: { type: 'object', properties: {} } })) });
    case 'tools/call': {
      const tool = TOOLS[String(params.name)];
      const answers = (params.inputResponses ?? {}) as Json;
      calls.push({ tool: String(params.name), ...(params.requestState !== undefined ? { requestState: String(params.requestState) } : {}), answered: Object.keys(answers), responses: answers });
      if (!tool) return reply(res, 200, { jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: `Unknown tool ${String(params.name)}` } });
      return answer(tool(answers, params.requestState as string | undefined));
    }
    default:
      return reply(res, 404, { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Method not found: ${String(msg.method)}` } });
  }
}

function reply(res: ServerResponse, status: number, doc: Json): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
}
