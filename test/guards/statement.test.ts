/**
 * Who a statement names (statement.ts): an approval is bound to its caller, so a signed-in
 * user and a static token's user are different callers whatever a claim spells, and an
 * approval of one's call never runs the other's identical call.
 */
import { describe, expect, it } from 'vitest';
import { isOwnCall, parseStatement, statementOf } from '../../src/guards/statement.js';
import type { SessionIdentity } from '../../src/guards/types.js';
import { byName } from './fixtures.js';

const ISSUER = 'https://idp.example.com/realms/acme';
const args = { amount: 10 };
const callerOf = (session: SessionIdentity) => parseStatement(statementOf(session, byName('make_payment'), args, args, 'none', 60_000))!.caller;
const signedIn = (userId: string): SessionIdentity => ({ sessionId: 's2', persona: 'student', userId, principal: { issuer: ISSUER, subject: `sub-${userId}`, rule: 'r', claims: {} } });

describe('the caller a statement names', () => {
  it('keeps a static token user and signed-in users whose id spells them apart', () => {
    const staticAlice = callerOf({ sessionId: 's1', persona: 'student', userId: 'alice' });
    expect(staticAlice).toBe('user alice');
    const tricky = ['alice', 'token:alice', 'user alice', '"alice"', `alice" (${ISSUER}`, 'oidc:alice'].map((id) => callerOf(signedIn(id)));
    expect(tricky).not.toContain(staticAlice);
    expect(new Set(tricky).size).toBe(tricky.length);
    expect(tricky[1]).toBe(`signed-in user "token:alice" (${ISSUER})`);
    // A static token's user_id spelled like a signed-in caller is still a static token's user.
    expect(callerOf({ sessionId: 's3', persona: 'student', userId: `signed-in user "alice" (${ISSUER})` })).toBe(`user signed-in user "alice" (${ISSUER})`);
  });

  it("a signed-in approver whose id is token:alice does not count static alice's call as their own, nor the reverse", () => {
    const staticCall = parseStatement(statementOf({ sessionId: 's1', persona: 'student', userId: 'alice' }, byName('make_payment'), args, args, 'none', 60_000))!;
    expect(isOwnCall(staticCall, 'token:alice', ISSUER)).toBe(false);
    expect(isOwnCall(staticCall, 'alice', ISSUER)).toBe(true);
    const signedInCall = parseStatement(statementOf(signedIn('token:alice'), byName('make_payment'), args, args, 'none', 60_000))!;
    expect(isOwnCall(signedInCall, 'alice', ISSUER)).toBe(false);
    expect(isOwnCall(signedInCall, 'token:alice', ISSUER)).toBe(true);
  });
});
