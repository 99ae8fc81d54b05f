/**
 * Confirmation guard: a person approves a call before it is forwarded, for the calls the
 * persona's confirmation policy names (`actions`: tools with isAction or listed under
 * `confirmation.actions`; `all`; `none`). With MCP elicitation the host's user is asked
 * inline. Without it the call is parked as a pending approval; a person approves it with
 * the CLI or the approvals page, and the model's next identical call runs once.
 *
 * The model cannot approve its own call: approval lives outside the MCP session (the
 * host's elicitation UI, the CLI, a token-protected page), and any argument the model adds
 * only makes a different call that needs its own approval.
 */
import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRecord } from '../catalog/types.js';
import type { GatewayConfig } from '../config/schema.js';
import { log } from '../log.js';
import type { Policy } from '../policy/policy.js';
import { cancelled, cancelledResult } from '../relay/cancel.js';
import type { Approval, ApprovalStore } from '../store/approvals.js';
import { redact } from './redact.js';
import { errorResult, type CallContext, type Guard } from './types.js';

/** JSON with object keys sorted at every depth, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Who an approval belongs to: the user within a persona when the session has a user id
 * (an HTTP reconnect keeps its approvals), else the session.
 */
function scopeOf(ctx: CallContext): string {
  const { userId, persona, sessionId } = ctx.session;
  return userId !== undefined ? `user:${persona ?? ''}:${userId}` : `session:${sessionId}`;
}

/** The key of a call: scope, tool and canonical arguments (after identity injection). */
export function approvalKey(ctx: CallContext, tool: ToolRecord): string {
  return createHash('sha256').update(`${scopeOf(ctx)}\0${tool.name}\0${canonicalJson(ctx.args)}`).digest('hex');
}

export interface ConfirmationDeps {
  policy: Policy;
  approvals: ApprovalStore;
  config: Pick<GatewayConfig, 'confirmation' | 'audit'>;
  /** URL of the approvals page when this gateway serves one (HTTP with http.approvals_token), read per call. */
  approvalsPage?: () => string | undefined;
}

/** Whether a call of `tool` by `persona` needs a person's approval. */
export function needsConfirmation(
  policy: Policy,
  config: Pick<GatewayConfig, 'confirmation'>,
  persona: string | undefined,
  tool: ToolRecord,
): boolean {
  switch (policy.confirmation(persona)) {
    case 'none':
      return false;
    case 'all':
      return true;
    case 'actions':
      return tool.isAction || config.confirmation.actions.includes(tool.name) || config.confirmation.actions.includes(tool.upstreamName);
  }
}

function awaiting(a: Approval, now: number, page: string | undefined): CallToolResult {
  const minutes = Math.max(1, Math.ceil((a.expiresAt - now) / 60_000));
  return errorResult(
    `${a.tool} awaits a person's approval (approval id ${a.id}); it has not run. ` +
      `Ask the user to approve it with \`tool-curator approvals approve ${a.id}\`${page ? ` or on the approvals page (${page})` : ''}, ` +
      `then call ${a.tool} again with exactly the same arguments. The request expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  );
}

export function confirmationGuard({ policy, approvals, config, approvalsPage }: ConfirmationDeps): Guard {
  const ttlMs = config.confirmation.approval_ttl_minutes * 60_000;

  return async (ctx, next) => {
    const tool = ctx.tool;
    if (!tool) throw new Error('confirmationGuard needs ctx.tool: compose it after nameGuard');
    if (!needsConfirmation(policy, config, ctx.session.persona, tool)) return next(ctx);

    if (ctx.elicit) {
      let answer: 'accept' | 'decline' | 'cancel' | undefined;
      try {
        const shown = JSON.stringify(redact(ctx.args, config.audit.redact), null, 2);
        answer = await ctx.elicit(`Allow ${tool.name} (upstream ${tool.server}) to run with these arguments?\n${shown}`, tool, ctx.args);
      } catch (err) {
        log.warn({ err, tool: tool.name }, 'elicitation failed; falling back to a pending approval');
      }
      // The host cancelled the call while its user was being asked: whatever the answer,
      // it does not run.
      if (cancelled(ctx)) return cancelledResult(ctx);
      if (answer === 'accept') {
        ctx.decisions.push('approved');
        ctx.notes.push('approved through elicitation');
        return next(ctx);
      }
      if (answer !== undefined) {
        ctx.decisions.push('denied');
        ctx.notes.push(`elicitation answered ${answer}`);
        return errorResult(`the user did not approve ${tool.name} (${answer}); it has not run. Do not retry unless the user asks for it.`);
      }
    }

    // A cancelled call neither consumes an approval nor leaves a pending one behind.
    if (cancelled(ctx)) return cancelledResult(ctx);
    const key = approvalKey(ctx, tool);
    const live = approvals.live(key);
    if (live?.status === 'approved' && approvals.consume(live.id)) {
      ctx.decisions.push('approved');
      ctx.notes.push(`approval ${live.id} by ${live.decidedBy ?? 'a person'}`);
      return next(ctx);
    }
    if (live?.status === 'denied') {
      ctx.decisions.push('denied');
      ctx.notes.push(`approval ${live.id} denied by ${live.decidedBy ?? 'a person'}`);
      return errorResult(`a person denied ${tool.name} with these arguments (approval id ${live.id}); it has not run. Do not retry it.`);
    }
    const pending =
      live?.status === 'pending'
        ? live
        : approvals.request({
            key,
            sessionId: ctx.session.sessionId,
            ...(ctx.session.persona !== undefined && { persona: ctx.session.persona }),
            ...(ctx.session.userId !== undefined && { userId: ctx.session.userId }),
            tool: tool.name,
            args: redact(ctx.args, config.audit.redact),
            ttlMs,
          });
    ctx.decisions.push('awaiting_approval');
    ctx.notes.push(`approval ${pending.id}`);
    return awaiting(pending, approvals.clock(), approvalsPage?.());
  };
}
