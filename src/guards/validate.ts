/**
 * Checks a call's arguments against the tool's inputSchema before anyone is asked to
 * approve it: a person should never approve a call that is bound to fail, and a wrong
 * type gets one clear message whatever the upstream would have said.
 *
 * A model often sends `null` for an optional parameter it means to leave out. An optional
 * (not `required`) top-level property whose value is `null` and whose schema does not
 * accept null is read as not given: dropped before the check, and noted for the audit.
 * A required property that is null, or a null nested deeper, is checked as sent.
 */
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { ToolRecord } from '../catalog/types.js';
import { errorResult, type Guard } from './types.js';

const ajv = new AjvJsonSchemaValidator();
const validators = new WeakMap<ToolRecord, JsonSchemaValidator<unknown> | null>();
/** Per tool: whether each top-level property's schema accepts null. */
const nullable = new WeakMap<ToolRecord, Map<string, boolean>>();

/** Compiles `schema`, or null when ajv cannot (then nothing is judged here). */
function compile(schema: unknown): JsonSchemaValidator<unknown> | null {
  try {
    return ajv.getValidator(schema as JsonSchemaType);
  } catch {
    return null;
  }
}

function validatorFor(tool: ToolRecord): JsonSchemaValidator<unknown> | null {
  let v = validators.get(tool);
  if (v === undefined) {
    // A schema ajv cannot compile: let the upstream judge its own arguments.
    v = compile(tool.inputSchema);
    validators.set(tool, v);
  }
  return v;
}

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether the schema of top-level property `key` accepts null. It is checked on its own,
 * with the root's dialect and definitions beside it so its local `$ref`s resolve. A schema
 * that cannot be checked so counts as accepting null: the argument is kept as sent.
 */
function acceptsNull(tool: ToolRecord, key: string, property: Schema): boolean {
  let known = nullable.get(tool);
  if (!known) nullable.set(tool, (known = new Map()));
  let accepts = known.get(key);
  if (accepts === undefined) {
    const root = tool.inputSchema as Schema;
    const probe = { ...('$schema' in root && { $schema: root.$schema }), ...('$defs' in root && { $defs: root.$defs }), ...('definitions' in root && { definitions: root.definitions }), ...property };
    accepts = compile(probe)?.(null).valid ?? true;
    known.set(key, accepts);
  }
  return accepts;
}

/** The optional top-level arguments that are null where their schema refuses null: read as not given. */
function nullOptionals(tool: ToolRecord, args: Record<string, unknown>): string[] {
  const nulls = Object.keys(args).filter((key) => args[key] === null);
  // Most calls carry no null: nothing more to read on the call path.
  if (nulls.length === 0) return nulls;
  const schema = tool.inputSchema as Schema;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return nulls.filter((key) => {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    return !required.has(key) && isObject(property) && !acceptsNull(tool, key, property);
  });
}

/** An error message when `args` do not fit the tool's inputSchema, else undefined. */
export function checkArguments(tool: ToolRecord, args: Record<string, unknown>): string | undefined {
  const result = validatorFor(tool)?.(args);
  if (!result || result.valid) return undefined;
  return `invalid arguments for ${tool.name}: ${result.errorMessage}`;
}

/**
 * Drops null optional arguments (noted), then refuses a call whose (identity-injected)
 * arguments do not fit the schema; it never runs.
 */
export const validateGuard: Guard = async (ctx, next) => {
  const dropped = ctx.tool && validatorFor(ctx.tool) ? nullOptionals(ctx.tool, ctx.args) : [];
  if (dropped.length > 0) {
    ctx.args = Object.fromEntries(Object.entries(ctx.args).filter(([key]) => !dropped.includes(key)));
    ctx.notes.push(`null read as not given for optional ${dropped.join(', ')}`);
  }
  const invalid = ctx.tool && checkArguments(ctx.tool, ctx.args);
  if (invalid) {
    ctx.decisions.push('refused');
    ctx.notes.push('invalid arguments');
    return errorResult(invalid);
  }
  return next(ctx);
};
