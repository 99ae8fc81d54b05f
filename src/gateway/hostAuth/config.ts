/**
 * The checks `serve --http` makes on `http.oauth` before anything starts, kept apart from
 * the sign-in itself so the HTTP face can run them without loading the JOSE and OAuth
 * libraries (hostAuth/index.ts is imported only when `http.oauth` is set).
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
