import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { hostGuard, isLoopback } from '../../src/host/hostGuard.js';

const req = (host: string | undefined, origin?: string) => ({ headers: { host, origin } }) as unknown as IncomingMessage;

describe('hostGuard (DNS-rebinding protection)', () => {
  const local = hostGuard({ bindHost: '127.0.0.1' });

  it('serves the localhost names and the bound address, with any port', () => {
    for (const host of ['localhost:8080', '127.0.0.1:3000', '[::1]:3000', 'LOCALHOST', '127.0.0.1']) expect(local(req(host)), host).toBeUndefined();
  });

  it('refuses a rebound domain, a missing Host and garbage, saying which key to set', () => {
    expect(local(req('evil.example.com:3000'))).toMatch(/^Host "evil.example.com:3000" is not allowed .*allowed: localhost, 127.0.0.1, \[::1\].*http.allowed_hosts/);
    expect(local(req(undefined))).toMatch(/Host "" is not allowed/);
    expect(local(req('a b'))).toMatch(/is not allowed/);
    // Another loopback address is not a name the face was bound to.
    expect(local(req('127.0.0.2:3000'))).toMatch(/is not allowed/);
  });

  it('checks Origin only when sent: its hostname must be an allowed host; "null" is refused', () => {
    expect(local(req('localhost:3000', 'http://localhost:3000'))).toBeUndefined();
    expect(local(req('localhost:3000', 'https://127.0.0.1'))).toBeUndefined();
    expect(local(req('localhost:3000', 'http://evil.example.com'))).toMatch(/^Origin "http:\/\/evil.example.com" is not allowed.*http.allowed_origins/);
    expect(local(req('localhost:3000', 'null'))).toMatch(/Origin "null" is not allowed/);
  });

  it('binds to a specific address: that address joins the defaults; 0.0.0.0 adds nothing', () => {
    expect(hostGuard({ bindHost: '10.1.2.3' })(req('10.1.2.3:3000'))).toBeUndefined();
    expect(hostGuard({ bindHost: '::1' })(req('[::1]:3000'))).toBeUndefined();
    expect(hostGuard({ bindHost: '0.0.0.0' })(req('0.0.0.0:3000'))).toMatch(/is not allowed/);
  });

  it('allowed_hosts replaces the defaults; allowed_origins is an exact list of origins', () => {
    const guard = hostGuard({ bindHost: '0.0.0.0', allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] });
    expect(guard(req('mcp.example.com'))).toBeUndefined();
    expect(guard(req('localhost:3000'))).toMatch(/allowed: mcp.example.com\./);
    expect(guard(req('mcp.example.com', 'https://app.example.com'))).toBeUndefined();
    expect(guard(req('mcp.example.com', 'https://app.example.com:8443'))).toMatch(/Origin/);
    expect(guard(req('mcp.example.com', 'https://mcp.example.com'))).toMatch(/Origin/);
  });

  it('isLoopback knows 127.0.0.0/8, ::1 and localhost only', () => {
    expect(['127.0.0.1', '127.9.9.9', '::1', '[::1]', 'localhost', 'LocalHost'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '128.0.0.1'].some(isLoopback)).toBe(false);
  });
});
