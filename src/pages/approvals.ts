/**
 * The approvals web page (HTTP mode, `/approvals`): a person lists pending calls of
 * action tools and approves or denies them, each decision signed over the call's statement
 * shown (statement.ts), and reviews and accepts tool definitions their upstreams changed
 * (definitionsPage.ts). It is protected by `http.approvals_token`,
 * which is not a host's token: the model's side never holds it.
 *
 * Authentication: open `/approvals?token=T` once; the page answers with a cookie
 * (HttpOnly, SameSite=Strict, derived from T, not T itself) and redirects to the bare URL
 * so the token leaves the address bar. Scripts may send `Authorization: Bearer T` instead.
 * Approve and deny are POSTs that must carry a CSRF field derived from the token and,
 * when the browser sends one, a same-origin `Origin`.
 *
 * With `confirmation.approvers` (beside `http.oauth`) the page takes no token at all: a
 * person signs in with the identity provider in their browser (approverSignIn.ts), an
 * approvers rule must cover the call's persona, they may not approve their own call
 * unless configured, and each decision is signed (still with the token, which only the
 * gateway holds) over the statement and their user id, recorded as `web:<user id>`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { approverDecider, webProof } from '../guards/approver.js';
import { callerText, review, statementDigest } from '../guards/statement.js';
import { log } from '../log.js';
import { ApprovalError, StoreUnavailableError } from '../store/errors.js';
import { asStored, type StandingOf } from '../guards/standing.js';
import type { Approval, ApprovalStatus, ApprovalsPart } from '../store/types.js';
import { SIGN_OUT_PATH, type Approver, type ApproverSessions } from './approverSignIn.js';
import { acceptDefinition, ACCEPT_PATH, definitionsSection, type DefinitionStores } from './definitions.js';
import { cookieValue, derive, escapeHtml, page, SECURITY_HEADERS, send } from './kit.js';
import { sameSecret } from '../host/secret.js';

const COOKIE = 'tool_curator_approvals';
const BODY_MAX = 8 * 1024;
const RECENT = 20;
const DONE_TEXT: Partial<Record<ApprovalStatus, string>> = { approved: 'Approved', used: 'Approved', denied: 'Denied' };

function minutes(ms: number): string {
  return `${Math.max(0, Math.ceil(ms / 60_000))} min`;
}

/** The tool, and the name the model asked for when the name guard corrected it. */
function toolCell(a: Approval): string {
  return a.requestedName ? `${escapeHtml(a.tool)}<br><small class="asked">the model asked for ${escapeHtml(a.requestedName)}</small>` : escapeHtml(a.tool);
}

function who(a: Approval): string {
  const s = review(a).statement;
  return escapeHtml(s ? callerText(s) : [a.persona, a.userId].filter(Boolean).join(' ') || `session ${a.sessionId}`);
}

/** The upstream and its own tool name, and the definition digest, as the statement names them. */
function statementCell(a: Approval): string {
  const { statement: s, problem } = review(a);
  if (!s || problem) return `<span class="err">not approvable: ${escapeHtml(problem ?? '')}</span>`;
  return `${escapeHtml(s.upstream)}, its tool ${escapeHtml(s.upstreamTool)}<br><small>definition ${escapeHtml(s.definition.slice(0, 23))}…</small>`;
}

function pendingTable(list: Approval[], now: number, csrf: string): string {
  if (list.length === 0) return '<p id="none">No calls await approval.</p>';
  const rows = list.map((a) => {
    const id = escapeHtml(a.id);
    // The form names the statement shown: a request changed in the store meanwhile is not decided.
    const bound = a.statement ? escapeHtml(statementDigest(a.statement)) : '';
    const button = (verb: 'approve' | 'deny', label: string) =>
      `<form method="post" action="/approvals/${id}/${verb}"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="statement" value="${bound}"><button type="submit" name="decision" value="${verb}">${label}</button></form>`;
    return `<tr data-id="${id}"><td>${id}</td><td>${toolCell(a)}</td><td>${statementCell(a)}</td><td>${who(a)}</td>
<td><pre>${escapeHtml(JSON.stringify(a.args, null, 2))}</pre></td><td>${minutes(a.expiresAt - now)}</td>
<td>${review(a).problem ? button('deny', 'Deny') : `${button('approve', 'Approve')} ${button('deny', 'Deny')}`}</td></tr>`;
  });
  return `<table id="pending"><tr><th>ID</th><th>Tool</th><th>Upstream</th><th>Caller</th><th>Arguments</th><th>Expires in</th><th></th></tr>${rows.join('')}</table>`;
}

async function recentTable(list: Approval[], standing: StandingOf): Promise<string> {
  const decided = list.filter((a) => a.status !== 'pending').slice(0, RECENT);
  if (decided.length === 0) return '';
  const rows = await Promise.all(decided.map(async (a) => {
    const { status, voided } = await standing(a);
    const why = voided === undefined ? '' : `<br><small class="voided">${escapeHtml(voided)}</small>`;
    return `<tr data-id="${escapeHtml(a.id)}"><td>${escapeHtml(a.id)}</td><td>${escapeHtml(a.tool)}</td><td>${who(a)}</td><td class="status">${status}${why}</td><td>${escapeHtml(a.decidedBy ?? '')}</td></tr>`;
  }));
  return `<h2>Recent</h2><table id="recent"><tr><th>ID</th><th>Tool</th><th>Caller</th><th>Status</th><th>By</th></tr>${rows.join('')}</table>`;
}

/** An error answered as a page: 503 when the store is unavailable, else `status`. */
function failed(res: ServerResponse, err: Error, status: number): void {
  log.error({ err: err.message }, 'approvals page failed');
  if (res.headersSent) return;
  const unavailable = err instanceof StoreUnavailableError;
  send(res, unavailable ? 503 : status, page(unavailable ? 'Unavailable' : 'Bad request', `<p>${escapeHtml(err.message)}</p>`));
}

/** How a request was let in: the token's cookie or header, or a signed-in approver's session; and the CSRF field its forms carry. */
interface Via {
  kind: 'cookie' | 'header';
  csrf: string;
  approver?: Approver;
}

/** A decision the signed-in approver may not take (answered 403). */
class NotYours extends Error {}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > BODY_MAX) throw new Error('form too large');
    chunks.push(c as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/**
 * A node:http handler for `/approvals` and below; returns false (and does nothing) for
 * any other path, so the HTTP face can try its own routes.
 *
 * ### Usage
 * ```ts
 * const approvals = approvalsPage(store, config.http.approvals_token);
 * createServer((req, res) => { if (!approvals(req, res)) mcp(req, res); });
 * ```
 * @param standing shows an approval the gateway would no longer honour as voided, with why (guards/standing.ts); default: as stored.
 */
export function approvalsPage(
  store: ApprovalsPart,
  token: string,
  definitions?: DefinitionStores,
  approvers?: ApproverSessions,
  standing: StandingOf = asStored,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const session = derive(token, 'approvals-session');
  const csrf = derive(token, 'approvals-csrf');

  const authenticated = async (req: IncomingMessage): Promise<Via | undefined> => {
    if (approvers) {
      const approver = await approvers.current(req);
      return approver && { kind: 'cookie', csrf: approver.csrf, approver };
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined && sameSecret(bearer, token)) return { kind: 'header', csrf };
    const c = cookieValue(req, COOKIE);
    return c !== undefined && sameSecret(c, session) ? { kind: 'cookie', csrf } : undefined;
  };

  const render = async (res: ServerResponse, status: number, via: Via, message?: { text: string; error?: boolean }): Promise<void> => {
    const now = store.clock();
    const note = message ? `<p class="msg${message.error ? ' err' : ''}" id="message">${escapeHtml(message.text)}</p>` : '';
    const [pending, recent] = [await store.list(), await store.list({ all: true, limit: 50 })];
    const changed = definitions ? await definitionsSection(definitions, via.csrf, escapeHtml) : '';
    const who = via.approver
      ? `<div id="approver">Signed in as ${escapeHtml(via.approver.userId)}. <form method="post" action="${SIGN_OUT_PATH}"><input type="hidden" name="csrf" value="${via.approver.csrf}"><button type="submit">Sign out</button></form></div>`
      : '';
    const body = `${who}${note}${pendingTable(pending, now, via.csrf)}${changed}${await recentTable(recent, standing)}<p><a href="/approvals">Refresh</a></p>`;
    send(res, status, page('Tool Curator: calls awaiting approval', body));
  };

  /** The form of a POST that passed the origin and CSRF checks; undefined when refused (answered 403). */
  const checkedForm = async (req: IncomingMessage, res: ServerResponse, via: Via): Promise<URLSearchParams | undefined> => {
    const form = await readForm(req);
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host}` && origin !== `https://${req.headers.host}`) {
      send(res, 403, page('Forbidden', '<p>Cross-origin request refused.</p>'));
      return undefined;
    }
    if (via.kind === 'cookie' && !sameSecret(form.get('csrf') ?? '', via.csrf)) {
      send(res, 403, page('Forbidden', '<p>Missing or wrong CSRF field; reload the page and try again.</p>'));
      return undefined;
    }
    return form;
  };

  const accept = async (req: IncomingMessage, res: ServerResponse, via: Via) => {
    const form = await checkedForm(req, res, via);
    if (!form || !definitions) return;
    try {
      await render(res, 200, via, { text: await acceptDefinition(definitions, token, form, via.approver && approvers?.signed(via.approver)) });
    } catch (err) {
      if (!(err instanceof ApprovalError)) throw err;
      await render(res, 409, via, { text: err.message, error: true });
    }
  };

  const decide = async (req: IncomingMessage, res: ServerResponse, id: string, verb: 'approve' | 'deny', via: Via) => {
    const form = await checkedForm(req, res, via);
    if (!form) return;
    try {
      const decision = verb === 'approve' ? 'approved' : 'denied';
      const request = await store.get(id);
      if (!request) throw new ApprovalError(`no approval request with id ${id}`);
      const { statement: s, problem } = review(request);
      if (!s || (problem && decision === 'approved')) throw new ApprovalError(`approval request ${id} cannot be approved: ${problem}`);
      // A script (Bearer) may leave the field out; the page's own forms always carry it.
      const bound = form.get('statement');
      if ((via.kind === 'cookie' || bound !== null) && bound !== statementDigest(request.statement!)) {
        throw new ApprovalError(`approval request ${id} changed since this page showed it; nothing was decided. Review it again.`);
      }
      const approver = via.approver;
      const refused = approver && approvers?.refusal(approver, id, s, decision);
      if (refused) throw new NotYours(refused);
      const proof = webProof(token, { id, statement: request.statement! }, decision, store.clock() + s.validForMs, approver && approvers?.signed(approver));
      const a = await store.decide(id, decision, approver ? approverDecider(approver.userId) : 'web', proof);
      log.info({ id: a.id, tool: a.tool, decision: a.status, ...(approver && { approver: approver.userId }) }, 'approval decided on the web page');
      res.writeHead(303, { location: `/approvals?done=${encodeURIComponent(a.id)}`, ...SECURITY_HEADERS }).end();
    } catch (err) {
      if (err instanceof NotYours) {
        log.warn({ id, approver: via.approver?.userId, reason: err.message }, 'approval decision refused');
        return render(res, 403, via, { text: err.message, error: true });
      }
      if (!(err instanceof ApprovalError)) throw err;
      await render(res, 409, via, { text: err.message, error: true });
    }
  };

  /** Answers a request of the page other than a sign-in's steps, `via` how it was let in (none: not signed in). */
  const serve = (req: IncomingMessage, res: ServerResponse, url: URL, via: Via | undefined): void => {
    if (!via && approvers) {
      approvers.signInFirst(req, res, url.pathname).catch((err: Error) => failed(res, err, 502));
      return;
    }
    if (!via) {
      send(res, 401, page('Unauthorized', '<p>Open this page as <code>/approvals?token=…</code> with the gateway\'s <code>http.approvals_token</code>.</p>'), {
        'www-authenticate': 'Bearer',
      });
      return;
    }

    if (req.method === 'POST' && url.pathname === SIGN_OUT_PATH && approvers) {
      checkedForm(req, res, via)
        .then((form) => form && approvers.signOut(req, res))
        .catch((err: Error) => failed(res, err, 400));
      return;
    }
    if (req.method === 'POST' && url.pathname === ACCEPT_PATH && definitions) {
      accept(req, res, via).catch((err: Error) => failed(res, err, 400));
      return;
    }
    const action = /^\/approvals\/([a-z0-9]+)\/(approve|deny)$/.exec(url.pathname);
    if (req.method === 'POST' && action) {
      decide(req, res, action[1]!, action[2] as 'approve' | 'deny', via).catch((err: Error) => failed(res, err, 400));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/approvals') {
      const show = async () => {
        const done = await store.get(url.searchParams.get('done') ?? '');
        const verb = done && DONE_TEXT[done.status];
        await render(res, 200, via, done && verb ? { text: `${verb} ${done.id} (${done.tool}).` } : undefined);
      };
      show().catch((err: Error) => failed(res, err, 503));
      return;
    }
    send(res, 404, page('Not found', '<p>See <a href="/approvals">/approvals</a>.</p>'));
  };

  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/approvals' && !url.pathname.startsWith('/approvals/')) return false;

    if (approvers?.route(req, res, url.pathname)) return true;
    const query = url.searchParams.get('token');
    if (!approvers && req.method === 'GET' && url.pathname === '/approvals' && query !== null) {
      if (!sameSecret(query, token)) {
        send(res, 401, page('Unauthorized', '<p>Wrong token.</p>'));
        return true;
      }
      res
        .writeHead(303, {
          location: '/approvals',
          'set-cookie': `${COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/approvals`,
          ...SECURITY_HEADERS,
        })
        .end();
      return true;
    }

    authenticated(req)
      .then((via) => serve(req, res, url, via))
      .catch((err: Error) => failed(res, err, 500));
    return true;
  };
}
