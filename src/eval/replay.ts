/**
 * Learning from use, measured by replay (`tool-curator eval … --replay`): a suite's cases
 * are split into a traffic half and a test half; the traffic half is replayed as sessions
 * of several users — each user searches with the case's query, then calls the case's
 * expected tools — through the gateway's own evidence path (learning/learning.ts) into a
 * throwaway store; the learned exemplars that come out are given to the curator, and the
 * test half is scored before and after. The split is by position, never by content: even
 * positions are traffic, odd ones test, so a development file that wants a phrasing held
 * out writes it right after the phrasing it paraphrases.
 */
import type { ToolRecord } from '../catalog/types.js';
import { learningSchema } from '../config/schema.js';
import { learnedScope } from '../curator/learned.js';
import type { ToolCurator } from '../curator/types.js';
import { Learning } from '../learning/learning.js';
import { openStore } from '../store/index.js';
import type { CaseResult } from './suite.js';

/** Distinct users who replay each traffic case: the default `min_users`, so one traffic case is enough evidence. */
export const REPLAY_USERS = 3;

export interface Split<T> {
  traffic: T[];
  test: T[];
}

/** Even positions traffic, odd positions test. */
export function replaySplit<T>(cases: readonly T[]): Split<T> {
  return { traffic: cases.filter((_, i) => i % 2 === 0), test: cases.filter((_, i) => i % 2 === 1) };
}

/** One traffic case: who asked (persona; '' without personas), what, and the tools then called. */
export interface TrafficCase {
  persona: string;
  query: string;
  tools: readonly string[];
}

/**
 * Replays `traffic` as REPLAY_USERS users' sessions through the gateway's learning with
 * its default settings (min_users, max_per_tool, decay), into an in-memory store, and
 * gives `curator` the learned exemplars. Tools outside a persona's allowed list teach
 * nothing (`allowedFor`).
 * @returns how many learned exemplars the curator was given
 */
export async function replayTraffic(curator: ToolCurator, traffic: readonly TrafficCase[], allowedFor: (persona: string) => readonly ToolRecord[]): Promise<number> {
  const store = await openStore(':memory:');
  try {
    const learning = new Learning({
      store: store.learned,
      settings: { ...learningSchema.parse({}), enabled: true },
      learn: (learned) => curator.learn(learned),
      allowed: (persona) => new Set(allowedFor(persona).map((t) => t.name)),
      ignored: () => new Set(),
      failed: (operation, err) => {
        throw new Error(`replay: ${operation} failed: ${(err as Error).message}`);
      },
    });
    for (let u = 1; u <= REPLAY_USERS; u++) {
      for (const c of traffic) {
        const session = learning.session({ persona: c.persona || undefined, userId: `replay-user-${u}` })!;
        session.found(c.query, []);
        for (const tool of c.tools) session.used(tool);
      }
    }
    await learning.settled();
    return await learning.refresh();
  } finally {
    await store.close();
  }
}

/** The learned scope a replayed persona's queries are ranked in (no tenant). */
export function replayScope(persona: string): string {
  return learnedScope(persona || undefined);
}

/**
 * How many of the `test` cases a replay of `traffic` could still make Correct: those not
 * Correct whose every missing tool (expected, not in the shortlist) a traffic case of the
 * same persona called. Correct + this is the most that learning from that traffic can
 * reach; the other misses ask for tools no user of their persona called in it, which no
 * evidence of theirs can lift. It reads the expected tools of the test half, so it is a
 * bound to judge a figure against, never an input to ranking.
 *
 * ### Usage
 * ```ts
 * learnable([{ case: { persona: 'student', expected: ['get_fee_dues'] }, outcome: 'missed', shortlist: [] }, …], [{ persona: 'student', query: 'what do I owe', tools: ['get_fee_dues'] }])  // 1
 * ```
 */
export function learnable(test: readonly Pick<CaseResult, 'case' | 'outcome' | 'shortlist'>[], traffic: readonly TrafficCase[]): number {
  const taught = new Set(traffic.flatMap((c) => c.tools.map((tool) => taughtKey(c.persona, tool))));
  return test.filter((r) => {
    if (r.outcome === 'correct') return false;
    const listed = new Set(r.shortlist);
    return r.case.expected.filter((tool) => !listed.has(tool)).every((tool) => taught.has(taughtKey(r.case.persona, tool)));
  }).length;
}

function taughtKey(persona: string, tool: string): string {
  return `${persona}\u0000${tool}`;
}
