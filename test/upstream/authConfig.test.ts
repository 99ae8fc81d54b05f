/**
 * The `auth` key of a remote upstream: the shapes docs/AUTH.md documents parse to what
 * upstream/auth reads, and mistakes are named.
 */
import { describe, expect, it } from 'vitest';
import { remoteUpstreamSchema } from '../../src/config/schema.js';
import { authMethod } from '../../src/upstream/auth/index.js';

const parse = (auth: unknown) => remoteUpstreamSchema.safeParse({ url: 'https://mcp.example.com/mcp', auth });

describe('remote upstream auth config', () => {
  it('`auth: oauth` is the interactive flow with dynamic registration on any loopback port', () => {
    const r = parse('oauth');
    expect(r.success && r.data.auth).toEqual({ oauth: { redirect_port: 0 }, per_user: false });
    expect(r.success && authMethod(r.data)).toBe('oauth');
  });

  it('a pre-registered client keeps id, secret, scopes, metadata URL and port', () => {
    const oauth = { client_id: 'c1', client_secret: 's1', scopes: ['a', 'b'], client_metadata_url: 'https://example.org/client.json', redirect_port: 8765 };
    const r = parse({ oauth });
    expect(r.success && r.data.auth).toEqual({ oauth, per_user: false });
  });

  it('per_user marks an oauth upstream whose users each consent for their own account', () => {
    const r = parse({ oauth: {}, per_user: true });
    expect(r.success && r.data.auth).toEqual({ oauth: { redirect_port: 0 }, per_user: true });
    expect(parse({ oauth: {}, per_user: 'yes' }).success).toBe(false);
    expect(parse({ client_credentials: { client_id: 'm2m', client_secret: 'x' }, per_user: true }).success).toBe(false);
  });

  it('client_credentials takes exactly one of client_secret and private_key', () => {
    const ok = parse({ client_credentials: { client_id: 'm2m', client_secret: 'x' } });
    expect(ok.success && ok.data.auth).toEqual({ client_credentials: { client_id: 'm2m', client_secret: 'x', algorithm: 'ES256' } });
    expect(ok.success && authMethod(ok.data)).toBe('client_credentials');
    const neither = parse({ client_credentials: { client_id: 'm2m' } });
    expect(neither.success).toBe(false);
    expect(JSON.stringify(neither.error?.issues)).toContain('client_credentials needs exactly one of client_secret or private_key');
    expect(parse({ client_credentials: { client_id: 'm2m', client_secret: 'x', private_key: 'pem' } }).success).toBe(false);
  });

  it('rejects unknown keys and malformed values instead of ignoring them', () => {
    expect(parse({ oauth: { client_idd: 'typo' } }).success).toBe(false);
    expect(parse({ oauth: { redirect_port: 70000 } }).success).toBe(false);
    expect(parse('basic').success).toBe(false);
  });

  it('an upstream without auth is `headers` or `none`', () => {
    expect(authMethod(remoteUpstreamSchema.parse({ url: 'https://x.example/mcp', headers: { Authorization: 'Bearer t' } }))).toBe('headers');
    expect(authMethod(remoteUpstreamSchema.parse({ url: 'https://x.example/mcp' }))).toBe('none');
  });
});
