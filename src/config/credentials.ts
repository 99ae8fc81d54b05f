/**
 * One credential, one job: the bearer secrets of the `http` block (host tokens, the
 * approvals token, the metrics token) must all differ, or one holder silently gets another's
 * power. A host token that is also `http.approvals_token` lets a host approve its own parked
 * calls on the approvals page; a metrics token that is also a host or the approvals token
 * lets a scraper act as that host or approve calls; two host tokens with one value give
 * every request the first entry's identity, whatever the second says. Messages name the
 * keys and the identities, never the value.
 */
import type { GatewayConfig } from './schema.js';

export interface CredentialIssue {
  /** Key path in gateway.config.yaml: `http.approvals_token`, `http.tokens.1.token`. */
  key: string;
  message: string;
}

type Http = GatewayConfig['http'];

/** `http.tokens.0 (persona student, user S0001)`. */
function hostToken(http: Http, i: number): string {
  const t = http.tokens[i]!;
  return `http.tokens.${i} (persona ${t.persona}${t.user_id === undefined ? '' : `, user ${t.user_id}`})`;
}

/**
 * The first secret of the `http` block that is also another's, if any.
 * @returns undefined when every host token, the approvals token and the metrics token differ.
 */
export function sharedCredential(http: Http): CredentialIssue | undefined {
  const hosts = new Map<string, number>();
  for (const [i, t] of http.tokens.entries()) {
    const first = hosts.get(t.token);
    if (first === undefined) {
      hosts.set(t.token, i);
      continue;
    }
    return {
      key: `http.tokens.${i}.token`,
      message:
        `has the same value as the token of ${hostToken(http, first)}, so every request with it would act as that first entry and ${hostToken(http, i)} could never be used. ` +
        'Give each host its own token',
    };
  }
  const approvals = http.approvals_token;
  const approvalsHost = approvals === undefined ? undefined : hosts.get(approvals);
  if (approvalsHost !== undefined) {
    return {
      key: 'http.approvals_token',
      message:
        `has the same value as the token of ${hostToken(http, approvalsHost)}: that host could approve its own parked calls on the approvals page, ` +
        'and a person approving is the point of an approval. Give the approvals page its own secret, held by the people who approve and by no host',
    };
  }
  const metrics = http.metrics.token;
  if (metrics === undefined) return undefined;
  const metricsHost = hosts.get(metrics);
  if (metricsHost !== undefined) {
    return {
      key: 'http.metrics.token',
      message: `has the same value as the token of ${hostToken(http, metricsHost)}: whoever scrapes the metrics could act as that host. Give the scraper its own secret`,
    };
  }
  if (metrics === approvals) {
    return {
      key: 'http.metrics.token',
      message: 'has the same value as http.approvals_token: whoever scrapes the metrics could approve parked calls on the approvals page. Give the scraper its own secret',
    };
  }
  return undefined;
}
