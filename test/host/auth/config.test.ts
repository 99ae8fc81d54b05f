/**
 * The `http.oauth` config: what the schema refuses (with the key and the reason), the
 * defaults it fills in, and the checks `serve --http` makes against the rest of the
 * configuration before anything starts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { DEFAULT_TOKEN_ALGORITHMS } from '../../../src/config/schema.js';
import { checkTokens } from '../../../src/host/http.js';
import { conformanceConfig } from '../../helpers/conformance.js';

const OAUTH = {
  issuer: 'https://idp.example.com/realms/acme',
  resource: 'https://mcp.example.com/mcp',
  personas: [{ persona: 'tester', when: { claim: 'groups', includes: 'mcp-users' } }],
};
/** personas.yaml with the one persona `tester`. */
function personasFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tc-oauth-')), 'personas.yaml');
  writeFileSync(file, 'tester:\n  allow: ["*"]\n');
  return file;
}
const withOAuth = (oauth: Record<string, unknown>, http: Record<string, unknown> = {}) =>
  loadConfig(conformanceConfig({ policy: { personas: personasFile() }, http: { ...http, oauth: { ...OAUTH, ...oauth } } }));

describe('http.oauth config', () => {
  it('fills in the defaults: audience the resource, sub the user id, asymmetric algorithms, 30 s of clock skew', () => {
    const { oauth } = withOAuth({}).config.http;
    expect(oauth).toMatchObject({ scopes: [], user_claim: 'sub', clock_tolerance_seconds: 30, resource_name: 'Tool Curator', algorithms: [...DEFAULT_TOKEN_ALGORITHMS] });
    expect(oauth!.audience).toBeUndefined();
    expect(DEFAULT_TOKEN_ALGORITHMS).not.toContain('none');
    expect(DEFAULT_TOKEN_ALGORITHMS.some((a) => a.startsWith('HS'))).toBe(false);
  });

  it('refuses an http issuer or resource off loopback, a fragment, and algorithms outside the allow-list', () => {
    expect(() => withOAuth({ issuer: 'http://idp.example.com' })).toThrow(/http\.oauth\.issuer: must be an https URL \(http only on localhost, 127\.0\.0\.1 or \[::1\]\)/);
    expect(() => withOAuth({ resource: 'https://mcp.example.com/mcp#x' })).toThrow(/http\.oauth\.resource: must not have a #fragment/);
    expect(() => withOAuth({ algorithms: ['none'] })).toThrow(/http\.oauth\.algorithms\.0/);
    expect(() => withOAuth({ algorithms: ['HS256'] })).toThrow(/http\.oauth\.algorithms\.0/);
    expect(withOAuth({ issuer: 'http://127.0.0.1:8080/realms/dev' }).config.http.oauth!.issuer).toBe('http://127.0.0.1:8080/realms/dev');
  });

  it('a condition needs exactly one of includes, equals or domain; a rule list needs a rule', () => {
    expect(() => withOAuth({ personas: [{ persona: 'tester', when: { claim: 'groups' } }] })).toThrow(/http\.oauth\.personas\.0\.when: a condition needs exactly one of includes, equals or domain/);
    expect(() => withOAuth({ personas: [{ persona: 'tester', when: { claim: 'groups', includes: 'a', domain: 'b' } }] })).toThrow(/exactly one of includes, equals or domain/);
    expect(() => withOAuth({ personas: [] })).toThrow(/http\.oauth\.personas: add at least one rule mapping claims to a persona/);
    expect(() => withOAuth({ personas: [{ persona: 'tester', when: { claim: 'groups', contains: 'a' } }] })).toThrow(/http\.oauth\.personas\.0\.when/);
  });

  it('introspection needs a client; its cache is bounded by default', () => {
    expect(() => withOAuth({ introspection: { client_secret: 'x' } })).toThrow(/http\.oauth\.introspection\.client_id/);
    const { introspection } = withOAuth({ introspection: { client_id: 'gw', client_secret: 's' } }).config.http.oauth!;
    expect(introspection).toEqual({ client_id: 'gw', client_secret: 's', auth_method: 'client_secret_basic', cache_seconds: 60, cache_max_entries: 10_000 });
  });

  it('serve --http refuses a rule naming a persona personas.yaml lacks, naming the rule', () => {
    const loaded = withOAuth({ personas: [{ persona: 'tester' }, { persona: 'nobody' }] });
    expect(() => checkTokens(loaded)).toThrow(/http\.oauth\.personas\.1\.persona: unknown persona "nobody"/);
  });

  it('serve --http refuses http.oauth beside http.anonymous: requests without a token would never be asked to sign in', () => {
    const loaded = withOAuth({}, { anonymous: { persona: 'tester' } });
    expect(() => checkTokens(loaded)).toThrow(/http\.anonymous: requests without a token would act as http\.anonymous and never be asked to sign in with http\.oauth/);
  });
});
