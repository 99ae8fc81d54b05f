/**
 * What an authorization failure of a remote upstream looks like to the user: a consent
 * that was never given (or was withdrawn), or a refusal from the server with the details
 * of its `WWW-Authenticate` challenge. Messages never carry tokens or secrets.
 */

/** The parameters of a 401/403 `WWW-Authenticate: Bearer ...` challenge that say why. */
export interface AuthChallenge {
  status: number;
  error?: string;
  scope?: string;
  resourceMetadata?: string;
}

export type ConsentReason = 'no_consent' | 'step_up' | 'rejected';

/**
 * The upstream needs a person's consent that the gateway cannot get unattended: no
 * tokens yet, a scope beyond the granted ones (step-up; `scope` holds the missing
 * scopes), or stored tokens the authorization server no longer accepts.
 */
export class NeedsAuthorizationError extends Error {
  /** What a model is told: no command (a model with a shell must not be led to consent on the user's behalf). */
  readonly forModel: string;

  constructor(
    readonly upstream: string,
    readonly reason: ConsentReason,
    readonly scope?: string,
  ) {
    const why =
      reason === 'step_up'
        ? ` (more scope${scope ? `: ${scope}` : ''})`
        : reason === 'rejected'
          ? ' (the authorization server no longer accepts its stored tokens)'
          : '';
    super(`upstream "${upstream}" needs authorization${why}: run tool-curator auth ${upstream}`);
    this.name = 'NeedsAuthorizationError';
    this.forModel = `upstream "${upstream}" needs authorization${why}, which only a person can give; ask the user`;
  }
}

/** An upstream answered 401 or 403: reported with its challenge, never as a transport error. */
export class UpstreamAuthError extends Error {
  /** What a model is told: the refusal without the operator's fix (which names a command). */
  readonly forModel: string;

  constructor(
    readonly upstream: string,
    readonly challenge: AuthChallenge,
    hint: string,
  ) {
    super(`upstream "${upstream}" refused authorization (${describeChallenge(challenge)}); ${hint}`);
    this.name = 'UpstreamAuthError';
    this.forModel = `upstream "${upstream}" refused authorization (${describeChallenge(challenge)}); ask the user`;
  }
}

export function describeChallenge(c: AuthChallenge): string {
  const parts = [`HTTP ${c.status}`];
  if (c.error) parts.push(`error="${c.error}"`);
  if (c.scope) parts.push(`scope="${c.scope}"`);
  if (c.resourceMetadata) parts.push(`resource_metadata="${c.resourceMetadata}"`);
  return parts.join(', ');
}
