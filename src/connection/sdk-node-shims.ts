// The bundle's stand-in for @modelcontextprotocol/client/_shims (the SDK's per-runtime seam;
// scripts/build.mjs points the import here). Same exports as the SDK's Node shim, but its default
// JSON Schema validator — the SDK's own AjvJsonSchemaValidator — is loaded on first use instead of
// at start-up: evaluating AJV cost ~140 ms per process on Node 20, and most commands (get, list,
// cancel) never validate a JSON Schema. Where the SDK does validate, it validates with AJV as before.
import { createRequire } from 'node:module';
import type { AjvJsonSchemaValidator as SdkAjvValidator } from '@modelcontextprotocol/client/validators/ajv';

/** As in the SDK's Node shim: a fetch TypeError is never a CORS error in Node.js. */
export const CORS_IS_POSSIBLE = false;

type Validator = SdkAjvValidator;

export class DefaultJsonSchemaValidator {
  #inner: Validator | undefined;
  getValidator(...args: Parameters<Validator['getValidator']>): ReturnType<Validator['getValidator']> {
    this.#inner ??= new (createRequire(import.meta.url)('@modelcontextprotocol/client/validators/ajv') as { AjvJsonSchemaValidator: new () => Validator }).AjvJsonSchemaValidator();
    return this.#inner.getValidator(...args);
  }
}
