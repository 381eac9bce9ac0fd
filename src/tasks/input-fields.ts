// The parts of an input request's form that `answer --template` and the presenter read (a
// field's allowed values, the placeholder mark), apart from the response checks: those need the
// wire schemas (zod), which a command that only prints, such as `list`, never loads.

export type FieldSchema = {
  type?: string;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown }>;
  anyOf?: Array<{ const?: unknown }>;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown }> };
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  default?: unknown;
};

/** Allowed values of a single- or multi-select field, if it is one. */
export function enumValues(f: FieldSchema | undefined): unknown[] | undefined {
  if (!f) return undefined;
  if (Array.isArray(f.enum)) return f.enum;
  const titled = f.oneOf ?? f.anyOf;
  if (Array.isArray(titled)) return titled.map((o) => o.const);
  return undefined;
}

/** Every placeholder of `answer --template` starts so: a response that still holds one is refused. */
export const PLACEHOLDER_MARK = '<fill in';
