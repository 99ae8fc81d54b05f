/**
 * Confirmation guard: a person approves a call before it is forwarded, for the calls the
 * persona's confirmation policy names (`actions`: tools with isAction, which the operator's
 * rules and MCP's annotation defaults decide; `all`; `none`), through the session's channel (`confirm_via`):
 *
 *   elicitation  the host's user is asked inline; a host without elicitation parks the call
 *   approvals    the call is parked; a person approves it on the page or with the CLI
 *   both         the host's user accepts and a person approves on the page or CLI
 *
 * A parked call is a pending approval carrying the call's statement (statement.ts: who,
 * which tool of which upstream, digests of the arguments and of the tool's definition, the
 * approver key in force). It waits up to `confirmation.wait_seconds` (per transport; one
 * waiting call per session) for the decision, woken by the store's `approval` event from
 * whichever replica, page or CLI took it: approved in time, it runs then; otherwise the
 * model is told it awaits approval, and once approved, its next identical call runs once.
 *
 * The rows decide nothing. Before a call runs, its statement is written again from the
 * call in hand, and the approval counts only if a person's credential (approver.ts: the
 * approver key or the approvals token, neither held by hosts) signed that very statement,
 * with the request's id as nonce and an expiry not yet past; it is used once (the store's
 * `approval_uses`, read back, and this process's memory of the ids it ran or heard a
 * replica run, kept in a ledger file outside the store so a restart keeps it: usedLedger.ts).
 * So a used row re-armed,
 * an expired one revived or a harmless request swapped for another call runs nothing. The
 * model cannot approve its own call: the parked message tells it to ask the user, not how
 * to approve, and any argument it adds makes a different call.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolRecord } from '../catalog/types.js';
import type { GatewayConfig } from '../config/schema.js';
import { log } from '../log.js';
import type { Policy } from '../policy/policy.js';
import type { ConfirmVia } from '../config/schema.js';
import { cancelled, cancelledResult } from '../relay/cancel.js';
import type { Approval, ApprovalsPart } from '../store/types.js';
import type { ApproverCheck } from './approver.js';
import { boundValue } from './bound.js';
import { correctionOf } from './nameGuard.js';
import { redact } from './redact.js';
import { requestIdFor, statementDigest, statementOf } from './statement.js';
import { errorResult, type CallContext, type CallOutcome, type Guard, type SessionIdentity } from './types.js';
import type { UsedLedger } from './usedLedger.js';

export interface ConfirmationDeps {
  policy: Policy;
  approvals: ApprovalsPart;
  config: Pick<GatewayConfig, 'confirmation' | 'audit'>;
  /** Tells a person's signature over a call's statement from anything else (approver.ts); a decision it rejects does not count. */
  approver: ApproverCheck;
  /** URL of the approvals page when this gateway serves one (HTTP with http.approvals_token), read per call. */
  approvalsPage?: () => string | undefined;
  /** Where the uses this process ran or heard of outlive it (usedLedger.ts); default: in memory only. */
  usedLedger?: UsedLedger;
}

/** The session's confirmation channel: its own (an HTTP token's), else the persona's, else `approvals` over HTTP and `elicitation` over stdio. */
export function channelOf(policy: Policy, session: SessionIdentity): ConfirmVia {
  return session.confirmVia ?? policy.persona(session.persona)?.confirm_via ?? (session.transport === 'http' ? 'approvals' : 'elicitation');
}

/**
 * Whether a call of `tool` by `persona` needs a person's approval: by the persona's
 * `confirm`, and for `actions` by `tool.isAction` — which the operator's
 * `confirmation.actions` / `read_only` and MCP's annotation defaults decide (policy/actions.ts).
 */
export function needsConfirmation(policy: Policy, persona: string | undefined, tool: ToolRecord): boolean {
  switch (policy.confirmation(persona)) {
    case 'none':
      return false;
    case 'all':
      return true;
    case 'actions':
      return tool.isAction;
  }
}

function awaiting(a: Approval, now: number, page: string | undefined): CallToolResult {
  const minutes = Math.max(1, Math.ceil((a.expiresAt - now) / 60_000));
  return errorResult(
    `${a.tool} awaits a person's approval (approval id ${a.id}); it has not run. ` +
      `Ask the user to review and approve this call${page ? ` on the approvals page (${page})` : ' in their approvals list'}; ` +
      `only they can. Once they have, call ${a.tool} again with exactly the same arguments. ` +
      `The request expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
  );
}

/** "make_payment" or, after a correction, "make_payment (the model asked for make_paymnet)", for the person deciding. */
function shownName(ctx: CallContext, tool: ToolRecord): string {
  const c = correctionOf(ctx);
  return c ? `${tool.name} (the model asked for ${c.requested})` : tool.name;
}

/**
 * Ids of approvals used by this process (or by an earlier one, from `ledger`), each kept
 * until its signed expiry (after which it could not run anyway).
 */
class UsedApprovals {
  private readonly until: Map<string, number>;

  constructor(
    private readonly ledger: UsedLedger | undefined,
    now: number,
  ) {
    this.until = ledger?.load(now) ?? new Map();
  }

  has(id: string): boolean {
    return this.until.has(id);
  }

  /** Held here at once; @throws when the ledger cannot record it (it stays held here). */
  add(id: string, expiresAt: number, now: number): void {
    for (const [old, t] of this.until) if (t <= now) this.until.delete(old);
    const until = Math.max(expiresAt, this.until.get(id) ?? 0);
    this.until.set(id, until);
    this.ledger?.add(id, until);
  }

  delete(id: string): void {
    this.until.delete(id);
  }
}

export function confirmationGuard({ policy, approvals, config, approver, approvalsPage, usedLedger }: ConfirmationDeps): Guard {
  const ttlMs = config.confirmation.approval_ttl_minutes * 60_000;
  const maxBytes = config.audit.max_value_bytes;
  /** Sessions with a parked call waiting for its decision: one at a time each, so a burst of parked calls holds nothing. */
  const waiting = new Set<string>();
  /**
   * Approvals this process ran, or heard another replica run: used once even if someone
   * deletes their `approval_uses` row. A heard use is kept for the approval TTL, which is
   * at least what is left of a statement's signed validity (the statement names it).
   */
  const used = new UsedApprovals(usedLedger, approvals.clock());
  approvals.onUse((id) => {
    try {
      used.add(id, approvals.clock() + ttlMs, approvals.clock());
    } catch (err) {
      log.warn({ err, id }, 'could not record a use heard from the store in the used-approvals ledger');
    }
  });

  return async (ctx, next) => {
    const tool = ctx.tool;
    if (!tool) throw new Error('confirmationGuard needs ctx.tool: compose it after nameGuard');
    if (!needsConfirmation(policy, ctx.session.persona, tool)) return next(ctx);
    const channel = channelOf(policy, ctx.session);
    // What the person is shown (redacted, bounded) and what runs: the same call.
    const shown = boundValue(redact(ctx.args, config.audit.redact), maxBytes);

    const modern = ctx.era === 'modern';
    // A 2026 host is asked through input_required, if it declared elicitation for this request.
    const canAsk = modern ? ctx.hostCapabilities?.elicitation !== undefined && ctx.seal !== undefined : ctx.elicit !== undefined;
    if (channel === 'both' && !canAsk) {
      ctx.decisions.push('refused');
      ctx.notes.push('confirm_via both, host without elicitation');
      return errorResult(
        `${tool.name} needs the user's confirmation in this app and a person's approval, and this app cannot ask for confirmation (no MCP elicitation); it has not run.`,
      );
    }
    const question = `Allow ${shownName(ctx, tool)} (upstream ${tool.server}) to run with these arguments?\n${JSON.stringify(shown, null, 2)}`;
    if (modern && channel !== 'approvals' && canAsk) {
      // Loaded on a 2026 host's first confirmation: the SDK helpers load its schemas (zod), which the package's entry point leaves for first use.
      const { answerOf, askToConfirm } = await import('./confirmInput.js');
      const answer = answerOf(ctx, tool);
      if (answer === undefined) {
        ctx.decisions.push('awaiting_approval');
        ctx.notes.push('confirmation asked through input_required');
        return askToConfirm(ctx, tool, question);
      }
      if (answer !== 'accept') {
        ctx.decisions.push('denied');
        ctx.notes.push(`input_required answered ${answer}`);
        return errorResult(`the user did not approve ${tool.name} (${answer}); it has not run. Do not retry unless the user asks for it.`);
      }
      if (channel === 'elicitation') {
        ctx.decisions.push('approved');
        ctx.notes.push('approved through input_required');
        return next(ctx);
      }
      ctx.notes.push('accepted through input_required');
    }
    if (!modern && channel !== 'approvals' && ctx.elicit) {
      let answer: 'accept' | 'decline' | 'cancel' | undefined;
      try {
        answer = await ctx.elicit(question, tool, ctx.args);
      } catch (err) {
        log.warn({ err, tool: tool.name }, 'elicitation failed; falling back to a pending approval');
      }
      // The host cancelled the call while its user was being asked: whatever the answer,
      // it does not run.
      if (cancelled(ctx)) return cancelledResult(ctx);
      if (answer !== undefined && answer !== 'accept') {
        ctx.decisions.push('denied');
        ctx.notes.push(`elicitation answered ${answer}`);
        return errorResult(`the user did not approve ${tool.name} (${answer}); it has not run. Do not retry unless the user asks for it.`);
      }
      if (answer === 'accept' && channel === 'elicitation') {
        ctx.decisions.push('approved');
        ctx.notes.push('approved through elicitation');
        return next(ctx);
      }
      if (answer === undefined && channel === 'both') {
        ctx.decisions.push('refused');
        ctx.notes.push('confirm_via both, elicitation failed');
        return errorResult(`${tool.name} needs the user's confirmation in this app, which could not be asked; it has not run.`);
      }
      if (answer === 'accept') ctx.notes.push('accepted through elicitation');
    }

    const statement = statementOf(ctx.session, tool, ctx.args, shown, approver.keyId, ttlMs);

    /** The call's fate when `a` is a person's signed decision on this very call: run once, or refused; else undefined. */
    const settle = async (a: Approval | undefined): Promise<CallOutcome | undefined> => {
      if (a?.status !== 'approved' && a?.status !== 'denied') return undefined;
      const verdict = approver.verify(statement, a, approvals.clock());
      if (!verdict.valid) {
        // Not a person's decision on this call: the request is as good as undecided, and it is logged.
        log.warn({ id: a.id, tool: tool.name, decidedBy: a.decidedBy, reason: verdict.reason }, 'decision ignored: it is not a valid signature over this call');
        ctx.notes.push(`approval ${a.id} ignored: ${verdict.reason}`);
        return undefined;
      }
      if (a.status === 'denied') {
        ctx.decisions.push('denied');
        ctx.notes.push(`approval ${a.id} denied by ${a.decidedBy ?? 'a person'}`);
        return errorResult(`a person denied ${tool.name} with these arguments (approval id ${a.id}); it has not run. Do not retry it.`);
      }
      // Marked used before the store is asked, so two identical calls at once never both run,
      // whatever the store answers; a store that fails to record the use leaves it unused.
      // A use the ledger cannot record does not run: after a restart nothing here would know of it.
      // (One the store then fails to record stays in the ledger: after a restart it is asked for again.)
      const fresh = !used.has(a.id);
      let consumed = false;
      try {
        if (fresh) used.add(a.id, verdict.expiresAt, approvals.clock());
        consumed = fresh && (await approvals.consume(a.id));
      } catch (err) {
        used.delete(a.id);
        throw err;
      }
      if (!consumed) {
        // Fresh, yet not consumed: the store holds another use, or did not keep this one
        // (its row gone as it was written). Either way it never runs again here.
        const lost = fresh && (await approvals.get(a.id))?.status !== 'used';
        const why = lost ? 'its use was not kept by the store' : 'already used';
        log.warn({ id: a.id, tool: tool.name }, `approval ignored: ${why}; the call is parked anew`);
        ctx.notes.push(`approval ${a.id} ignored: ${why}`);
        return undefined;
      }
      ctx.decisions.push('approved');
      ctx.notes.push(`approval ${a.id} by ${a.decidedBy ?? 'a person'}`);
      return next(ctx);
    };

    // A cancelled call neither consumes an approval nor leaves a pending one behind.
    if (cancelled(ctx)) return cancelledResult(ctx);
    const key = statementDigest(statement);
    const live = await approvals.live(key);
    const decided = await settle(live);
    if (decided) return decided;
    const correction = correctionOf(ctx);
    const pending =
      live?.status === 'pending'
        ? live
        : await approvals.request({
            id: requestIdFor(statement),
            key,
            sessionId: ctx.session.sessionId,
            ...(ctx.session.persona !== undefined && { persona: ctx.session.persona }),
            ...(ctx.session.userId !== undefined && { userId: ctx.session.userId }),
            tool: tool.name,
            ...(correction && { requestedName: correction.requested }),
            args: shown,
            statement,
            ttlMs,
          });
    ctx.decisions.push('awaiting_approval');
    ctx.notes.push(`approval ${pending.id}`);
    const waitMs = config.confirmation.wait_seconds[ctx.session.transport ?? 'stdio'] * 1000;
    const session = ctx.session.sessionId;
    if (waitMs > 0 && !waiting.has(session)) {
      waiting.add(session);
      let latest: Approval | undefined;
      try {
        latest = await approvals.wait(pending.id, waitMs, ctx.host?.signal);
      } finally {
        waiting.delete(session);
      }
      if (cancelled(ctx)) return cancelledResult(ctx);
      const after = await settle(latest);
      if (after) return after;
    }
    return awaiting(pending, approvals.clock(), approvalsPage?.());
  };
}
