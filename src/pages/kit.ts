/**
 * The small toolkit the gateway's browser pages share (approvals, approver sign-in,
 * consent, definitions): HTML escaping and the page frame, responses with the pages'
 * security headers (no caching, a strict content security policy, no framing), cookies,
 * and values derived from a page's secret (CSRF fields, cookie values).
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A value derived from `secret` for one `purpose` (a cookie value, a CSRF field): never the secret itself. */
export function derive(secret: string, purpose: string): string {
  return createHmac('sha256', secret).update(purpose).digest('base64url');
}

/** `s` safe inside HTML text and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The value of cookie `name` in the request, if sent. */
export function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Headers every page response carries: not cached, no scripts, no framing, no sniffing. */
export const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on the page's own form posts.
  'referrer-policy': 'same-origin',
};

/** Answers with an HTML page and the security headers. */
export function send(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS, ...headers }).end(html);
}

/** A whole HTML document: `title` escaped, `body` as given (already escaped by the caller). */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.4em .6em;text-align:left;vertical-align:top}
pre{margin:0;white-space:pre-wrap}.msg{padding:.5em;background:#eef}.err{background:#fee}form{display:inline}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}
