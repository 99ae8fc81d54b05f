/**
 * Audit guard, the outermost: records every call that reached the gateway with the
 * decisions the inner guards took, the arguments as forwarded (the AuditLog redacts
 * them), the upstream latency and the outcome. A call whose upstream throws is recorded
 * and the error rethrown to the gateway.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { log } from '../log.js';
import type { AuditEntry, AuditLog, Outcome } from '../store/audit.js';
import type { CallContext, Guard } from './types.js';

const DETAIL_MAX = 500;

function resultText(result: CallToolResult): string {
  return result.content
    .map((c) => (c.type === 'text' ? c.text : `[${c.type}]`))
    .join(' ')
    .slice(0, DETAIL_MAX);
}

/** @param now clock in epoch ms; default `Date.now`. */
export function auditGuard(audit: AuditLog, now: () => number = Date.now): Guard {
  return async (ctx, next) => {
    const time = now();
    const write = (outcome: Outcome, detail?: string) => {
      const entry: AuditEntry = {
        time,
        sessionId: ctx.session.sessionId,
        tool: ctx.tool?.name ?? ctx.requestedName,
        requestedName: ctx.requestedName,
        args: ctx.args,
        decision: ctx.decisions.at(-1) ?? 'allowed',
        decisions: ctx.decisions,
        notes: ctx.notes,
        outcome,
        ...(ctx.session.persona !== undefined && { persona: ctx.session.persona }),
        ...(ctx.session.userId !== undefined && { userId: ctx.session.userId }),
        ...(ctx.upstreamMs !== undefined && { upstreamMs: ctx.upstreamMs }),
        ...(detail !== undefined && { detail }),
      };
      try {
        audit.record(entry);
      } catch (err) {
        // The call has been decided (perhaps run) already; losing the row must not lose the answer.
        log.error({ err, entry }, 'audit record failed');
      }
    };
    let result: CallToolResult;
    try {
      result = await next(ctx);
    } catch (err) {
      write('error', String((err as Error).message ?? err).slice(0, DETAIL_MAX));
      throw err;
    }
    write(outcomeOf(ctx, result), result.isError ? resultText(result) : undefined);
    return result;
  };
}

/** A call ran iff it reached the upstream, which is when the upstream handler set its latency. */
function outcomeOf(ctx: CallContext, result: CallToolResult): Outcome {
  if (ctx.upstreamMs === undefined) return 'not_run';
  return result.isError ? 'error' : 'ok';
}
