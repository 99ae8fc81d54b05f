/**
 * DNS-rebinding protection for the HTTP face: the `Host` header, and the `Origin` header
 * when a browser sends one, must name a host the gateway is meant to be reached by.
 * A web page whose domain an attacker has re-pointed at 127.0.0.1 sends its own domain
 * in both headers, so it is refused with HTTP 403 before any token or MCP processing.
 *
 * Same rule as the SDK's `hostHeaderValidation` (hostnames compared without port; IPv6
 * in brackets), which is Express middleware and so cannot wrap a plain `node:http`
 * handler; this module adds the Origin check the MCP transport spec asks for.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Names of the local machine a host on the same machine may use. */
export const LOCAL_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** A bind address in the form URL hostnames take (IPv6 in brackets, lower case). */
function asHostname(address: string): string {
  const a = address.toLowerCase();
  return isIP(a) === 6 ? `[${a}]` : a;
}

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, '');
  return a === 'localhost' || a === '::1' || (isIP(a) === 4 && a.startsWith('127.')) || a === '::ffff:127.0.0.1';
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

export interface HostGuardOptions {
  /** The address the face binds. */
  bindHost: string;
  /** `http.allowed_hosts`: hostnames without port. Default: the bound address and LOCAL_HOSTNAMES. */
  allowedHosts?: string[];
  /** `http.allowed_origins`: exact origins (`https://app.example.com`). Default: any origin whose hostname is an allowed host. */
  allowedOrigins?: string[];
}

/**
 * Builds the check for one face.
 * @returns a function giving, for a request, the reason to refuse it, or `undefined` to serve it.
 *
 * ### Usage
 * ```ts
 * const refuse = hostGuard({ bindHost: '127.0.0.1' });
 * refuse(req); // 'Host "evil.example.com" is not allowed …' for a rebinding attempt
 * ```
 */
export function hostGuard(opts: HostGuardOptions): (req: IncomingMessage) => string | undefined {
  const wildcard = opts.bindHost === '0.0.0.0' || opts.bindHost === '::';
  const hosts = new Set((opts.allowedHosts ?? [...LOCAL_HOSTNAMES, ...(wildcard ? [] : [opts.bindHost])]).map(asHostname));
  const origins = opts.allowedOrigins && new Set(opts.allowedOrigins.map((o) => new URL(o).origin));
  return (req) => {
    const host = req.headers.host ?? '';
    const hostname = hostnameOf(`http://${host}`);
    if (!hostname || !hosts.has(hostname)) {
      return `Host "${host}" is not allowed (DNS-rebinding protection); allowed: ${[...hosts].join(', ')}. Add the name hosts use to http.allowed_hosts`;
    }
    const origin = req.headers.origin;
    if (origin === undefined) return undefined;
    const originHost = hostnameOf(origin); // undefined for the opaque origin "null"
    const ok = originHost !== undefined && (origins ? origins.has(new URL(origin).origin) : hosts.has(originHost));
    return ok ? undefined : `Origin "${origin}" is not allowed (DNS-rebinding protection). Add it to http.allowed_origins`;
  };
}
