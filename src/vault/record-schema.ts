// The shape of a vault record, checked where records come from outside this vault (`import`):
// a record that does not fit would break every later read, so none is committed until all fit.
import { z } from 'zod';

const STATUS = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const IDENTITY = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('http'), url: z.string().min(1) }),
  z.object({ kind: z.literal('stdio'), command: z.string().min(1), argsDigest: z.string() }),
  z.object({ kind: z.literal('builtin-demo'), store: z.string() }),
]);
const ISO = z.string().min(1).max(64);
const SHORT = z.string().min(1).max(4096);

/** An operation id as mcp-tasks makes them (a UUID; older versions' label-free ids are hex too). */
const OP_ID = /^[0-9a-f-]{8,64}$/i;
/**
 * The id versions before 0.2 gave a task adopted by taskId (`get <taskId> --server S --save`):
 * `adhoc-<the taskId's first 8 characters>-<time>`. Accepted from a bundle, then replaced
 * (freshOpIdForLegacyAdopted): it carries part of the bearer handle.
 */
export const LEGACY_ADOPTED_OP_ID = /^adhoc-[\x21-\x7e]{1,200}$/;

export const VaultRecordSchema = z.object({
  opId: z.string().refine((id) => OP_ID.test(id) || LEGACY_ADOPTED_OP_ID.test(id), 'not an operation id'),
  taskId: SHORT.optional(),
  server: z.object({
    name: z.string().min(1).max(200),
    identity: IDENTITY,
    protocolVersion: z.string().max(64).optional(),
    serverInfo: z.object({ name: z.string(), version: z.string() }).optional(),
  }),
  auth: z.object({
    kind: z.enum(['none', 'bearer-env', 'env-headers']),
    bearerEnv: z.string().max(200).optional(),
    secrets: z.record(z.string(), z.string()).optional(),
  }),
  principal: z
    .object({ issuer: SHORT, kind: z.enum(['subject', 'client', 'grant']), subject: SHORT.optional(), clientId: SHORT.optional(), grant: SHORT.optional() })
    .optional(),
  operation: z.object({
    method: z.literal('tools/call'),
    name: z.string().min(1).max(1000),
    arguments: z.record(z.string(), z.unknown()),
    submittedAt: ISO,
    idempotencyMeta: z.string().max(200).optional(),
    annotations: z.object({ readOnlyHint: z.boolean().optional(), destructiveHint: z.boolean().optional(), idempotentHint: z.boolean().optional() }).optional(),
  }),
  phase: z.enum(['submitting', 'active', 'terminal', 'lost', 'in-doubt']),
  last: z
    .object({ taskId: SHORT, status: STATUS, createdAt: ISO, lastUpdatedAt: ISO, ttlMs: z.number().nonnegative().nullable() })
    .passthrough()
    .optional(),
  history: z.array(z.object({ at: ISO, status: STATUS, statusMessage: z.string().optional(), note: z.string().max(4096).optional() })),
  inputKeysSeen: z.array(z.string()),
  inputKeysAnswered: z.array(z.string()),
  inputAnsweredAt: ISO.optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.object({ code: z.number(), message: z.string() }).passthrough().optional(),
  reason: z.string().optional(),
  labels: z.record(z.string(), z.string()),
  writer: z.object({ pid: z.number().int(), startedAtMs: z.number() }).optional(),
  createdAt: ISO,
  updatedAt: ISO,
});

/** What is wrong with `value` as a vault record, in one line; undefined when it fits. */
export function recordProblem(value: unknown): string | undefined {
  const parsed = VaultRecordSchema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length ? issue.path.map(String).join('.') : '(top level)';
  return `${where}: ${issue?.message ?? 'invalid'}`;
}

/**
 * An adopted record from an older version, under a random operation id instead of its `adhoc-`
 * one (nothing of its handle stays in an id that is printed). Nothing else refers to that id: an
 * adopted task's call was never sent from a vault, so no server holds it as a duplicate-prevention key.
 */
export function freshOpIdForLegacyAdopted<T extends { opId: string }>(rec: T, newId: () => string): T {
  return LEGACY_ADOPTED_OP_ID.test(rec.opId) ? { ...rec, opId: newId() } : rec;
}
