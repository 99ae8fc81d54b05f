/**
 * The consent page of per-user upstreams (`auth: { oauth, per_user: true }`), on the HTTP
 * face: a user's link (made by consent.ts when they first call a tool of such an upstream)
 * leads them to connect their own account. Steps, each a single-use row in the store
 * (`oauth_flows`), so any replica can take the next one:
 *
 *   GET  /oauth/consent/<link>    the link, bound to one user id; works once, expires
 *        → with `http.oauth`: the identity provider's sign-in (host/auth/browser.ts); the
 *          signed-in user must be the link's user, else nothing is attached (403)
 *        → without: a page naming the user the account will be connected for, and a button
 *   GET  /oauth/signin/callback   the sign-in's redirect
 *   POST /oauth/consent/<step>    the button
 *        → the upstream's authorization (upstream/auth/webConsent.ts), with a cookie that
 *          binds the rest of the flow to this browser
 *   GET  /oauth/callback          the upstream's redirect: the code is exchanged, the
 *                                 tokens stored for the link's user only
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError, type LoadedConfig } from '../config/load.js';
import type { RemoteUpstreamConfig } from '../config/schema.js';
import { log } from '../log.js';
import type { Store } from '../store/types.js';
import { isPerUser } from '../upstream/auth/index.js';
import { beginConsent, finishConsent } from '../upstream/auth/webConsent.js';
import { accountText, isSignedInAs } from '../gateway/accounts.js';
import { cookieValue, escapeHtml, page, send } from './kit.js';
import type { BrowserSignIn } from '../host/auth/browser.js';
import { sameSecret } from '../host/secret.js';

/** How long a step after the link may take (a sign-in, an upstream's authorization): 10 min. */
const STEP_MS = 10 * 60_000;
const COOKIE = 'tc_consent';
/**
 * Steps in progress kept per (upstream, user): a model that calls a tool over and over makes
 * a link each time; past this many the oldest stop working (the newest one always works).
 */
const MAX_FLOWS_PER_USER = 20;

type Step = { step: 'link' } | { step: 'confirm' } | { step: 'signin'; verifier: string } | { step: 'upstream'; browser: string };

export interface ConsentPageOptions {
  store: Pick<Store, 'oauth' | 'lock'>;
  /** The per-user upstreams by name. */
  upstreams: Record<string, RemoteUpstreamConfig>;
  /** Where browsers reach the gateway, without a trailing slash: `https://mcp.example.com`. */
  base: string;
  /** The identity provider's browser sign-in; required where hosts sign in with `http.oauth`. */
  signIn?: BrowserSignIn;
}

/**
 * Where hosts sign in with `http.oauth`, the consent page signs its visitor in too, so a
 * link opened by someone else attaches nothing: it needs `per_user.sign_in`.
 * @throws ConfigError naming `per_user.sign_in`.
 */
export function checkPerUser(loaded: LoadedConfig): void {
  const perUser = Object.entries(loaded.config.upstreams).filter(([, cfg]) => isPerUser(cfg));
  if (perUser.length === 0 || !loaded.config.http.oauth || loaded.config.per_user.sign_in) return;
  throw new ConfigError(
    loaded.file,
    'per_user.sign_in',
    `upstreams ${perUser.map(([n]) => `"${n}"`).join(', ')} act per user and hosts sign in with http.oauth, so the consent page must sign its visitors in too: ` +
      `set per_user.sign_in.client_id to a client of ${loaded.config.http.oauth.issuer} whose redirect URI is <public_url>/oauth/signin/callback`,
  );
}

/** The base URL of the consent page: `per_user.public_url`, else `http.oauth.resource` without its final `/mcp`, else `fallback`. */
export function consentBaseOf(loaded: LoadedConfig, fallback: string): string {
  const configured = loaded.config.per_user.public_url ?? loaded.config.http.oauth?.resource.replace(/\/mcp\/?$/, '');
  return (configured ?? fallback).replace(/\/+$/, '');
}

const newId = () => randomBytes(24).toString('base64url');
const digest = (s: string) => createHash('sha256').update(s).digest('base64url');

/**
 * A consent link for `user` to connect their own account of `upstream`.
 * @param minutes how long it works (once).
 */
export async function consentLink(store: Pick<Store, 'oauth'>, base: string, upstream: string, user: string, minutes: number): Promise<string> {
  const id = newId();
  await store.oauth.putFlow(id, { upstream, subject: user, data: JSON.stringify({ step: 'link' } satisfies Step) }, Date.now() + minutes * 60_000, MAX_FLOWS_PER_USER);
  return `${base}/oauth/consent/${id}`;
}

/** The routes above; returns false for any other path. */
export function consentPage(opts: ConsentPageOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const signInUrl = `${opts.base}/oauth/signin/callback`;
  const callbackUrl = `${opts.base}/oauth/callback`;
  const fail = (res: ServerResponse, status: number, text: string) => send(res, status, page('Tool Curator: account not connected', `<p class="msg err">${escapeHtml(text)}</p>`));
  const expired = (res: ServerResponse) => fail(res, 410, 'This link has expired or was used already. Call the tool again in your host for a new one.');

  /** Takes the flow `id` if it is at one of `steps`. */
  const take = async (id: string, ...steps: Step['step'][]) => {
    const flow = id ? await opts.store.oauth.takeFlow(id) : undefined;
    const step = flow && (JSON.parse(flow.data) as Step);
    return flow && step && steps.includes(step.step) && opts.upstreams[flow.upstream] ? { ...flow, step } : undefined;
  };

  const put = (upstream: string, user: string, step: Step, id = newId()) =>
    opts.store.oauth.putFlow(id, { upstream, subject: user, data: JSON.stringify(step) }, Date.now() + STEP_MS, MAX_FLOWS_PER_USER).then(() => id);

  /** Sends the browser to the upstream's authorization, bound to it by a cookie. */
  const toUpstream = async (res: ServerResponse, upstream: string, user: string) => {
    const consent = { upstream, cfg: opts.upstreams[upstream]!, user, redirectUrl: callbackUrl, store: opts.store };
    const started = await beginConsent(consent);
    const browser = newId();
    await put(upstream, user, { step: 'upstream', browser: digest(browser) }, started.state);
    const secure = opts.base.startsWith('https:') ? '; Secure' : '';
    res.writeHead(302, { location: started.url.href, 'set-cookie': `${COOKIE}=${browser}; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=${STEP_MS / 1000}${secure}`, 'cache-control': 'no-store' }).end();
  };

  const connected = (res: ServerResponse, upstream: string, user: string) => {
    log.info({ upstream, user }, `user "${user}" connected their own account of upstream "${upstream}"`);
    send(res, 200, page('Tool Curator: account connected', `<p class="msg" id="message">Your ${escapeHtml(upstream)} account is connected for ${escapeHtml(accountText(user))}. Return to your host: the call goes on, or call the tool again.</p>`));
  };

  const routes = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const link = /^\/oauth\/consent\/([A-Za-z0-9_-]+)$/.exec(url.pathname)?.[1];
    if (link !== undefined && req.method === 'GET') {
      const flow = await take(link, 'link');
      if (!flow) return expired(res);
      if (opts.signIn) {
        const state = newId();
        const { url: to, verifier } = await opts.signIn.start(signInUrl, state);
        await put(flow.upstream, flow.subject, { step: 'signin', verifier }, state);
        return void res.writeHead(302, { location: to.href, 'cache-control': 'no-store' }).end();
      }
      // No identity provider to ask: the person is shown whose account this connects, and confirms.
      const step = await put(flow.upstream, flow.subject, { step: 'confirm' });
      const body = `<p>Connect <b>your own</b> ${escapeHtml(flow.upstream)} account for the gateway user <b>${escapeHtml(accountText(flow.subject))}</b>?</p>
<p>Continue only if you are ${escapeHtml(accountText(flow.subject))}: whoever this user is will act with the account you sign in with.</p>
<form method="post" action="/oauth/consent/${step}"><button type="submit">Connect my ${escapeHtml(flow.upstream)} account</button></form>`;
      return send(res, 200, page(`Tool Curator: connect ${flow.upstream}`, body));
    }
    if (link !== undefined && req.method === 'POST') {
      const flow = await take(link, 'confirm');
      if (!flow) return expired(res);
      return toUpstream(res, flow.upstream, flow.subject);
    }
    if (url.pathname === '/oauth/signin/callback' && req.method === 'GET' && opts.signIn) {
      const flow = await take(url.searchParams.get('state') ?? '', 'signin');
      const code = url.searchParams.get('code');
      if (!flow || flow.step.step !== 'signin') return expired(res);
      if (!code) return fail(res, 400, `The sign-in was refused: ${url.searchParams.get('error_description') ?? url.searchParams.get('error') ?? 'no code'}.`);
      const { userId: user, claims } = await opts.signIn.finish(signInUrl, code, flow.step.verifier, url.searchParams.get('iss') ?? undefined);
      // The visitor is the link's user only as the same subject of the one identity provider, never by a user id claim (gateway/accounts.ts).
      if (!isSignedInAs(flow.subject, claims)) {
        log.warn({ upstream: flow.upstream, link_user: flow.subject, signed_in: user }, 'a consent link was opened by another user; nothing attached');
        return fail(res, 403, `This link was made for another user, and you signed in as ${user}. Nothing was connected. Ask your own host for a link: call the tool there.`);
      }
      return toUpstream(res, flow.upstream, flow.subject);
    }
    if (url.pathname === '/oauth/callback' && req.method === 'GET') {
      const flow = await take(url.searchParams.get('state') ?? '', 'upstream');
      if (!flow || flow.step.step !== 'upstream') return expired(res);
      const browser = cookieValue(req, COOKIE);
      if (browser === undefined || !sameSecret(digest(browser), flow.step.browser)) {
        log.warn({ upstream: flow.upstream, user: flow.subject }, 'an upstream authorization came back to another browser than the one that started it; nothing attached');
        return fail(res, 403, 'This authorization was started in another browser. Nothing was connected. Call the tool again in your host for a new link.');
      }
      const code = url.searchParams.get('code');
      if (!code) return fail(res, 400, `${flow.upstream} refused the authorization: ${url.searchParams.get('error_description') ?? url.searchParams.get('error') ?? 'no code'}.`);
      const upstream = { upstream: flow.upstream, cfg: opts.upstreams[flow.upstream]!, user: flow.subject, redirectUrl: callbackUrl, store: opts.store };
      await finishConsent(upstream, code, url.searchParams.get('iss') ?? undefined);
      return connected(res, flow.upstream, flow.subject);
    }
    send(res, 404, page('Not found', '<p>No such page.</p>'));
  };

  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith('/oauth/')) return false;
    routes(req, res, url).catch((err: Error) => {
      log.warn({ path: url.pathname, err: err.message }, 'consent page step failed');
      if (!res.headersSent) fail(res, 502, `The account could not be connected: ${err.message}`);
    });
    return true;
  };
}
