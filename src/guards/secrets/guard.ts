/**
 * Well-known secret formats in a call (`guards.secrets`), on the call path between identity
 * injection and validation: arguments carrying one are refused (`block`) or have it
 * replaced before the call goes upstream, with the model told (`redact`); under `block`, a
 * result carrying one becomes an error naming the kinds. Under `redact` the result's are
 * removed with everything else on the way to the host (transport.ts).
 */
import { errorResult, isToolResult, type Guard } from '../types.js';
import type { SecretRedactor } from './redactor.js';

const list = (kinds: string[]) => kinds.join(', ');

export function secretsGuard(redactor: SecretRedactor): Guard {
  return async (ctx, next) => {
    if (redactor.mode === 'off') return next(ctx);
    const name = ctx.tool?.name ?? ctx.requestedName;
    const inArgs = redactor.patternKinds(ctx.args);
    if (inArgs.length > 0 && redactor.mode === 'block') {
      ctx.decisions.push('refused');
      ctx.notes.push(`arguments carry a secret: ${list(inArgs)}`);
      return errorResult(`${name} was not called: its arguments carry a secret (${list(inArgs)}), and this gateway does not pass secrets to tools (guards.secrets: block).`);
    }
    if (inArgs.length > 0) {
      ctx.args = redactor.redact(ctx.args);
      ctx.notes.push(`secret removed from the arguments: ${list(inArgs)}`);
    }
    const result = await next(ctx);
    if (redactor.mode === 'block') {
      const inResult = redactor.patternKinds(result);
      if (inResult.length > 0) {
        ctx.notes.push(`result withheld, it carries a secret: ${list(inResult)}`);
        return errorResult(`the result of ${name} was withheld: it carries a secret (${list(inResult)}), and this gateway does not pass secrets to the model (guards.secrets: block).`);
      }
    }
    if (inArgs.length === 0 || !isToolResult(result)) return result;
    const told = { type: 'text' as const, text: `[tool-curator] removed from the arguments before the call: ${list(inArgs)}` };
    return { ...result, content: [told, ...(result.content ?? [])] };
  };
}
