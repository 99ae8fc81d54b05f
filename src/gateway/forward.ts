/**
 * The last step of the call path: checks the arguments against the tool's inputSchema
 * (so a wrong type gets one clear message whatever the upstream would have said) and
 * forwards the call to its upstream, timing it.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import type { ToolRecord } from '../catalog/types.js';
import { errorResult, type CallHandler } from '../guards/types.js';
import type { UpstreamPool } from '../upstream/pool.js';

const ajv = new AjvJsonSchemaValidator();
const validators = new WeakMap<ToolRecord, JsonSchemaValidator<unknown> | null>();

function validatorFor(tool: ToolRecord): JsonSchemaValidator<unknown> | null {
  let v = validators.get(tool);
  if (v === undefined) {
    try {
      v = ajv.getValidator(tool.inputSchema as JsonSchemaType);
    } catch {
      // An upstream schema ajv cannot compile: let the upstream judge its own arguments.
      v = null;
    }
    validators.set(tool, v);
  }
  return v;
}

/** Returns an error message when `args` do not fit the tool's inputSchema, else undefined. */
export function checkArguments(tool: ToolRecord, args: Record<string, unknown>): string | undefined {
  const result = validatorFor(tool)?.(args);
  if (!result || result.valid) return undefined;
  return `invalid arguments for ${tool.name}: ${result.errorMessage}`;
}

export function forwardTo(pool: UpstreamPool): CallHandler {
  return async (ctx) => {
    const tool = ctx.tool;
    if (!tool) return errorResult(`unknown tool ${ctx.requestedName}; use find_tools to search the catalog`);
    const invalid = checkArguments(tool, ctx.args);
    if (invalid) return errorResult(invalid);
    const started = performance.now();
    const result = await pool.call(tool.server, tool.upstreamName, ctx.args);
    ctx.upstreamMs = Math.round(performance.now() - started);
    return result;
  };
}
