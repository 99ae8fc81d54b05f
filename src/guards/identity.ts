/**
 * Identity injection: the persona's identity fields (student_id, faculty_id, ...) come
 * from the session, never from the model. The guard overwrites what the model sent, and
 * removes the fields the persona withholds (`withhold`: another persona's identity, such
 * as a student's faculty_id); `visibleSchema` removes both from the inputSchema the host
 * sees, so the model is not even asked for them.
 */
import type { ToolRecord } from '../catalog/types.js';
import type { Persona } from '../config/schema.js';
import { MissingIdentityError, type Policy } from '../policy/policy.js';
import { errorResult, type Guard } from './types.js';

type InputSchema = ToolRecord['inputSchema'];

/**
 * The tool's inputSchema as the persona's host sees it: without the persona's identity
 * fields and its `withhold` fields in `properties` and `required`. Returns the upstream's
 * own object when nothing is removed (always, for `undefined`: an open policy injects
 * nothing).
 *
 * ### Usage
 * ```ts
 * visibleSchema(tool, policy.persona('student'));
 * // { type: 'object', properties: { term: {...} }, required: ['term'] }  (student_id gone)
 * ```
 */
export function visibleSchema(tool: ToolRecord, persona: Persona | undefined): InputSchema {
  const schema = tool.inputSchema;
  const fields = [...Object.keys(persona?.identity ?? {}), ...(persona?.withhold ?? [])];
  const properties = schema.properties ?? {};
  const hidden = fields.filter((f) => Object.hasOwn(properties, f) || schema.required?.includes(f));
  if (hidden.length === 0) return schema;
  const out: InputSchema = {
    ...schema,
    properties: Object.fromEntries(Object.entries(properties).filter(([k]) => !hidden.includes(k))),
  };
  if (schema.required) out.required = schema.required.filter((r) => !hidden.includes(r));
  return out;
}

/**
 * Sets each identity field the tool declares to the session's value, and deletes any
 * identity field the tool does not declare (an undeclared field is no business of the
 * model's either, and a lenient upstream might read it). A replaced model value is noted
 * for the audit: it is a forgery attempt or a confused model, worth seeing either way.
 */
export function identityGuard(policy: Policy): Guard {
  return async (ctx, next) => {
    let values: Record<string, string>;
    try {
      values = policy.identityValues(ctx.session.persona, ctx.session.userId);
    } catch (err) {
      if (!(err instanceof MissingIdentityError)) throw err;
      ctx.decisions.push('refused');
      ctx.notes.push(err.message);
      return errorResult(`this session has no identity for ${ctx.requestedName}: ${err.message}`);
    }
    const declared = ctx.tool?.inputSchema.properties ?? {};
    const args = { ...ctx.args };
    for (const [field, value] of Object.entries(values)) {
      const sent = Object.hasOwn(args, field) ? JSON.stringify(args[field]) : undefined;
      if (Object.hasOwn(declared, field)) {
        args[field] = value;
        if (sent !== undefined && sent !== JSON.stringify(value)) ctx.notes.push(`${field} ${sent} from the model replaced by the session's`);
      } else if (sent !== undefined) {
        delete args[field];
        ctx.notes.push(`${field} ${sent} from the model removed (the tool does not declare it)`);
      }
    }
    for (const field of policy.persona(ctx.session.persona)?.withhold ?? []) {
      if (!Object.hasOwn(args, field) || Object.hasOwn(values, field)) continue;
      ctx.notes.push(`${field} ${JSON.stringify(args[field])} from the model removed (withheld from persona ${ctx.session.persona})`);
      delete args[field];
    }
    ctx.args = args;
    return next(ctx);
  };
}
