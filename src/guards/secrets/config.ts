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

/**
 * The credentials written into a remote upstream's URL, as many hosted MCP servers take
 * them: the password of its user info (`https://u:pw@…`) and the value of each query
 * parameter named as a credential (`?api_key=…`, `?token=…`, `?exaApiKey=…`). An upstream
 * (or its error page) that echoes the request URL would otherwise hand them to the host.
 */
function urlCredentials(url: string, secretName: (key: string) => boolean): { value: string; label: string }[] {
  const out: { value: string; label: string }[] = [];
  const password = urlPassword(url);
  if (password) out.push({ value: password, label: 'URL password' });
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return out;
  }
  for (const [key, value] of params) if (value && (secretName(key) || KEY_PARAM.test(key))) out.push({ value, label: `URL parameter ${key}` });
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
