/**
 * The credentials a configuration gives the gateway (with `${ENV}` already expanded):
 * remote upstreams' static header values and the credentials in their URLs, stdio upstreams' env values marked secret
 * (`secret_env`, or a name matching `audit.redact`), upstream OAuth client secrets and
 * private keys, host tokens, the approvals and metrics tokens, the identity provider's
 * introspection and sign-in client secrets, the embedder's API key and the store's password.
 */
import type { GatewayConfig } from '../../config/schema.js';
import { redactsField } from '../redact.js';
import { urlPassword } from './forms.js';
import type { HeldValue } from './held.js';

/**
 * Header values that describe a request rather than authorize it, so they are not held:
 * `application/json` removed from every answer would garble answers and protect nothing.
 * Every other static header value is held (an API key header has no standard name).
 */
const DESCRIPTIVE_HEADERS = new Set(['accept', 'accept-encoding', 'accept-language', 'cache-control', 'content-type', 'mcp-protocol-version', 'user-agent']);

/** A query parameter that carries a key (`key`, `apiKey`, `exaApiKey`, `subscription-key`), beside the names of `audit.redact`. */
const KEY_PARAM = /key$/i;

/** Shortest URL path segment held as a token (TOKEN_SEGMENT). */
const MIN_TOKEN_SEGMENT = 20;

/**
 * Whether a URL path segment reads as a token rather than a name: hosted MCP servers that
 * put the credential in the path (`/api/mcp/s/<token>/mcp`, `/<uuid>/gmail`, `/bot<token>/`)
 * use long runs of token characters mixing letters and digits; a name (`team-tools-2024`,
 * `github-enterprise-server`) is words and short numbers. At least MIN_TOKEN_SEGMENT
 * characters of `[A-Za-z0-9_~.+=:-]`, a letter and a digit, and not made only of parts
 * (split at `-`, `_`, `.`) that are lowercase words or numbers of at most four digits.
 */
export function tokenLikeSegment(segment: string): boolean {
  if (segment.length < MIN_TOKEN_SEGMENT || !/^[\w~.+=:-]+$/.test(segment)) return false;
  if (!/[A-Za-z]/.test(segment) || !/\d/.test(segment)) return false;
  return !segment.split(/[-_.]+/).every((part) => part === '' || /^[a-z]+$/.test(part) || /^\d{1,4}$/.test(part));
}

/**
 * The credentials written into a remote upstream's URL, as many hosted MCP servers take
 * them: the password of its user info (`https://u:pw@…`), the value of each query
 * parameter named as a credential (`?api_key=…`, `?token=…`, `?exaApiKey=…`) and each path
 * segment that reads as a token (tokenLikeSegment). An upstream (or its error page) that
 * echoes the request URL would otherwise hand them to the host.
 */
function urlCredentials(url: string, secretName: (key: string) => boolean): { value: string; label: string }[] {
  const out: { value: string; label: string }[] = [];
  const password = urlPassword(url);
  if (password) out.push({ value: password, label: 'URL password' });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return out;
  }
  for (const [key, value] of parsed.searchParams) if (value && (secretName(key) || KEY_PARAM.test(key))) out.push({ value, label: `URL parameter ${key}` });
  for (const raw of parsed.pathname.split('/')) {
    let segment = raw;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      // A malformed escape: the segment as written.
    }
    if (tokenLikeSegment(segment)) out.push({ value: segment, label: 'URL path token' });
  }
  return out;
}

/**
 * The credentials on a stdio upstream's command line, as many servers take them
 * (`--api-key ${KEY}`, `--token=${TOKEN}`): the value of each option named as a credential
 * (by `audit.redact`, or ending in `key`). A server that prints how it was started would
 * otherwise hand them to the host.
 */
function argCredentials(args: readonly string[], secretName: (key: string) => boolean): { value: string; label: string }[] {
  const out: { value: string; label: string }[] = [];
  const named = (option: string) => secretName(option) || KEY_PARAM.test(option);
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([A-Za-z][\w.-]*)(?:=(.*))?$/s.exec(args[i]!);
    if (!m || !named(m[1]!)) continue;
    const value = m[2] ?? args[i + 1];
    if (value === undefined || (m[2] === undefined && value.startsWith('-'))) continue;
    out.push({ value, label: `argument ${args[i]!.split('=')[0]}` });
    if (m[2] === undefined) i++;
  }
  return out;
}

type ConfigPart = Pick<GatewayConfig, 'upstreams' | 'http' | 'per_user' | 'confirmation' | 'audit' | 'curator' | 'store'>;

/**
 * ### Usage
 * ```ts
 * configSecrets(config);
 * // [{ value: 'Bearer 8f2c…', label: 'header Authorization of upstream crm' }, { value: '…', label: 'host token' }, …]
 * ```
 */
export function configSecrets(config: ConfigPart): HeldValue[] {
  const out: HeldValue[] = [];
  const add = (value: string | undefined, label: string) => {
    if (value) out.push({ value, label });
  };
  const secretName = redactsField(config.audit.redact);
  for (const [name, up] of Object.entries(config.upstreams)) {
    if ('command' in up) {
      const marked = new Set(up.secret_env);
      for (const [key, value] of Object.entries(up.env ?? {})) if (marked.has(key) || secretName(key)) add(value, `env ${key} of upstream ${name}`);
      for (const { value, label } of argCredentials(up.args ?? [], secretName)) add(value, `${label} of upstream ${name}`);
      continue;
    }
    for (const [key, value] of Object.entries(up.headers ?? {})) if (!DESCRIPTIVE_HEADERS.has(key.toLowerCase())) add(value, `header ${key} of upstream ${name}`);
    for (const { value, label } of urlCredentials(up.url, secretName)) add(value, `${label} of upstream ${name}`);
    const auth = up.auth;
    if (auth && 'oauth' in auth) add(auth.oauth.client_secret, `OAuth client secret of upstream ${name}`);
    if (auth && 'client_credentials' in auth) {
      add(auth.client_credentials.client_secret, `OAuth client secret of upstream ${name}`);
      add(auth.client_credentials.private_key, `OAuth client private key of upstream ${name}`);
    }
  }
  for (const t of config.http.tokens) add(t.token, 'host token');
  add(config.http.approvals_token, 'approvals token');
  add(config.http.metrics.token, 'metrics token');
  add(config.http.oauth?.introspection?.client_secret, 'introspection client secret');
  add(config.per_user.sign_in?.client_secret, 'sign-in client secret');
  add(config.confirmation.approvers_sign_in?.client_secret, 'approvers sign-in client secret');
  const embedder = config.curator.embedder;
  if (embedder.provider === 'openai') add(embedder.apiKey, 'embedder API key');
  if (/^postgres(?:ql)?:\/\//i.test(config.store)) add(urlPassword(config.store), 'store password');
  return out;
}
