/**
 * Approvers sign in to the approvals page with the organisation's identity provider
 * (`confirmation.approvers`, beside `http.oauth`): the page sends a visitor without a
 * session to the provider (authorization code + PKCE as the page's own client,
 * hostAuth/browser.ts), checks the token it gets back exactly as a host's token and that
 * it was issued to the page's client, and opens a session only for a person an approvers
 * rule matches (else 403).
 *
 * The session is the page's own: an HttpOnly, SameSite=Lax cookie holding a random id
 * (the store keeps its SHA-256), for `approvers_session_minutes`, at most MAX_SESSIONS
 * at once (the oldest go first). No bearer token opens one, so the host's access token —
 * which the agent holds, from the same provider, for the same audience — never approves
 * anything, even for a user in the approvers' group. The sign-in's redirect is accepted
 * only in the browser that started it (a second cookie), so nobody can plant their own
 * sign-in in an approver's browser.
 *
 * Sign-ins in progress and sessions are kept in the store (`oauth_flows`, as the consent
 * page's steps), so in a fleet any replica answers any request of the page: a sign-in may
 * come back to another replica than the one that started it, and a session opened on one
 * is known to all.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApproverRule } from '../config/schema.js';
import type { SignedApprover } from '../guards/approver.js';
import { callerText, isOwnCall, type Statement } from '../guards/statement.js';
import { log } from '../log.js';
import type { OAuthPart } from '../store/types.js';
import { cookieValue, escapeHtml, page, send } from './approvalsPage.js';
import type { BrowserSignIn } from './hostAuth/browser.js';
import { approverClaims, matchApprover, seenClaims, type Claims } from './hostAuth/rules.js';
import { sameSecret } from './secret.js';

/** Approver sessions kept at once; past it the oldest ends (its approver signs in again). */
export const MAX_SESSIONS = 1000;
/** Sign-ins in progress kept at once (each for at most SIGN_IN_MS). */
const MAX_SIGN_INS = 1000;
const SIGN_IN_MS = 10 * 60_000;
const SESSION_COOKIE = 'tc_approver';
const BINDING_COOKIE = 'tc_approver_signin';
export const CALLBACK_PATH = '/approvals/signin/callback';
export const SIGN_OUT_PATH = '/approvals/signout';
/** The `upstream` of the page's rows in the store's flows: no upstream name has a colon. */
const FLOWS_OF = 'tool-curator:approvals';
const SIGN_IN = 'sign-in';
const SESSION = 'session';

/** A person signed in on the approvals page, whom an approvers rule matched. */
export interface Approver {
  /** `http.oauth.user_claim` of their sign-in: what their decisions are signed and recorded with. */
  userId: string;
  claims: Claims;
  /** This session's CSRF field. */
  csrf: string;
}

export interface ApproverSignInOptions {
  signIn: BrowserSignIn;
  /** `confirmation.approvers` in force, read at each sign-in and decision (a reload may change them). */
  rules: () => ApproverRule[];
  /** `confirmation.approvers_may_approve_own_calls` in force. */
  mayApproveOwn: () => boolean;
  /** `http.oauth.issuer`, whose user ids approvers' ids are. */
  issuer: string;
  /** Where browsers reach the gateway, without a trailing slash: `https://mcp.example.com`. */
  base: string;
  /** `confirmation.approvers_session_minutes`. */
  sessionMinutes: number;
  /** Where sign-ins in progress and sessions are kept, shared by the replicas of a fleet. */
  flows: Pick<OAuthPart, 'putFlow' | 'takeFlow' | 'readFlow'>;
  /** Sessions kept at once. Default MAX_SESSIONS. */
  maxSessions?: number;
  now?: () => number;
}

const newId = () => randomBytes(24).toString('base64url');
const digest = (s: string) => createHash('sha256').update(s).digest('base64url');

interface SignInStep {
  verifier: string;
  /** SHA-256 of the browser's binding cookie. */
  browser: string;
}

interface Session {
  approver: Approver;
  until: number;
}

export class ApproverSessions {
  private readonly now: () => number;
  private readonly secure: string;

  constructor(private readonly opts: ApproverSignInOptions) {
    this.now = opts.now ?? Date.now;
    this.secure = opts.base.startsWith('https:') ? '; Secure' : '';
  }

  /** Puts one of the page's rows (`kind`, under `key`) until `until`, at most `keep` of that kind. */
  private put(kind: string, key: string, data: SignInStep | Session, until: number, keep: number): Promise<void> {
    return this.opts.flows.putFlow(`${FLOWS_OF}:${kind}:${key}`, { upstream: FLOWS_OF, subject: kind, data: JSON.stringify(data) }, until, keep);
  }

  /** Reads (or with `take`, takes) one of the page's rows of `kind`; a row of another kind or owner is none. */
  private async get<T>(kind: string, key: string, take = false): Promise<T | undefined> {
    const id = `${FLOWS_OF}:${kind}:${key}`;
    const flow = take ? await this.opts.flows.takeFlow(id) : await this.opts.flows.readFlow(id);
    return flow?.upstream === FLOWS_OF && flow.subject === kind ? (JSON.parse(flow.data) as T) : undefined;
  }

  /** The approver whose session cookie `req` carries, while it lasts. */
  async current(req: IncomingMessage): Promise<Approver | undefined> {
    const id = cookieValue(req, SESSION_COOKIE);
    if (id === undefined) return undefined;
    const s = await this.get<Session>(SESSION, digest(id));
    if (!s) return undefined;
    if (s.until <= this.now()) {
      await this.get(SESSION, digest(id), true);
      return undefined;
    }
    return s.approver;
  }

  /**
   * Why `approver` may not take `decision` on request `id` of statement `s`, or undefined
   * when they may: no approvers rule matching them covers the call's persona, or it is
   * their own call (statement.ts isOwnCall: theirs signed in, or a static token's with
   * their user id) and `approvers_may_approve_own_calls` is false — denying it is always
   * allowed. The gateway asks the same again of an approval before the call runs.
   */
  refusal(approver: Approver, id: string, s: Statement, decision: 'approved' | 'denied'): string | undefined {
    if (!matchApprover(this.opts.rules(), approver.claims, s.persona)) {
      return `You (${approver.userId}) may not decide calls made as persona ${s.persona ?? '(none)'}: no rule of confirmation.approvers that matches you covers it. Nothing was decided.`;
    }
    if (decision === 'approved' && !this.opts.mayApproveOwn() && isOwnCall(s, approver.userId, this.opts.issuer)) {
      return `Request ${id} is your own call (${callerText(s)}), and another approver must approve it: the point of an approval is a second person. Nothing was decided; you may deny it.`;
    }
    return undefined;
  }

  /** `approver` as their decisions sign them: their id and the claims the rules read. */
  signed(approver: Approver): SignedApprover {
    return { id: approver.userId, claims: approverClaims(this.opts.rules(), approver.claims) };
  }

  /** A request without a session: a browser's GET of the page goes to the identity provider; anything else (a bearer token too) gets 401. */
  async signInFirst(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method === 'GET' && path === '/approvals' && req.headers.authorization === undefined) return this.start(res);
    send(
      res,
      401,
      page('Unauthorized', "<p>Approvers sign in with the identity provider in their browser: open <a href=\"/approvals\">/approvals</a>. This page accepts no bearer token (neither a host's nor <code>http.approvals_token</code>).</p>"),
    );
  }

  /** Sends the browser to the identity provider's sign-in, bound to it by a cookie. */
  private async start(res: ServerResponse): Promise<void> {
    const state = newId();
    const browser = newId();
    const { url, verifier } = await this.opts.signIn.start(`${this.opts.base}${CALLBACK_PATH}`, state);
    await this.put(SIGN_IN, state, { verifier, browser: digest(browser) }, this.now() + SIGN_IN_MS, MAX_SIGN_INS);
    res
      .writeHead(302, {
        location: url.href,
        'set-cookie': `${BINDING_COOKIE}=${browser}; Path=/approvals; HttpOnly; SameSite=Lax; Max-Age=${SIGN_IN_MS / 1000}${this.secure}`,
        'cache-control': 'no-store',
      })
      .end();
  }

  /**
   * Answers the sign-in's redirect (`/approvals/signin/callback`) and sign-out
   * (`POST /approvals/signout` with the session's CSRF field, checked by the caller) and
   * returns true; false for any other path.
   */
  route(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    if (path === CALLBACK_PATH && req.method === 'GET') {
      this.callback(req, res).catch((err: Error) => {
        log.warn({ err: err.message }, 'approver sign-in failed');
        if (!res.headersSent) refuse(res, 502, `The sign-in could not be completed: ${err.message}`);
      });
      return true;
    }
    return false;
  }

  /** Ends the session of `req`, if any, and clears its cookie. */
  async signOut(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = cookieValue(req, SESSION_COOKIE);
    if (id !== undefined) await this.get(SESSION, digest(id), true);
    send(res, 200, page('Tool Curator: approvals', '<p class="msg" id="message">Signed out. <a href="/approvals">Sign in again</a>.</p>'), {
      'set-cookie': `${SESSION_COOKIE}=; Path=/approvals; HttpOnly; SameSite=Lax; Max-Age=0${this.secure}`,
    });
  }

  private async callback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const state = url.searchParams.get('state') ?? '';
    // Taken once, by whichever replica the browser comes back to; the store drops it once expired.
    const step = state === '' ? undefined : await this.get<SignInStep>(SIGN_IN, state, true);
    if (!step) return refuse(res, 410, 'This sign-in has expired or was used already. Open /approvals again.');
    const browser = cookieValue(req, BINDING_COOKIE);
    if (browser === undefined || !sameSecret(digest(browser), step.browser)) {
      log.warn('an approvals sign-in came back to another browser than the one that started it; no session opened');
      return refuse(res, 403, 'This sign-in was started in another browser. Open /approvals in yours.');
    }
    const code = url.searchParams.get('code');
    if (!code) return refuse(res, 400, `The sign-in was refused: ${url.searchParams.get('error_description') ?? url.searchParams.get('error') ?? 'no code'}.`);
    let person;
    try {
      person = await this.opts.signIn.finish(`${this.opts.base}${CALLBACK_PATH}`, code, step.verifier, url.searchParams.get('iss') ?? undefined);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'approvals sign-in refused');
      return refuse(res, 403, `The sign-in was refused: ${(err as Error).message}. Nothing can be decided.`);
    }
    const rules = this.opts.rules();
    const rule = matchApprover(rules, person.claims);
    if (!rule) {
      const seen = seenClaims(rules, person.claims);
      log.warn({ user: person.userId, seen }, 'approvals sign-in refused: no confirmation.approvers rule matches');
      return refuse(res, 403, `You signed in as ${person.userId}, who is not an approver on this gateway: no rule of confirmation.approvers matches (claims seen: ${seen}). Nothing can be decided; ask the gateway's operator if you should be an approver.`);
    }
    const id = newId();
    const minutes = this.opts.sessionMinutes;
    const until = this.now() + minutes * 60_000;
    await this.put(SESSION, digest(id), { approver: { ...person, csrf: newId() }, until }, until, this.opts.maxSessions ?? MAX_SESSIONS);
    log.info({ user: person.userId, rule }, `approver ${person.userId} signed in to the approvals page`);
    res
      .writeHead(303, {
        location: '/approvals',
        'set-cookie': [
          `${SESSION_COOKIE}=${id}; Path=/approvals; HttpOnly; SameSite=Lax; Max-Age=${Math.round(minutes * 60)}${this.secure}`,
          `${BINDING_COOKIE}=; Path=/approvals; HttpOnly; SameSite=Lax; Max-Age=0${this.secure}`,
        ],
        'cache-control': 'no-store',
      })
      .end();
  }
}

function refuse(res: ServerResponse, status: number, text: string): void {
  send(res, status, page('Tool Curator: approvals', `<p class="msg err" id="message">${escapeHtml(text)}</p>`));
}
