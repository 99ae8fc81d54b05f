/**
 * Checks a call's arguments against the tool's inputSchema before anyone is asked to
 * approve it: a person should never approve a call that is bound to fail, and a wrong
 * type gets one clear message whatever the upstream would have said.
 */
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { ToolRecord } from '../catalog/types.js';
import { errorResult, type Guard } from './types.js';

const ajv = new AjvJsonSchemaValidator();
const validators = new WeakMap<ToolRecord, JsonSchemaValidator<unknown> | null>();

function validatorFor(tool: ToolRecord): JsonSchemaValidator<unknown> | null {
  let v = validators.get(tool);
  if (v === undefined) {
    try {
      v = ajv.getValidator(tool.inputSchema as JsonSchemaType);
    } catch {
      // A schema ajv cannot compile: let the upstream judge its own arguments.
      v = null;
    }
    validators.set(tool, v);
  }
  return v;
}

/** An error message when `args` do not fit the tool's inputSchema, else undefined. */
export function checkArguments(tool: ToolRecord, args: Record<string, unknown>): string | undefined {
  const result = validatorFor(tool)?.(args);
  if (!result || result.valid) return undefined;
  return `invalid arguments for ${tool.name}: ${result.errorMessage}`;
}

/** Refuses a call whose (identity-injected) arguments do not fit the schema; it never runs. */
export const validateGuard: Guard = async (ctx, next) => {
  const invalid = ctx.tool && checkArguments(ctx.tool, ctx.args);
  if (invalid) {
    ctx.decisions.push('refused');
    ctx.notes.push('invalid arguments');
    return errorResult(invalid);
  }
  return next(ctx);
};
