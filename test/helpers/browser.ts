/**
 * A browser for tests of the gateway's pages: cookies per origin (a cookie set empty is
 * dropped), redirects left to the test (each hop is asserted or followed by hand), forms
 * posted as a page's own would be (same-origin `Origin`).
 */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();
  constructor(cookies: Record<string, Record<string, string>> = {}) {
    for (const [origin, pairs] of Object.entries(cookies)) this.jar.set(origin, new Map(Object.entries(pairs)));
  }

  /** The cookies this browser holds for `origin`. */
  cookies(origin: string): Map<string, string> {
    return this.jar.get(origin) ?? new Map<string, string>();
  }

  async get(url: string, method = 'GET'): Promise<Response> {
    return this.send(url, { method });
  }

  /** Posts `form` (url-encoded) as a form of the page at `url`'s origin. */
  async post(url: string, form: Record<string, string>): Promise<Response> {
    return this.send(url, { method: 'POST', body: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin } });
  }

  private async send(url: string, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<Response> {
    const origin = new URL(url).origin;
    const cookies = this.cookies(origin);
    const r = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of r.headers.getSetCookie()) {
      const pair = c.split(';')[0]!;
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    this.jar.set(origin, cookies);
    return r;
  }
}
