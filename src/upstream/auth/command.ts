/**
 * `tool-curator auth <upstream> [--logout]`: consent once, then `serve` runs unattended.
 * Shows (and, in a terminal, opens) the authorization URL, receives the redirect on a
 * loopback port, lets the SDK exchange the code, stores the tokens and exits. `--logout`
 * deletes what the store holds for the upstream. For a per-user upstream (`auth.per_user`)
 * this consent only lists its tools; `--logout --user ID` deletes one user's own
 * authorization and `--users` lists the users who hold one (their consent goes through the
 * link their host shows them, never through this command).
 */
import { spawn } from 'node:child_process';
import { auth, computeScopeUnion } from '@modelcontextprotocol/client';
import type { LoadedConfig } from '../../config/load.js';
import type { OAuthClientConfig, RemoteUpstreamConfig } from '../../config/schema.js';
import { openConfiguredStore } from '../../config/store.js';
import { personOf, personText } from '../../store/people.js';
import type { Store } from '../../store/types.js';
import { connectUpstream } from '../connect.js';
import { listAllTools } from '../pool.js';
import { isPerUser, providerFor } from './index.js';
import { startLoopback, type Loopback } from './loopback.js';
import { NeedsAuthorizationError } from './errors.js';
import type { StoreOAuthProvider } from './provider.js';
import { StagedOAuthProvider } from './staged.js';
import { storedMoreScope } from './stepUp.js';

/** How many authorizations one run asks for before giving up (a server that keeps asking for more scope). */
export const MAX_AUTHORIZATIONS = 3;
/** How long `auth` waits for the user to finish in the browser. */
const WAIT_MS = 5 * 60_000;

export interface AuthCommandOptions {
  logout?: boolean;
  /** With `logout`: the user whose own authorization of a per-user upstream goes. */
  user?: string;
  /** Lists the users holding their own authorization of a per-user upstream. */
  users?: boolean;
  /** Where the command's output lines go (stdout in the CLI). */
  out: (line: string) => void;
  waitMs?: number;
}

/** Thrown for a command the user must correct (exit code 2). */
export class AuthUsageError extends Error {}

function remoteUpstream(loaded: LoadedConfig, name: string | undefined): RemoteUpstreamConfig & { auth: NonNullable<RemoteUpstreamConfig['auth']> } {
  const names = Object.keys(loaded.config.upstreams);
  if (!name) throw new AuthUsageError(`auth needs an upstream name: tool-curator auth <upstream> (upstreams: ${names.join(', ')})`);
  const cfg = loaded.config.upstreams[name];
  if (!cfg) throw new AuthUsageError(`${loaded.file} has no upstream "${name}" (upstreams: ${names.join(', ')})`);
  if (!('url' in cfg)) throw new AuthUsageError(`upstream "${name}" is a stdio upstream; only remote upstreams (url) authorize`);
  if (!cfg.auth) throw new AuthUsageError(`upstream "${name}" has no auth in ${loaded.file}; set auth: oauth (or client_credentials) for it first`);
  return cfg as RemoteUpstreamConfig & { auth: NonNullable<RemoteUpstreamConfig['auth']> };
}

/** Opens `url` in the user's browser when there is a terminal and an opener; never fails. */
function openBrowser(url: URL): void {
  if (!process.stdout.isTTY || process.env.TOOL_CURATOR_NO_BROWSER) return;
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? undefined : 'xdg-open';
  if (!opener) return;
  const child = spawn(opener, [url.href], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}

/** Runs the command; resolves to the exit code. */
export async function authCommand(loaded: LoadedConfig, name: string | undefined, opts: AuthCommandOptions): Promise<number> {
  const cfg = remoteUpstream(loaded, name);
  const store = await openConfiguredStore(loaded);
  try {
    if ((opts.user !== undefined || opts.users) && !isPerUser(cfg)) {
      throw new AuthUsageError(`upstream "${name}" is not per-user; --user and --users apply to upstreams with auth: { oauth: …, per_user: true }`);
    }
    if (opts.users) {
      const users = (await store.oauth.consented(name!)).filter((c) => c.subject !== '');
      for (const u of users) opts.out(`${personText(u.subject)}\tsince ${new Date(u.updatedAt).toISOString()}`);
      opts.out(`${users.length} users hold their own authorization of "${name}"`);
      return 0;
    }
    if (opts.logout) {
      const subject = opts.user === undefined ? '' : await subjectOf(store, name!, opts.user);
      const whose = opts.user === undefined ? '' : ` for user ${personText(subject)}`;
      const had = await store.oauth.clear(name!, subject);
      opts.out(
        had
          ? `removed the tokens and client registration stored for "${name}"${whose}; to withdraw the grant at the provider too, revoke "Tool Curator" in its account settings`
          : `nothing was stored for "${name}"${whose}`,
      );
      return 0;
    }
    if (opts.user !== undefined) {
      throw new AuthUsageError(`--user goes with --logout: a user consents for their own account through the link the gateway gives their host when they first call a tool of "${name}"`);
    }
    const tools = 'client_credentials' in cfg.auth ? await verify(name!, cfg, loaded, providerFor(name!, cfg, store)) : await consent(name!, cfg, loaded, store, opts);
    opts.out(`authorized "${name}": ${tools} tools`);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * The store key of the user `--user` names: a signed-in user's subject, a static token's
 * user id, or a key as stored; the store's own key when it is there.
 * @throws AuthUsageError when the name fits more than one user (a signed-in subject and a static token's id).
 */
async function subjectOf(store: Store, upstream: string, user: string): Promise<string> {
  const fits = (await store.oauth.consented(upstream)).map((c) => c.subject).filter((key) => {
    const p = personOf(key);
    return key === user || (p?.kind === 'token' ? p.userId === user : p?.subject === user);
  });
  if (fits.length > 1 && !fits.includes(user)) {
    throw new AuthUsageError(`--user ${user} fits ${fits.length} users of "${upstream}" (${fits.map(personText).join(', ')}); name one by its key as stored: ${fits.map((k) => `'${k}'`).join(' or ')}`);
  }
  return fits.length === 1 ? fits[0]! : user;
}

/** Connects with `provider` and lists the tools; returns their number. */
async function verify(name: string, cfg: RemoteUpstreamConfig, loaded: LoadedConfig, provider: Parameters<typeof connectUpstream>[4]): Promise<number> {
  const ms = cfg.startup_timeout_ms ?? loaded.config.timeouts.startup_ms;
  const conn = await connectUpstream(name, cfg, loaded.baseDir, ms, provider);
  try {
    return (await listAllTools(conn, ms).catch((err) => Promise.reject(conn.explain?.(err) ?? err))).length;
  } finally {
    await conn.client.close().catch(() => undefined);
  }
}

/**
 * The port the redirect comes back to: the configured one, else the one the stored
 * dynamic registration names (its redirect URI then still fits, and the client is kept),
 * else any free port.
 */
async function redirectPort(provider: StoreOAuthProvider): Promise<number> {
  if (provider.opts.config.redirect_port) return provider.opts.config.redirect_port;
  const registered = await provider.registeredRedirect();
  return registered && ['127.0.0.1', 'localhost'].includes(registered.hostname) ? Number(registered.port) : 0;
}

/**
 * The loopback listener for the redirect, on `redirectPort` if it is free (another
 * process may hold it), else on any free port: a new registration is then staged,
 * and replaces the stored one only if the authorization completes.
 */
async function listen(provider: StoreOAuthProvider): Promise<Loopback> {
  const port = await redirectPort(provider);
  return startLoopback(port).catch((err: unknown) => {
    if (port === 0 || provider.opts.config.redirect_port) throw err;
    return startLoopback(0);
  });
}

/**
 * The authorization-code flow through the SDK. First the stored tokens are tried as the
 * gateway would use them (refreshed under the fleet-wide lock if expired): when they
 * serve, and no step-up waits for consent, nothing changes. Else the SDK's `auth()`
 * (discovery, registration if needed, PKCE) builds the authorization URL for the union of
 * the granted, step-up and configured scopes, the user visits it, the code comes back to
 * the loopback listener and the SDK exchanges it. Everything this run writes is staged
 * (staged.ts) and stored with the new tokens, so a run that fails leaves the stored
 * client and tokens, and the gateways using them, as they were. Repeats for a server
 * that asks for more scope, at most MAX_AUTHORIZATIONS times.
 */
async function consent(name: string, cfg: RemoteUpstreamConfig, loaded: LoadedConfig, store: Store, opts: AuthCommandOptions): Promise<number> {
  const stored = providerFor(name, cfg, store) as StoreOAuthProvider;
  const loopback = await listen(stored);
  try {
    let failure: unknown;
    for (let authorizations = 0; ; authorizations++) {
      // Read before trying them: tokens the server refuses are dropped, but their scope is asked for again.
      const granted = (await stored.tokens())?.scope;
      if ((await storedMoreScope(stored)) === undefined) {
        try {
          return await verify(name, cfg, loaded, stored);
        } catch (err) {
          // Only a missing consent is this command's to give; a step-up met here is pending now.
          if (!(err instanceof NeedsAuthorizationError)) throw err;
          failure = err;
        }
      }
      if (authorizations === MAX_AUTHORIZATIONS) {
        throw new Error(`upstream "${name}" still refuses after ${MAX_AUTHORIZATIONS} authorizations in a row; giving up (last: ${(failure as Error | undefined)?.message ?? 'a new authorization was asked for'})`);
      }
      // The scope the server's challenge named (WWW-Authenticate, as the SDK put it in the URL it would have sent the user to) is asked for too: the spec's first choice, before scopes_supported.
      const challenged = failure instanceof NeedsAuthorizationError ? failure.scope : undefined;
      await authorizeOnce(name, cfg, store, loopback, computeScopeUnion(granted, challenged), opts);
    }
  } finally {
    await loopback.close();
  }
}

/** One authorization for `granted` (and challenged) and any step-up scope: the URL shown, the redirect received (its `state` the one shown), the code exchanged; the tokens stored with the client they belong to. */
async function authorizeOnce(name: string, cfg: RemoteUpstreamConfig, store: Store, loopback: Loopback, granted: string | undefined, opts: AuthCommandOptions): Promise<void> {
  let shown: URL | undefined;
  const provider = new StagedOAuthProvider({
    upstream: name,
    url: cfg.url,
    store,
    config: (cfg.auth as { oauth: OAuthClientConfig }).oauth,
    mode: 'interactive',
    redirectUrl: loopback.redirectUrl,
    onAuthorizationUrl: (url) => {
      shown = url;
      opts.out(`Open this URL to authorize "${name}" (waiting for the redirect on ${loopback.redirectUrl}):`);
      opts.out(url.href);
      openBrowser(url);
    },
  });
  await provider.forgetOtherRegistration();
  // Where the resource's metadata was found (the challenge's resource_metadata, when it named one) is kept; what it says is read anew.
  const metadataAt = (await provider.discoveryState())?.resourceMetadataUrl;
  provider.discoverAfresh();
  const scope = computeScopeUnion(granted, await provider.pendingScope(), provider.opts.config.scopes?.join(' '));
  // Never a refresh here: a refresh keeps the old scope, and the stored tokens are the gateway's to refresh.
  const result = await auth(provider, { serverUrl: cfg.url, scope, forceReauthorization: true, ...(metadataAt && URL.canParse(metadataAt) && { resourceMetadataUrl: new URL(metadataAt) }) });
  if (result !== 'REDIRECT' || !shown) throw new Error(`upstream "${name}" gave no authorization URL`);
  const { code, iss } = await loopback.next(shown.searchParams.get('state') ?? undefined, opts.waitMs ?? WAIT_MS);
  await auth(provider, { serverUrl: cfg.url, authorizationCode: code, iss });
}
