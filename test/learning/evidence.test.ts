/**
 * What counts as evidence in one session (learning.ts SessionEvidence) and how pairs
 * become learned exemplars (exemplarsOf): the window, the latest query that returned the
 * tool, one pair per session, no evidence from corrected, refused, parked or failed calls
 * or pinned tools; decay, the cap per tool and the persona's allowed tools.
 */
import { describe, expect, it } from 'vitest';
import type { ToolRecord } from '../../src/catalog/types.js';
import { evidenceQuery, exemplarsOf, Learning, SessionEvidence } from '../../src/learning/learning.js';
import { personKey } from '../../src/store/people.js';
import type { CallContext } from '../../src/guards/types.js';
import type { LearnedEvidence, LearnedPair } from '../../src/store/types.js';

const DAY = 86_400_000;

function session(now: { t: number }) {
  const written: LearnedEvidence[] = [];
  const evidence = new SessionEvidence(
    { persona: 'student', tenant: '', userId: 'u1', windowMs: 300_000, now: () => now.t, ignored: new Set(['get_my_profile']) },
    (e) => written.push(e),
  );
  return { evidence, written };
}
const ctx = (tool: string, decisions: CallContext['decisions'] = []): CallContext => ({
  session: { sessionId: 's' }, requestedName: tool, args: {}, decisions, notes: [],
  tool: { server: 's', upstreamName: tool, name: tool, description: '', inputSchema: { type: 'object' }, isAction: false } as ToolRecord,
});
const ok = { content: [] };

describe('session evidence', () => {
  it('a successful call is evidence for the latest recent query that returned it, else the latest recent query; once per session', () => {
    const now = { t: 1_000_000 };
    const { evidence, written } = session(now);
    evidence.found('Pay my  hostel fees!', ['get_fee_dues', 'make_payment']);
    evidence.found('show my receipts', ['get_payment_receipt']);
    evidence.called(ctx('make_payment'), ok);
    evidence.called(ctx('make_payment'), ok);
    evidence.called(ctx('get_payment_history'), ok);
    expect(written).toEqual([
      { persona: 'student', tenant: '', userId: 'u1', query: 'pay my hostel fees', tool: 'make_payment', at: 1_000_000 },
      { persona: 'student', tenant: '', userId: 'u1', query: 'show my receipts', tool: 'get_payment_history', at: 1_000_000 },
    ]);
  });

  it('nothing from corrected, refused, parked or failed calls, pinned tools, or calls after the window', () => {
    const now = { t: 0 };
    const { evidence, written } = session(now);
    evidence.found('pay my fees', ['make_payment', 'get_my_profile']);
    evidence.called(ctx('make_payment', ['corrected']), ok);
    evidence.called(ctx('make_payment', ['refused']), ok);
    evidence.called(ctx('make_payment', ['awaiting_approval']), ok);
    evidence.called(ctx('make_payment'), { content: [], isError: true });
    evidence.called(ctx('get_my_profile'), ok);
    now.t = 300_001;
    evidence.called(ctx('make_payment'), ok);
    expect(written).toEqual([]);
    evidence.found('pay my fees', ['make_payment']);
    evidence.called(ctx('make_payment', ['awaiting_approval', 'approved']), ok);
    expect(written.map((e) => e.tool)).toEqual(['make_payment']);
  });

  it('queries are normalized: case, spacing and closing punctuation do not make another pair', () => {
    expect(evidenceQuery('  Where is my   Room?? ')).toBe('where is my room');
    expect(evidenceQuery('x'.repeat(900))).toHaveLength(500);
  });
});

describe('exemplarsOf', () => {
  const pair = (query: string, tool: string, users: number, lastAt: number): LearnedPair => ({ query, tool, users, count: users, lastAt });
  const settings = { half_life_days: 30, max_per_tool: 2 };

  it('halves the weight every half-life, keeps the best max_per_tool per tool, drops tools the persona may not use', () => {
    const now = 100 * DAY;
    const pairs = [
      pair('a', 'make_payment', 3, now), pair('b', 'make_payment', 5, now - 30 * DAY), pair('c', 'make_payment', 4, now - 60 * DAY),
      pair('d', 'admin_tool', 9, now),
    ];
    expect(exemplarsOf(pairs, settings, now, new Set(['make_payment']))).toEqual([
      { query: 'a', tool: 'make_payment', weight: 1 },
      { query: 'b', tool: 'make_payment', weight: 0.5 },
    ]);
  });
});

describe('whose evidence', () => {
  it('signed-in users count by issuer and subject, static-token users by id, never as one another, whatever a claim spells', () => {
    const written: LearnedEvidence[] = [];
    const learning = new Learning({
      store: { add: async (e: LearnedEvidence) => void written.push(e) } as never,
      settings: { window_seconds: 300 } as never,
      learn: async () => undefined,
      allowed: () => undefined,
      ignored: () => new Set(),
      failed: () => undefined,
      now: () => 1_000,
    });
    const issuer = 'https://idp.example.com';
    const sessions = [
      { persona: 'staff', userId: 'alice' },
      { persona: 'staff', userId: 'token:alice', principal: { issuer, subject: 'token:alice', rule: 'r', claims: {} } },
      // The same person under a changed user claim is still one user; another person with the old claim is another.
      { persona: 'staff', userId: 'renamed', principal: { issuer, subject: 'token:alice', rule: 'r', claims: {} } },
      { persona: 'staff', userId: 'token:alice', principal: { issuer, subject: '["token","alice"]', rule: 'r', claims: {} } },
    ];
    for (const identity of sessions) {
      const evidence = learning.session(identity)!;
      evidence.found('pay my fees', ['make_payment']);
      evidence.called(ctx('make_payment'), ok);
    }
    expect(written.map((e) => [e.tenant, e.userId])).toEqual([
      ['', personKey({ kind: 'token', userId: 'alice' })],
      [issuer, personKey({ kind: 'signed-in', issuer, subject: 'token:alice' })],
      [issuer, personKey({ kind: 'signed-in', issuer, subject: 'token:alice' })],
      [issuer, personKey({ kind: 'signed-in', issuer, subject: '["token","alice"]' })],
    ]);
    expect(learning.session({ persona: 'staff' })).toBeUndefined();
  });
});
