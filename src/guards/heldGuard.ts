/**
 * Refuses a call of a tool held back because its upstream changed its definition
 * (pins.ts, `definitions.on_change: hold`). The tool is out of the catalog already, so
 * without this guard the name guard would answer "unknown tool" or offer a look-alike; this
 * one says what happened, names the tool and its upstream, and who can let it through —
 * a person with the approver key — without quoting any command (the model cannot accept
 * a definition and is not told how).
 */
import type { Policy } from '../policy/policy.js';
import type { ChangedDefinition } from './pins.js';
import { errorResult, type Guard } from './types.js';

/**
 * @param held the held-back change of the tool exposed under a name, if any (read per call).
 * @param policy a persona that may not use the tool is not told it exists: its call goes on
 *   to the name guard, which knows no such tool.
 */
export function heldGuard(held: (name: string) => ChangedDefinition | undefined, policy: Policy): Guard {
  return async (ctx, next) => {
    const change = held(ctx.requestedName);
    const record = change && { server: change.server, upstreamName: change.upstreamName, name: ctx.requestedName, description: '', inputSchema: { type: 'object' as const }, isAction: true };
    if (!change || !record || !policy.isAllowed(ctx.session.persona, record)) return next(ctx);
    ctx.decisions.push('refused');
    ctx.notes.push(`definition changed by upstream ${change.server}, held back: ${change.pendingDigest}`);
    return errorResult(
      `${ctx.requestedName} (upstream ${change.server}) is held back and has not run: its upstream changed the tool's definition ` +
        "since a person accepted it, and the new definition is not used until a person reviews and accepts it with the gateway's approver key. " +
        'Tell the user; only they can.',
    );
  };
}
