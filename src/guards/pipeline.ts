/**
 * The call path of the gateway, as one composition of guards. Read top to bottom, it is
 * what happens to every tools/call and call_tool:
 *
 *   audit        records the call and every decision below it, whatever they were (and,
 *                as the last step before forward, commits a `running` row first)
 *   held         refuses a tool whose changed definition is held back until a person accepts it
 *   nameGuard    exact name, or a typo corrected (≥ 0.82) within the persona and told, or refused
 *   policy       refuses a tool outside the persona, however it was named or shown
 *   identity     overwrites identity fields with the session's values
 *   secrets      refuses or redacts well-known secret formats in the arguments, and under
 *                `guards.secrets: block` withholds a result carrying one (secrets/guard.ts)
 *   validate     refuses arguments that do not fit the inputSchema (before anyone approves them)
 *   confirmation asks a person (elicitation) and/or parks the call for a signed approval
 *   cancellation drops a call the host cancelled meanwhile (relay/cancel.ts)
 *   forward      the gateway's upstream call, relaying progress, logs, questions, cancellation
 *
 * Identity comes before confirmation so a person approves, and the approval is keyed on,
 * the arguments that will really be sent.
 */
import type { ToolRecord } from '../catalog/types.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Policy } from '../policy/policy.js';
import { cancellationGuard } from '../relay/cancel.js';
import type { ApprovalsPart } from '../store/types.js';
import type { ApproverCheck } from './approver.js';
import { auditGuards, type AuditWriter } from './audit.js';
import { confirmationGuard } from './confirmation.js';
import { heldGuard } from './heldGuard.js';
import type { ChangedDefinition } from './pins.js';
import { identityGuard } from './identity.js';
import { nameGuard, type UpstreamView } from './nameGuard.js';
import { policyGuard } from './policyGuard.js';
import { secretsGuard } from './secrets/guard.js';
import type { SecretRedactor } from './secrets/redactor.js';
import { validateGuard } from './validate.js';
import { compose, type CallHandler } from './types.js';
import type { UsedLedger } from './usedLedger.js';

export { visibleSchema } from './identity.js';

export interface CallPathDeps {
  /** The whole current catalog (all personas); read on every call, so catalog changes apply at once. */
  tools: () => ToolRecord[];
  policy: Policy;
  /** `confirmation` (actions list, approval TTL, wait) and `audit` (redaction and size bound of what people are shown) are read. */
  config: Pick<GatewayConfig, 'confirmation' | 'audit'>;
  /** Redacts and bounds by itself (its constructor takes `audit.redact`). */
  audit: AuditWriter;
  approvals: ApprovalsPart;
  /** Checks that an approval carries a person's signature (approver.ts). */
  approver: ApproverCheck;
  /**
   * Sends `ctx.tool` with `ctx.args` upstream. It must set `ctx.upstreamMs` (also when the
   * upstream answers with an error): the audit counts a call as run iff it is set.
   * It may throw; the audit records the error and rethrows it.
   */
  forward: CallHandler;
  /** Clock for the audit's timestamps, epoch ms; default `Date.now`. */
  now?: () => number;
  /** URL of the approvals page when one is served, for the message of a parked call (confirmation.ts). */
  approvalsPage?: () => string | undefined;
  /** The configured upstreams and their state, for the name guard; default none known. */
  upstreams?: UpstreamView;
  /** The held-back definition change of the tool exposed under a name (guards/pins.ts); default none. */
  held?: (name: string) => ChangedDefinition | undefined;
  /** Where approval uses outlive the process (confirmation.ts, usedLedger.ts); default: in memory only. */
  usedLedger?: UsedLedger;
  /** Well-known secret formats in arguments and results (`guards.secrets`); default: not looked for on the call path. */
  secrets?: SecretRedactor;
}

/**
 * ### Usage
 * ```ts
 * const call = createCallPath({ tools: () => catalog, policy, config, audit, approvals, approver, forward });
 * const result = await call({ session, requestedName: 'get_attendence_summary', args: {}, decisions: [], notes: [] });
 * ```
 */
export function createCallPath(deps: CallPathDeps): CallHandler {
  const audited = auditGuards(deps.audit, deps.now);
  return compose(
    [
      audited.around,
      heldGuard(deps.held ?? (() => undefined), deps.policy),
      nameGuard(deps.tools, deps.policy, deps.upstreams),
      policyGuard(deps.policy),
      identityGuard(deps.policy),
      ...(deps.secrets ? [secretsGuard(deps.secrets)] : []),
      validateGuard,
      confirmationGuard(deps),
      cancellationGuard,
      audited.beforeForward,
    ],
    deps.forward,
  );
}
