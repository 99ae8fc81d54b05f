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
import { auth } from '@modelcontextprotocol/client';
import type { LoadedConfig } from '../../config/load.js';
import type { RemoteUpstreamConfig } from '../../config/schema.js';
import { openConfiguredStore } from '../../config/store.js';
import type { Store } from '../../store/types.js';
import { connectUpstream } from '../connect.js';
import { listAllTools } from '../pool.js';
import { isPerUser, providerFor } from './index.js';
import { startLoopback } from './loopback.js';
import { NeedsAuthorizationError } from './errors.js';
import type { StoreOAuthProvider } from './provider.js';

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
      for (const u of users) opts.out(`${u.subject}\tsince ${new Date(u.updatedAt).toISOString()}`);
      opts.out(`${users.length} users hold their own authorization of "${name}"`);
      return 0;
    }
    if (opts.logout) {
      const whose = opts.user === undefined ? '' : ` for user "${opts.user}"`;
      const had = await store.oauth.clear(name!, opts.user ?? '');
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
 * The provider as a step-up authorization sees it: without tokens, so the SDK's auth()
 * asks the user for consent instead of refreshing (a refresh keeps the old scope). The
 * stored tokens stay, and keep serving a running gateway, until the new ones replace them.
 */
function withoutTokens(provider: StoreOAuthProvider): StoreOAuthProvider {
  return new Proxy(provider, { get: (target, key) => (key === 'tokens' ? () => undefined : Reflect.get(target, key, target)) });
}

/**
 * The authorization-code flow through the SDK: connect; on a challenge the SDK discovers,
 * registers and builds the authorization URL, which the user visits; the code comes back
 * to the loopback listener and the SDK exchanges it. A step-up a tool asked for (the
 * store's pending scope, stepUp.ts) is asked for with the granted scopes. Repeats for a
 * server that asks for more scope, at most MAX_AUTHORIZATIONS times.
 */
async function consent(name: string, cfg: RemoteUpstreamConfig, loaded: LoadedConfig, store: Store, opts: AuthCommandOptions): Promise<number> {
  const oauth = 'oauth' in cfg.auth! ? cfg.auth.oauth : undefined;
  const loopback = await startLoopback(oauth?.redirect_port ?? 0);
  let shown: URL | undefined;
  let authorizations = 0;
  const provider = providerFor(name, cfg, store, {
    redirectUrl: loopback.redirectUrl,
    onAuthorizationUrl: (url) => {
      shown = url;
      // Past the limit the URL is not offered: the run gives up instead.
      if (authorizations === MAX_AUTHORIZATIONS) return;
      opts.out(`Open this URL to authorize "${name}" (waiting for the redirect on ${loopback.redirectUrl}):`);
      opts.out(url.href);
      openBrowser(url);
    },
  }) as StoreOAuthProvider;
  await provider.forgetOtherRegistration();
  try {
    for (; ; authorizations++) {
      shown = undefined;
      const pending = await provider.pendingScope();
      let failure: unknown;
      if (pending) {
        // A step-up: the stored tokens are short of this scope (the granted ones and the new), so ask for it afresh.
        await auth(withoutTokens(provider), { serverUrl: cfg.url, scope: pending });
      } else {
        try {
          return await verify(name, cfg, loaded, provider);
        } catch (err) {
          failure = err;
        }
      }
      // A step-up met while verifying (a refresh first, then 403 insufficient_scope): its scope is pending now.
      const steppedUp = failure instanceof NeedsAuthorizationError && failure.reason === 'step_up' && (await provider.pendingScope()) !== undefined;
      if (!shown && (pending || steppedUp) && authorizations < MAX_AUTHORIZATIONS) continue;
      if (!shown) throw failure ?? new Error(`upstream "${name}" asked for no authorization`);
      if (authorizations === MAX_AUTHORIZATIONS) {
        throw new Error(`upstream "${name}" still refuses after ${MAX_AUTHORIZATIONS} authorizations in a row; giving up (last: ${(failure as Error | undefined)?.message ?? 'a new authorization was asked for'})`);
      }
      const { code, iss } = await loopback.next(provider.lastState, opts.waitMs ?? WAIT_MS);
      await auth(provider, { serverUrl: cfg.url, authorizationCode: code, iss });
    }
  } finally {
    await loopback.close();
  }
}
