/**
 * What an approval's row does not say: whether the gateway would still honour it. A row
 * stays `approved` until it is used or expires, while the gateway ignores an approval
 * whose approver the approvers rules in force no longer cover (or who approved their own
 * call), whose signature does not verify (the store was written, or the approver key or
 * approvals token changed), whose statement names another approver key than the one the
 * gateway honours, or whose tool's definition changed since the call was made (the call's
 * statement would name another definition). Such an approval is shown `voided`, with the
 * reason, by `approvals list|show` and on the approvals page — the same check the
 * confirmation guard makes before running a call (approver.ts), asked of the row.
 */
import type { Approval, ApprovalStatus, DefinitionsPart } from '../store/types.js';
import type { ApproverCheck } from './approver.js';
import { review } from './statement.js';

/** An approval's state as the gateway sees it: the row's, or `voided` (with why) for an approval it would ignore. */
export interface Standing {
  status: ApprovalStatus | 'voided';
  /** Why a voided approval no longer counts. */
  voided?: string;
}

/** The standing of one approval. */
export type StandingOf = (a: Approval) => Promise<Standing>;

/** The row's own state: an approval's standing where nothing judges it. */
export const asStored: StandingOf = async (a) => ({ status: a.status });

const short = (digest: string) => `${digest.slice(0, 23)}…`;

/**
 * The standing of approvals as `check` (the gateway's approver check, with the approvers
 * rules in force) and the pinned definitions judge them at `now` (the approvals' clock).
 *
 * ### Usage
 * ```ts
 * const standing = approvalStanding(gateway.approver, store.definitions, () => store.approvals.clock());
 * await standing(approval); // { status: 'voided', voided: 'ann is not an approver of persona student's calls …' }
 * ```
 */
export function approvalStanding(check: ApproverCheck, definitions: Pick<DefinitionsPart, 'get'>, now: () => number): StandingOf {
  return async (a) => {
    if (a.status !== 'approved') return { status: a.status };
    const voided = (why: string): Standing => ({ status: 'voided', voided: why });
    const { statement: s, problem } = review(a);
    if (!s || problem) return voided(problem ?? 'it carries no statement of the call');
    const verdict = check.verify(a.statement!, a, now());
    if (!verdict.valid) return voided(verdict.reason);
    if (s.approverKey !== check.keyId) {
      return voided(`the call was made when the gateway honoured approver key ${s.approverKey}, and it honours ${check.keyId} now: the call's statement is another one`);
    }
    const pin = await definitions.get(s.upstream, s.upstreamTool);
    const current = pin && (pin.pendingDigest ?? pin.digest);
    if (current !== undefined && current !== s.definition) {
      return voided(`the definition of ${s.upstreamTool} (upstream ${s.upstream}) changed since the call was made (${short(s.definition)} then, ${short(current)} now): it runs only with a new approval`);
    }
    return { status: 'approved' };
  };
}
