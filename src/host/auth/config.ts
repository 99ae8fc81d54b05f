/**
 * The checks `serve --http` makes on `http.oauth` before anything starts, kept apart from
 * the sign-in itself so the HTTP face can run them without loading the JOSE and OAuth
 * libraries (host/auth/index.ts is imported only when `http.oauth` is set).
 */
import { ConfigError, type LoadedConfig } from '../../config/load.js';
import { Policy } from '../../policy/policy.js';

/**
 * @throws ConfigError when `http.oauth` is set beside `http.anonymous` (a request without
 *   a token would never be asked to sign in), or a rule names a persona personas.yaml lacks.
 */
export function checkHostOAuth(loaded: LoadedConfig): void {
  const oauth = loaded.config.http.oauth;
  if (!oauth) return;
  if (loaded.config.http.anonymous) {
    throw new ConfigError(loaded.file, 'http.anonymous', 'requests without a token would act as http.anonymous and never be asked to sign in with http.oauth; remove one of the two');
  }
  const policy = new Policy(loaded.personas);
  oauth.personas.forEach((r, i) => {
    try {
      policy.persona(r.persona);
    } catch (err) {
      throw new ConfigError(loaded.file, `http.oauth.personas.${i}.persona`, (err as Error).message);
    }
  });
}

/**
 * The checks of `confirmation.approvers`: approvers are people of the identity provider
 * (`http.oauth`), who sign in on the approvals page (served with `http.approvals_token`,
 * which signs their decisions) through a client of that provider, and each rule's
 * personas exist.
 * @throws ConfigError naming the key to set or fix.
 */
export function checkApprovers(loaded: LoadedConfig): void {
  const { confirmation, http, per_user } = loaded.config;
  if (!confirmation.approvers) return;
  const key = 'confirmation.approvers';
  if (!http.oauth) {
    throw new ConfigError(loaded.file, key, 'approvers are named by claims of the identity provider, and http.oauth (the provider hosts sign in with) is not set; set it, or remove confirmation.approvers (the approvals page then takes http.approvals_token)');
  }
  if (!http.approvals_token) {
    throw new ConfigError(loaded.file, 'http.approvals_token', 'confirmation.approvers decide on the approvals page, which is served only with http.approvals_token: the gateway signs each decision with it (hosts never hold it); set it to a secret of at least 16 characters');
  }
  if (!confirmation.approvers_sign_in && !per_user.sign_in) {
    throw new ConfigError(
      loaded.file,
      'confirmation.approvers_sign_in',
      `approvers sign in to the approvals page in their browser: set confirmation.approvers_sign_in.client_id (or per_user.sign_in) to a client of ${http.oauth.issuer} whose redirect URI is <public_url>/approvals/signin/callback`,
    );
  }
  const policy = new Policy(loaded.personas);
  confirmation.approvers.forEach((r, i) =>
    r.personas?.forEach((p, j) => {
      try {
        policy.persona(p);
      } catch (err) {
        throw new ConfigError(loaded.file, `${key}.${i}.personas.${j}`, (err as Error).message);
      }
    }),
  );
}
