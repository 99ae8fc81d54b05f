/**
 * `doctor` on upstreams marked per-user (`auth: { oauth, per_user: true }`): for each, the
 * state of the gateway's own (catalog) authorization and how many users hold their own
 * (a count from the store, never a token); and, once, the configuration under which users
 * could not connect their accounts: a consent page without its own sign-in beside
 * `http.oauth`, consent links no browser elsewhere can open, sessions without a user id.
 */
import type { LoadedConfig } from '../config/load.js';
import { ConfigError } from '../config/load.js';
import type { Store } from '../store/types.js';
import { isPerUser } from '../upstream/auth/index.js';
import { checkPerUser, consentBaseOf } from '../pages/consent.js';
import type { Finding, UpstreamReport } from './types.js';

/** Users counted at most (the store's own default bound on the list). */
const CONSENTED_LIMIT = 10_000;

/** Hosts that answer on every interface when bound, and name none a browser can reach. */
const UNSPECIFIED = new Set(['0.0.0.0', '::', '[::]']);
const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\]|::1)$/i;

/** The catalog authorization of one per-user upstream and its users' count. */
async function upstreamFinding(name: string, report: UpstreamReport | undefined, store: Pick<Store, 'oauth'> | undefined): Promise<Finding> {
  const key = `upstreams.${name}.auth.per_user`;
  const users = store
    ? await store.oauth.consented(name, CONSENTED_LIMIT).then(
        (rows) => `${rows.length >= CONSENTED_LIMIT ? 'at least ' : ''}${rows.filter((r) => r.subject !== '').length} user(s) hold their own authorization (tool-curator auth ${name} --users)`,
        (err: Error) => `users unknown (${err.message})`,
      )
    : 'users unknown (the store is not available)';
  if (report?.state === 'ready') {
    return { check: 'per-user', level: 'ok', key, message: `${name}: acts with each user's own account; the gateway's own (catalog) authorization lists its ${report.tools} tools; ${users}` };
  }
  const missing = /needs authorization/.test(report?.error ?? '');
  const catalog = missing
    ? `the gateway's own (catalog) authorization is missing, so its tools are in no catalog and no user can reach the consent link: run tool-curator auth ${name} (ideally as a service account with the least scope)`
    : `the catalog connection failed (see the upstream finding)`;
  return { check: 'per-user', level: 'warn', key, message: `${name}: acts with each user's own account; ${catalog}; ${users}` };
}

/** Where consent links would point, and whether browsers other than this machine's can open them. */
function linkFindings(loaded: LoadedConfig): Finding[] {
  const { per_user, http } = loaded.config;
  const configured = per_user.public_url ?? http.oauth?.resource;
  if (configured === undefined) {
    const face = `http://${http.host.includes(':') && !http.host.startsWith('[') ? `[${http.host}]` : http.host}:<port>`;
    if (UNSPECIFIED.has(http.host)) {
      const message = `consent links would start at the HTTP face's own address ${face}, which no browser can open: set per_user.public_url to the address browsers reach the gateway at`;
      return [{ check: 'per-user', level: 'warn', file: loaded.file, key: 'per_user.public_url', message }];
    }
    const where = LOOPBACK.test(http.host) ? ' (a loopback address: only a browser on this machine can open them)' : '';
    return [{ check: 'per-user', level: 'info', file: loaded.file, key: 'per_user.public_url', message: `not set: consent links start at the HTTP face's own address ${face}${where}` }];
  }
  const base = consentBaseOf(loaded, '');
  const host = new URL(base).hostname;
  if (LOOPBACK.test(host) && !LOOPBACK.test(http.host)) {
    const message = `consent links start at ${base}, a loopback address, while the HTTP face listens on ${http.host}: browsers on other machines cannot open them; set per_user.public_url`;
    return [{ check: 'per-user', level: 'warn', file: loaded.file, key: per_user.public_url ? 'per_user.public_url' : 'http.oauth.resource', message }];
  }
  return [{ check: 'per-user', level: 'ok', key: 'per_user.public_url', message: `consent links start at ${base}/oauth/consent/; the upstreams' redirect URI is ${base}/oauth/callback` }];
}

/** Whether any session can have a user id, which per-user calls need. */
function userIdFinding(loaded: LoadedConfig): Finding[] {
  const { http, session } = loaded.config;
  if (http.oauth || session.user_id !== undefined || http.tokens.some((t) => t.user_id !== undefined) || http.anonymous?.user_id !== undefined) return [];
  const message = 'no session has a user id (http.oauth, http.tokens[].user_id, session.user_id): every call, read and prompt of a per-user upstream is refused';
  return [{ check: 'per-user', level: 'warn', file: loaded.file, key: 'http', message }];
}

/**
 * The per-user findings, or none when no upstream is per-user.
 * @param reports doctor's upstream reports (their catalog connection's state).
 */
export async function perUserFindings(loaded: LoadedConfig, reports: UpstreamReport[], store: Pick<Store, 'oauth'> | undefined): Promise<Finding[]> {
  const names = Object.entries(loaded.config.upstreams)
    .filter(([, cfg]) => isPerUser(cfg))
    .map(([name]) => name);
  if (names.length === 0) return [];
  const findings = await Promise.all(names.map((name) => upstreamFinding(name, reports.find((r) => r.name === name), store)));
  try {
    checkPerUser(loaded);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    findings.push({ check: 'per-user', level: 'error', file: err.file, key: err.keyPath, message: err.expectation });
  }
  return [...findings, ...linkFindings(loaded), ...userIdFinding(loaded)];
}
