/**
 * The approvals page's part for changed tool definitions (guards/pins.ts): each change
 * awaiting a person, as a diff from the accepted definition, with an Accept form bound to
 * the digest shown; accepting is signed with the approvals token (approver.ts), like a
 * decision on a call. Authentication, CSRF and origin checks are the page's (approvalsPage.ts).
 */
import { webDefinitionProof } from '../guards/acceptance.js';
import { approverDecider, type SignedApprover } from '../guards/approver.js';
import { definitionDiff } from '../guards/definitionCommands.js';
import { auditAcceptance } from '../guards/pins.js';
import { log } from '../log.js';
import { ApprovalError } from '../store/errors.js';
import type { Store } from '../store/types.js';

export type DefinitionStores = Pick<Store, 'definitions' | 'audit'>;

/** The path the Accept forms post to. */
export const ACCEPT_PATH = '/approvals/definitions/accept';

/**
 * The section listing changed definitions, or '' when there are none.
 * @param escape the page's HTML escaping.
 */
export async function definitionsSection(stores: DefinitionStores, csrf: string, escape: (s: string) => string): Promise<string> {
  const changed = await stores.definitions.list({ status: 'changed' });
  if (changed.length === 0) return '';
  const rows = changed.map((p) => {
    const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escape(value)}">`;
    const form = `<form method="post" action="${ACCEPT_PATH}">${field('csrf', csrf)}${field('server', p.server)}${field('tool', p.upstreamName)}${field('digest', p.pendingDigest ?? '')}<button type="submit">Accept</button></form>`;
    return `<tr data-tool="${escape(`${p.server}.${p.upstreamName}`)}"><td>${escape(p.upstreamName)}</td><td>${escape(p.server)}</td><td><pre class="diff">${escape(definitionDiff(p))}</pre></td><td>${form}</td></tr>`;
  });
  return `<h2>Changed tool definitions</h2><p>These tools are held back (or shown with a warning) until a person accepts what their upstream now says.</p>
<table id="definitions"><tr><th>Tool</th><th>Upstream</th><th>Change</th><th></th></tr>${rows.join('')}</table>`;
}

/**
 * Accepts the change named by the form (server, tool, digest shown), signed with the token
 * and its time and, where approvers sign in with the identity provider, for `approver`
 * (their user id and the claims the rules read: guards/acceptance.ts).
 * @throws ApprovalError when there is no such change pending (changed again meanwhile, accepted already).
 */
export async function acceptDefinition(stores: DefinitionStores, token: string, form: URLSearchParams, approver?: SignedApprover): Promise<string> {
  const [server, tool, digest] = [form.get('server') ?? '', form.get('tool') ?? '', form.get('digest') ?? ''];
  const at = Date.now();
  const proof = webDefinitionProof(token, server, tool, digest, at, approver);
  const by = approver === undefined ? 'web' : approverDecider(approver.id);
  if (!(await stores.definitions.accept(server, tool, digest, by, proof, at))) {
    throw new ApprovalError(`the definition of ${server}.${tool} shown is no longer the one awaiting review (changed again, or decided already); nothing was accepted`);
  }
  await auditAcceptance(stores.audit, server, tool, digest, by, at);
  log.info({ upstream: server, tool, digest, ...(approver !== undefined && { approver: approver.id }) }, 'changed tool definition accepted on the web page');
  return `Accepted the new definition of ${tool} (upstream ${server}).`;
}
