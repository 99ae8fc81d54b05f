/**
 * `doctor` on `confirmation.approvers` (docs/AUTH.md, "Approvals and the identity
 * provider"): the checks `serve --http` makes before it starts, reported as a finding
 * instead of a refusal; the personas whose parked calls no rule lets anyone approve; and
 * own calls made approvable.
 */
import { ConfigError } from '../config/errors.js';
import type { LoadedConfig } from '../config/load.js';
import type { Finding } from './types.js';
import { checkApprovers } from '../host/auth/config.js';

const KEY = 'confirmation.approvers';

/**
 * Personas whose calls can wait for a person on the approvals page: some of their calls
 * need approval (`confirm` not `none`) and they are not confirmed by elicitation only.
 */
function approvedOnPage(loaded: LoadedConfig): string[] {
  return Object.entries(loaded.personas)
    .filter(([, p]) => p.confirm !== 'none' && p.confirm_via !== 'elicitation')
    .map(([name]) => name);
}

/** The approvers findings, or none when `confirmation.approvers` is not set. */
export function approverFindings(loaded: LoadedConfig): Finding[] {
  const { confirmation } = loaded.config;
  const rules = confirmation.approvers;
  if (!rules) return [];
  try {
    checkApprovers(loaded);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return [{ check: 'approvers', level: 'error', file: err.file, key: err.keyPath, message: `${err.expectation} (serve --http refuses to start)` }];
  }
  const everyPersona = rules.some((r) => r.personas === undefined);
  const covered = new Set(rules.flatMap((r) => r.personas ?? []));
  const own = confirmation.approvers_may_approve_own_calls ? 'may approve their own calls' : 'may not approve their own calls';
  const whose = everyPersona ? "every persona's calls" : `calls of ${[...covered].join(', ')}`;
  const findings: Finding[] = [{ check: 'approvers', level: 'ok', key: KEY, message: `${rules.length} rule(s) over the identity provider's claims decide ${whose}; approvers ${own}` }];
  if (!everyPersona) {
    for (const persona of approvedOnPage(loaded).filter((p) => !covered.has(p))) {
      const message = `no rule covers persona "${persona}": its calls that wait for approval on the approvals page can only be denied or time out; add "${persona}" to a rule's personas, or a rule without personas`;
      findings.push({ check: 'approvers', level: 'warn', file: loaded.file, key: KEY, message });
    }
  }
  if (confirmation.approvers_may_approve_own_calls) {
    const message = 'approvers_may_approve_own_calls is true: an approver can approve what their own agent asked for, so such an approval is no second person';
    findings.push({ check: 'approvers', level: 'info', file: loaded.file, key: 'confirmation.approvers_may_approve_own_calls', message });
  }
  return findings;
}
