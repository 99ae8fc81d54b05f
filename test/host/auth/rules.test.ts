/**
 * Claims → persona and user: claim paths as the common identity providers shape them
 * (Keycloak's nested realm roles, Entra ID's roles and tenant, Okta's groups, namespaced
 * claims), the three kinds of condition, rule order, the config that holds the rules, and
 * how scopes, client and expiry are read from a token's claims.
 */
import { describe, expect, it } from 'vitest';
import { hostOAuthSchema, type PersonaRule } from '../../../src/config/schema.js';
import { claimAt, matchPersona, seenClaims, userIdFrom } from '../../../src/host/auth/rules.js';
import { authInfo } from '../../../src/host/auth/token.js';

const rules = (personas: unknown[]): PersonaRule[] =>
  hostOAuthSchema.parse({ issuer: 'https://idp.example.com/realms/acme', resource: 'https://mcp.example.com/mcp', personas }).personas;

describe('claimAt', () => {
  it('reads top-level claims, dotted paths into objects, and namespaced claims whose names hold dots', () => {
    const claims = { groups: ['a'], realm_access: { roles: ['staff'] }, resource_access: { 'mcp-gateway': { roles: ['approver'] } }, 'https://example.com/roles': ['x'] };
    expect(claimAt(claims, 'groups')).toEqual(['a']);
    expect(claimAt(claims, 'realm_access.roles')).toEqual(['staff']);
    expect(claimAt(claims, 'resource_access.mcp-gateway.roles')).toEqual(['approver']);
    expect(claimAt(claims, 'https://example.com/roles')).toEqual(['x']);
    expect(claimAt(claims, 'realm_access.missing')).toBeUndefined();
    expect(claimAt(claims, 'groups.0')).toBeUndefined();
    expect(claimAt({ a: 'text' }, 'a.length')).toBeUndefined();
  });
});

describe('matchPersona', () => {
  const ordered = rules([
    { persona: 'admin', when: { claim: 'realm_access.roles', includes: 'gateway-admin' } },
    { persona: 'faculty', when: { claim: 'groups', includes: ['faculty', 'lecturers'] } },
    { persona: 'student', when: [{ claim: 'email', domain: 'student.uni.example' }, { claim: 'tid', equals: '72f988bf' }] },
    { persona: 'reader', when: { claim: 'scope', includes: 'mcp:read' } },
  ]);

  it('takes the first rule whose conditions all hold, and says which', () => {
    expect(matchPersona(ordered, { realm_access: { roles: ['gateway-admin'] }, groups: ['faculty'] })).toEqual({
      rule: ordered[0],
      label: 'http.oauth.personas.0 (realm_access.roles includes gateway-admin)',
    });
    expect(matchPersona(ordered, { groups: ['lecturers'] })?.label).toBe('http.oauth.personas.1 (groups includes faculty | lecturers)');
    expect(matchPersona(ordered, { email: 'Bob@Student.Uni.Example', tid: '72f988bf' })?.label).toBe(
      'http.oauth.personas.2 (email domain student.uni.example and tid equals 72f988bf)',
    );
  });

  it('needs every condition of a rule: the right domain from another tenant matches nothing', () => {
    expect(matchPersona(ordered, { email: 'bob@student.uni.example', tid: 'another-tenant' })).toBeUndefined();
  });

  it('reads a space-separated scope claim as a list, and never a substring of a value', () => {
    expect(matchPersona(ordered, { scope: 'openid mcp:read profile' })?.rule.persona).toBe('reader');
    expect(matchPersona(ordered, { scope: 'mcp:readwrite' })).toBeUndefined();
    expect(matchPersona(ordered, { groups: ['faculty-alumni'] })).toBeUndefined();
  });

  it('domain is exact: a subdomain, a lookalike or a value without @ does not match', () => {
    for (const email of ['x@mail.student.uni.example', 'x@student.uni.example.evil.com', 'student.uni.example', '@student.uni.example']) {
      expect(matchPersona(ordered, { email, tid: '72f988bf' }), email).toBeUndefined();
    }
  });

  it('equals compares numbers and booleans by their text, never objects', () => {
    const r = rules([{ persona: 'p', when: { claim: 'level', equals: '3' } }]);
    expect(matchPersona(r, { level: 3 })?.rule.persona).toBe('p');
    expect(matchPersona(r, { level: ['3'] })).toBeUndefined();
  });

  it('a rule without `when` matches every token: the default at the end', () => {
    const withDefault = rules([{ persona: 'faculty', when: { claim: 'groups', includes: 'faculty' } }, { persona: 'visitor' }]);
    expect(matchPersona(withDefault, {})).toEqual({ rule: withDefault[1], label: 'http.oauth.personas.1 (any signed-in user)' });
  });
});

describe('what a refused host is told, and the user id', () => {
  it('seenClaims lists each claim the rules read once, absent ones named, long values cut', () => {
    const r = rules([
      { persona: 'a', when: { claim: 'groups', includes: 'x' } },
      { persona: 'b', when: [{ claim: 'groups', includes: 'y' }, { claim: 'roles', includes: 'z' }] },
    ]);
    expect(seenClaims(r, { groups: ['alumni'], secret_claim: 's' })).toBe('groups=["alumni"], roles=(absent)');
    expect(seenClaims(r, { groups: ['g'.repeat(300)] })).toMatch(/^groups=\["g{198}…, roles=\(absent\)$/);
  });

  it('userIdFrom takes a non-empty string or a number, else nothing', () => {
    expect(userIdFrom({ email: 'a@b.example' }, 'email')).toBe('a@b.example');
    expect(userIdFrom({ employee: { number: 42 } }, 'employee.number')).toBe('42');
    expect(userIdFrom({ email: '' }, 'email')).toBeUndefined();
    expect(userIdFrom({ groups: ['x'] }, 'groups')).toBeUndefined();
  });
});

describe('scopes as the token names them', () => {
  const config = (scopes: string[]) => hostOAuthSchema.parse({ issuer: 'https://login.example.com/t/v2.0', resource: 'https://mcp.example.com/mcp', scopes, personas: [{ persona: 'p' }] });

  it('reads `scope` (a string) and `scp` (a string or a list)', () => {
    expect(authInfo('t', { scope: 'a b', exp: 1 }, config([])).scopes).toEqual(['a', 'b']);
    expect(authInfo('t', { scp: 'a b', exp: 1 }, config([])).scopes).toEqual(['a', 'b']);
    expect(authInfo('t', { scp: ['a', 'b'], exp: 1 }, config([])).scopes).toEqual(['a', 'b']);
  });

  it("an Entra ID short scope name counts as the configured full name ending in it, and nothing else does", () => {
    const full = 'https://mcp.example.com/mcp/tools.call';
    expect(authInfo('t', { scp: 'tools.call', exp: 1 }, config([full])).scopes).toEqual(['tools.call', full]);
    expect(authInfo('t', { scp: 'call', exp: 1 }, config([full])).scopes).toEqual(['call']);
    expect(authInfo('t', { scp: 'tools.read', exp: 1 }, config([full])).scopes).toEqual(['tools.read']);
  });

  it('expiresAt is exp plus the clock tolerance; the client comes from client_id, azp, appid or cid', () => {
    const info = authInfo('t', { exp: 1000, azp: 'vscode' }, config([]));
    expect(info).toMatchObject({ expiresAt: 1030, clientId: 'vscode', resource: new URL('https://mcp.example.com/mcp') });
    expect(authInfo('t', { exp: 1, cid: 'okta-client' }, config([])).clientId).toBe('okta-client');
  });
});
