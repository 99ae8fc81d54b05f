/**
 * Policy guard: the call-time permission check. Whatever the host was shown, and however
 * it calls (tools/call or call_tool), a tool outside the session's persona is refused
 * here: visibility is not permission.
 */
import type { Policy } from '../policy/policy.js';
import { errorResult, type Guard } from './types.js';

export function policyGuard(policy: Policy): Guard {
  return async (ctx, next) => {
    const { persona } = ctx.session;
    if (!ctx.tool || !policy.isAllowed(persona, ctx.tool)) {
      ctx.decisions.push('refused');
      ctx.notes.push(`not allowed for persona ${persona ?? '(none)'}`);
      return errorResult(
        `tool ${ctx.requestedName} is not available to persona ${persona ?? '(none)'}; call find_tools to see the tools you may use`,
      );
    }
    return next(ctx);
  };
}
