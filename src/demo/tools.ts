// The demo server's tools. Task-capable tools are described as pure timelines: given the stored
// task (args, creation time, answers, cancel request) and "now", they say what the task looks
// like. Nothing runs in the background, so a restarted server, or another process on the same
// store, reports exactly the same progress.
import { createHash } from 'node:crypto';
import type { TaskStatus } from '../protocol/constants.js';
import type { StoredTask } from './task-store.js';

export type JsonObject = Record<string, unknown>;

export interface CallToolResult {
  content: Array<{ type: string; [k: string]: unknown }>;
  structuredContent?: JsonObject;
  isError?: boolean;
}

export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params?: JsonObject;
}

/** What a task looks like at one moment, before it is framed for the wire. */
export interface TaskView {
  status: TaskStatus;
  statusMessage?: string;
  /** When the task last changed (ms since epoch). */
  changedAtMs: number;
  pollIntervalMs: number;
  inputRequests?: Record<string, InputRequest>;
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
  /** Cancellation that arrives after this moment is too late: the work has been committed. */
  commitsAtMs?: number;
}

export type TaskSupport = 'forbidden' | 'optional' | 'required';

export interface DemoTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject & { type: 'object' };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  taskSupport: TaskSupport;
  /** Sync-only tools answer at once. */
  run?: (args: JsonObject) => CallToolResult;
  /** Task-capable tools: the task's state at `nowMs`. */
  timeline?: (task: StoredTask, nowMs: number, text: TextStyle) => TaskView;
  /** Inputs asked with an InputRequiredResult before any task exists (2026-07-28 multi round-trip). */
  preflight?: (args: JsonObject, text: TextStyle) => Record<string, InputRequest>;
}

/** Decorates server text; the hostile-text fault swaps in escape sequences and long lines. */
export interface TextStyle {
  (s: string): string;
}
export const plainText: TextStyle = (s) => s;
export const hostileText: TextStyle = (s) =>
  `\x1b[2J\x1b[H\x1b]0;owned\x07\x1b[31m${s}\x1b[0m\u009b6n\rspoofed ${'A'.repeat(5000)}`;

// hostile-ids: the handles and keys a client echoes back (inputRequests keys and task ids) carry
// ESC, an 8-bit CSI and a bare CR, and string form fields get such a default. Keys are mapped at
// the edge (answers to the hostile key land on the plain one), so the tools stay unaware.
const HOSTILE_KEY_PREFIX = '\x1b[7m';
const HOSTILE_KEY_SUFFIX = '\r\u009b2K\x1b]0;owned\x07';
export const hostileKey = (key: string): string => `${HOSTILE_KEY_PREFIX}${key}${HOSTILE_KEY_SUFFIX}`;
export const plainKey = (key: string): string =>
  key.startsWith(HOSTILE_KEY_PREFIX) && key.endsWith(HOSTILE_KEY_SUFFIX) ? key.slice(HOSTILE_KEY_PREFIX.length, -HOSTILE_KEY_SUFFIX.length) : key;
export const HOSTILE_DEFAULT = '\x1b]0;owned\x07\x1b[2JAda\r\u009b6nowned';
/** A hostile task id: still 192 random bits, wrapped in control characters. */
export const hostileTaskId = (id: string): string => `\x1b[31m${id}\r\u009b0m`;

/** inputRequests as the hostile-text fault sends them: hostile keys, hostile defaults on free-text form fields. */
export function hostileInputs(requests: Record<string, InputRequest>): Record<string, InputRequest> {
  return Object.fromEntries(
    Object.entries(requests).map(([key, request]) => {
      const schema = request.params?.requestedSchema as { properties?: Record<string, JsonObject> } | undefined;
      if (request.method !== 'elicitation/create' || !schema?.properties) return [hostileKey(key), request];
      const properties = Object.fromEntries(
        Object.entries(schema.properties).map(([name, field]) => [
          name,
          field.type === 'string' && field.enum === undefined && field.format === undefined && field.default === undefined ? { ...field, default: HOSTILE_DEFAULT } : field,
        ]),
      );
      return [hostileKey(key), { ...request, params: { ...request.params, requestedSchema: { ...schema, properties } } }];
    }),
  );
}

/** Answers keyed as the client sent them, keyed as the tools know them. */
export const plainKeys = (responses: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(responses).map(([k, v]) => [plainKey(k), v]));

const DEFAULT_POLL_MS = 500;

/** A stable reference to a task that reveals nothing of its bearer id (for URLs, receipts). */
const publicRef = (task: StoredTask) => createHash('sha256').update(`public:${task.taskId}`).digest('hex').slice(0, 12);

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const num = (v: unknown, dflt: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : dflt);
const str = (v: unknown, dflt: string): string => (typeof v === 'string' ? v : dflt);

/** First answer time among `keys`, or undefined while any is unanswered. */
function allAnsweredAt(task: StoredTask, keys: string[]): number | undefined {
  let at = 0;
  for (const k of keys) {
    const t = task.answeredAtMs[k];
    if (t === undefined) return undefined;
    at = Math.max(at, t);
  }
  return at;
}

function elicitForm(message: string, requestedSchema: JsonObject): InputRequest {
  return { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } };
}

interface ElicitAnswer { action?: string; content?: JsonObject }
const asElicit = (v: unknown): ElicitAnswer => (v && typeof v === 'object' ? (v as ElicitAnswer) : {});

/** A task that works for `durationMs`, then completes with `finish()`. */
function timed(task: StoredTask, nowMs: number, durationMs: number, msg: string, finish: () => Pick<TaskView, 'result' | 'error'>, pollMs = DEFAULT_POLL_MS): TaskView {
  const doneAt = task.createdAtMs + durationMs;
  if (nowMs < doneAt) return { status: 'working', statusMessage: msg, changedAtMs: task.createdAtMs, pollIntervalMs: pollMs };
  const end = finish();
  return { status: end.error ? 'failed' : 'completed', changedAtMs: doneAt, pollIntervalMs: pollMs, ...end };
}

/** A task parked in input_required until every key is answered, then completing after `afterMs`. */
function awaitingInput(
  task: StoredTask,
  nowMs: number,
  requests: Record<string, InputRequest>,
  prompt: string,
  finish: (answers: Record<string, unknown>) => CallToolResult,
  afterMs = 200,
): TaskView {
  const keys = Object.keys(requests);
  const answeredAt = allAnsweredAt(task, keys);
  if (answeredAt === undefined) {
    const pending = Object.fromEntries(keys.filter((k) => task.answeredAtMs[k] === undefined).map((k) => [k, requests[k]!]));
    const lastAnswer = Math.max(task.createdAtMs, ...Object.values(task.answeredAtMs));
    return { status: 'input_required', statusMessage: prompt, changedAtMs: lastAnswer, pollIntervalMs: DEFAULT_POLL_MS, inputRequests: pending };
  }
  if (nowMs < answeredAt + afterMs) return { status: 'working', statusMessage: 'Input received, finishing', changedAtMs: answeredAt, pollIntervalMs: DEFAULT_POLL_MS };
  return { status: 'completed', changedAtMs: answeredAt + afterMs, pollIntervalMs: DEFAULT_POLL_MS, result: finish(task.answers) };
}

const noArgs = { type: 'object', properties: {}, additionalProperties: false } as const;

export const DEMO_TOOLS: DemoTool[] = [
  {
    name: 'greet',
    description: 'Say hello. Synchronous only: never becomes a task.',
    inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'Who to greet' } }, required: ['name'] },
    annotations: { readOnlyHint: true, idempotentHint: true },
    taskSupport: 'forbidden',
    run: (args) => text(`Hello, ${str(args.name, 'world')}!`),
  },
  {
    name: 'slow_compute',
    description: 'Sleep for `seconds`, then return. Runs as a task when the client supports tasks; cancellable.',
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0, maximum: 3600, description: 'How long to work' }, label: { type: 'string' } },
      required: ['seconds'],
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    taskSupport: 'optional',
    timeline: (task, now, t) => {
      const seconds = num(task.args.seconds, 1);
      const label = str(task.args.label, 'slow_compute');
      return timed(task, now, seconds * 1000, t(`Computing ${label} (${seconds}s)`), () => ({
        result: { ...text(t(`Computed ${label} after ${seconds} second(s)`)), structuredContent: { seconds, label } },
      }));
    },
  },
  {
    name: 'failing_job',
    description: 'A job that ends with a tool error (isError: true) after about a second. Requires tasks.',
    inputSchema: noArgs,
    taskSupport: 'required',
    timeline: (task, now, t) =>
      timed(task, now, 1000, t('Running a job that will fail'), () => ({
        result: { ...text(t('The job failed: simulated tool error')), isError: true },
      })),
  },
  {
    name: 'protocol_error_job',
    description: 'A job that fails at the protocol level: the task ends failed with a JSON-RPC error.',
    inputSchema: noArgs,
    taskSupport: 'optional',
    timeline: (task, now, t) =>
      timed(task, now, 500, t('Running a job that will hit a protocol error'), () => ({
        error: { code: -32603, message: t('Internal error: simulated protocol failure') },
      })),
  },
  {
    name: 'confirm_delete',
    description: 'Ask for confirmation (one form elicitation), then "delete" the file.',
    inputSchema: {
      type: 'object',
      properties: {
        filename: { type: 'string' },
        lookup_ms: { type: 'integer', minimum: 0, maximum: 600000, description: 'Work this long before asking (default 0)' },
      },
      required: ['filename'],
    },
    annotations: { destructiveHint: true },
    taskSupport: 'optional',
    timeline: (task, now, t) => {
      const filename = str(task.args.filename, 'file');
      // With lookup_ms the question comes after a working phase: a change into input_required.
      const asksAt = task.createdAtMs + num(task.args.lookup_ms, 0);
      if (now < asksAt) return { status: 'working', statusMessage: t(`Looking up ${filename}`), changedAtMs: task.createdAtMs, pollIntervalMs: DEFAULT_POLL_MS };
      const view = awaitingInput(
        task,
        now,
        {
          confirm: elicitForm(t(`Delete ${filename}?`), {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Confirm deletion', description: `Permanently delete ${filename}` } },
            required: ['confirm'],
          }),
        },
        t('Waiting for confirmation'),
        (answers) => {
          const a = asElicit(answers.confirm);
          if (a.action === 'accept' && a.content?.confirm === true) return text(t(`Deleted ${filename}`));
          return text(t(`Deletion of ${filename} not confirmed (${a.action ?? 'no answer'}); nothing was deleted`));
        },
      );
      return view.status === 'input_required' ? { ...view, changedAtMs: Math.max(view.changedAtMs, asksAt) } : view;
    },
  },
  {
    name: 'multi_input',
    description: 'Ask two questions at once; completes when both are answered.',
    inputSchema: noArgs,
    taskSupport: 'optional',
    timeline: (task, now, t) =>
      awaitingInput(
        task,
        now,
        {
          name: elicitForm(t('What is your name?'), { type: 'object', properties: { name: { type: 'string', title: 'Name', minLength: 1 } }, required: ['name'] }),
          color: elicitForm(t('What is your favourite colour?'), {
            type: 'object',
            properties: { color: { type: 'string', title: 'Colour', enum: ['red', 'green', 'blue'] } },
            required: ['color'],
          }),
        },
        t('Waiting for two answers'),
        (answers) => {
          const name = asElicit(answers.name).content?.name;
          const color = asElicit(answers.color).content?.color;
          return { ...text(t(`Got name=${String(name)} color=${String(color)}`)), structuredContent: { name: name ?? null, color: color ?? null } };
        },
      ),
  },
  {
    name: 'test_tool_with_task',
    description: 'Asks for user_name with an InputRequiredResult, then creates a task that greets that name.',
    inputSchema: noArgs,
    taskSupport: 'required',
    preflight: (_args, t) => ({
      user_name: elicitForm(t('What is your name?'), { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] }),
    }),
    timeline: (task, now, t) => {
      const name = String(asElicit(task.answers.user_name).content?.name ?? 'stranger');
      return timed(task, now, 500, t('Preparing a greeting'), () => ({ result: text(t(`Hello, ${name}! Your task is complete.`)) }));
    },
  },
  {
    name: 'generate_report',
    description: 'A multi-stage report: status messages and pollIntervalMs change as it goes.',
    inputSchema: {
      type: 'object',
      properties: { title: { type: 'string', default: 'Quarterly report' }, seconds: { type: 'number', minimum: 0, maximum: 600, default: 4 } },
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    taskSupport: 'optional',
    timeline: (task, now, t) => {
      const total = num(task.args.seconds, 4) * 1000;
      const title = str(task.args.title, 'Quarterly report');
      const stages = [
        { until: 0.25, msg: 'Collecting data', poll: 250 },
        { until: 0.6, msg: 'Rendering charts', poll: 500 },
        { until: 1, msg: 'Writing PDF', poll: 1000 },
      ];
      const elapsed = now - task.createdAtMs;
      if (elapsed < total) {
        let from = 0;
        for (const s of stages) {
          if (elapsed < s.until * total) {
            return { status: 'working', statusMessage: t(`${s.msg} (${title})`), changedAtMs: task.createdAtMs + Math.round(from * total), pollIntervalMs: s.poll };
          }
          from = s.until;
        }
      }
      return {
        status: 'completed',
        changedAtMs: task.createdAtMs + total,
        pollIntervalMs: 1000,
        result: {
          content: [
            { type: 'text', text: t(`Report "${title}" is ready: 12 pages`) },
            { type: 'resource_link', uri: `demo://reports/${publicRef(task)}.pdf`, name: 'report.pdf', mimeType: 'application/pdf' },
          ],
          structuredContent: { title, pages: 12 },
        },
      };
    },
  },
  {
    name: 'send_payment',
    description:
      'Send a payment (not idempotent, destructive). Honours an idempotency key in _meta["io.github.mcp-tasks/idempotency-key"]: a repeated key returns the existing task.',
    inputSchema: {
      type: 'object',
      properties: { to: { type: 'string' }, amount: { type: 'number', exclusiveMinimum: 0 }, currency: { type: 'string', default: 'EUR' } },
      required: ['to', 'amount'],
    },
    annotations: { destructiveHint: true, idempotentHint: false, readOnlyHint: false, openWorldHint: true },
    taskSupport: 'optional',
    timeline: (task, now, t) => {
      const amount = num(task.args.amount, 0);
      const currency = str(task.args.currency, 'EUR');
      const to = str(task.args.to, 'nobody');
      const view = timed(task, now, 2000, t(now - task.createdAtMs < 1000 ? 'Authorizing payment' : 'Settling payment'), () => ({
        result: {
          ...text(t(`Paid ${amount} ${currency} to ${to}`)),
          structuredContent: { paymentId: `pay_${publicRef(task)}`, amount, currency, to },
        },
      }));
      // Once settlement starts the money has moved: a cancel after that is too late.
      return { ...view, commitsAtMs: task.createdAtMs + 1000 };
    },
  },
  {
    name: 'approve_deploy',
    description: 'Ask for approval through a URL-mode elicitation, then deploy.',
    inputSchema: { type: 'object', properties: { service: { type: 'string', default: 'api' } } },
    annotations: { destructiveHint: true },
    taskSupport: 'optional',
    timeline: (task, now, t) => {
      const service = str(task.args.service, 'api');
      return awaitingInput(
        task,
        now,
        {
          approval: {
            method: 'elicitation/create',
            params: {
              mode: 'url',
              message: t(`Approve the deployment of ${service} in the change portal`),
              url: `https://deploy.example.com/approve/${publicRef(task)}`,
              elicitationId: `approve-${publicRef(task)}`,
            },
          },
        },
        t('Waiting for deployment approval'),
        (answers) => {
          const a = asElicit(answers.approval);
          return a.action === 'accept' ? text(t(`Deployed ${service}`)) : { ...text(t(`Deployment of ${service} not approved (${a.action ?? 'no answer'})`)), isError: true };
        },
      );
    },
  },
  {
    name: 'summarize_with_model',
    description: "Ask the client's model (sampling/createMessage) to summarize a text.",
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnlyHint: true },
    taskSupport: 'optional',
    timeline: (task, now, t) =>
      awaitingInput(
        task,
        now,
        {
          summary: {
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: 'text', text: t(`Summarize in one sentence:\n${str(task.args.text, '')}`) } }],
              maxTokens: 200,
              systemPrompt: 'You are a concise summarizer.',
            },
          },
        },
        t('Waiting for a model reply'),
        (answers) => {
          const reply = answers.summary as { content?: { type?: string; text?: string } | Array<{ type?: string; text?: string }>; model?: string } | undefined;
          const blocks = Array.isArray(reply?.content) ? reply.content : reply?.content ? [reply.content] : [];
          const summary = blocks.filter((b) => b.type === 'text').map((b) => b.text).join(' ');
          return { ...text(t(`Summary: ${summary || '(empty)'}`)), structuredContent: { summary, model: reply?.model ?? null } };
        },
      ),
  },
  {
    name: 'scan_roots',
    description: "List the client's roots (roots/list) and report them.",
    inputSchema: noArgs,
    annotations: { readOnlyHint: true },
    taskSupport: 'optional',
    timeline: (task, now, t) =>
      awaitingInput(task, now, { roots: { method: 'roots/list', params: {} } }, t('Waiting for the list of roots'), (answers) => {
        const roots = ((answers.roots as { roots?: Array<{ uri: string; name?: string }> } | undefined)?.roots ?? []).map((r) => r.uri);
        return { ...text(t(`Scanned ${roots.length} root(s)${roots.length ? ': ' + roots.join(', ') : ''}`)), structuredContent: { roots } };
      }),
  },
  {
    name: 'preflight_check',
    description: 'Asks which environment to check (InputRequiredResult) before it creates the task.',
    inputSchema: noArgs,
    annotations: { readOnlyHint: true },
    taskSupport: 'optional',
    preflight: (_args, t) => ({
      environment: elicitForm(t('Which environment should be checked?'), {
        type: 'object',
        properties: { environment: { type: 'string', title: 'Environment', enum: ['staging', 'production'] } },
        required: ['environment'],
      }),
    }),
    timeline: (task, now, t) => {
      const env = String(asElicit(task.answers.environment).content?.environment ?? 'staging');
      return timed(task, now, 1000, t(`Checking ${env}`), () => ({ result: text(t(`Preflight check of ${env} passed`)) }));
    },
  },
  // Diagnostic tools the official server-stateless scenario calls by name.
  {
    name: 'test_missing_capability',
    description: "Conformance diagnostic: asks the client's model (sampling) before it runs; a client that did not declare sampling gets -32021.",
    inputSchema: noArgs,
    annotations: { readOnlyHint: true },
    taskSupport: 'optional',
    preflight: (_args, t) => ({
      probe: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: t('Say hello') } }], maxTokens: 20 } },
    }),
    timeline: (task, now, t) => timed(task, now, 0, t('Finishing'), () => ({ result: text(t('The client declared sampling and answered')) })),
  },
  {
    name: 'test_streaming_elicitation',
    description: 'Conformance diagnostic: asks for input in its response (an InputRequiredResult), never with a request of its own.',
    inputSchema: noArgs,
    annotations: { readOnlyHint: true },
    taskSupport: 'optional',
    preflight: (_args, t) => ({
      proceed: elicitForm(t('Proceed?'), { type: 'object', properties: { ok: { type: 'boolean', title: 'Proceed' } }, required: ['ok'] }),
    }),
    timeline: (task, now, t) => timed(task, now, 0, t('Finishing'), () => ({ result: text(t(`Proceed: ${String(asElicit(task.answers.proceed).content?.ok ?? false)}`)) })),
  },
  {
    name: 'test_logging_tool',
    description: 'Conformance diagnostic: answers at once and sends no log messages (the demo never logs to a request that set no logLevel).',
    inputSchema: noArgs,
    annotations: { readOnlyHint: true, idempotentHint: true },
    taskSupport: 'forbidden',
    run: () => text('Done; nothing was logged'),
  },
];

export const findTool = (name: unknown): DemoTool | undefined => DEMO_TOOLS.find((t) => t.name === name);

/** A JSON-RPC request as the demo's surface receives it. */
export interface RpcRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params?: JsonObject;
}
