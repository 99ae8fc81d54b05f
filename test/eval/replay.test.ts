/**
 * The replay that measures learning from use (src/eval/replay.ts): the split by position,
 * the traffic half taught through the gateway's evidence code into a curator (BM25: the
 * learned field lifts the tool for its persona only), and the bound `learnable` that says
 * how far learning from that traffic could go.
 */
import { describe, expect, it } from 'vitest';
import type { ToolRecord } from '../../src/catalog/types.js';
import { createCurator } from '../../src/curator/index.js';
import { learnable, replayScope, replaySplit, replayTraffic, type TrafficCase } from '../../src/eval/replay.js';
import type { CaseResult } from '../../src/eval/suite.js';

const tool = (name: string, description: string): ToolRecord => ({ server: 's', upstreamName: name, name, description, inputSchema: { type: 'object' }, isAction: false });
const TOOLS = [
  tool('get_library_loans', 'Books the student has borrowed and their due dates.'),
  tool('get_fee_dues', 'Fees the student still owes.'),
  tool('get_grievance_status', 'Status of a grievance the student filed.'),
  tool('list_events', 'Campus events this week.'),
];

type Result = Pick<CaseResult, 'case' | 'outcome' | 'shortlist'>;
const result = (persona: string, expected: string[], outcome: CaseResult['outcome'], shortlist: string[]): Result => ({
  case: { query: 'q', persona, expected, category: 'paraphrase' },
  outcome,
  shortlist,
});

describe('replaySplit', () => {
  it('puts even positions in traffic and odd ones in test', () => {
    expect(replaySplit(['a', 'b', 'c', 'd', 'e'])).toEqual({ traffic: ['a', 'c', 'e'], test: ['b', 'd'] });
  });
});

describe('learnable', () => {
  const traffic: TrafficCase[] = [
    { persona: 'student', query: 'which library books do I currently have', tools: ['get_library_loans'] },
    { persona: 'student', query: 'what do I owe', tools: ['get_fee_dues', 'list_events'] },
    { persona: 'faculty', query: 'grievance status', tools: ['get_grievance_status'] },
  ];

  it('counts the misses whose every missing tool the traffic half called in the same persona', () => {
    const test = [
      result('student', ['get_library_loans'], 'missed', ['list_events']),
      // Partial: the one tool it lacks was taught.
      result('student', ['get_fee_dues', 'get_grievance_status'], 'partial', ['get_grievance_status']),
      // Correct cases are not counted, even when taught.
      result('student', ['get_fee_dues'], 'correct', ['get_fee_dues']),
      // Taught to faculty only: scopes never cross, so it cannot be learned for a student.
      result('student', ['get_grievance_status'], 'missed', []),
      // One of its two missing tools was never called.
      result('student', ['get_library_loans', 'get_grievance_status'], 'missed', []),
    ];
    expect(learnable(test, traffic)).toBe(2);
  });

  it('is 0 without traffic', () => {
    expect(learnable([result('student', ['get_fee_dues'], 'missed', [])], [])).toBe(0);
  });
});

describe('replayTraffic', () => {
  it('teaches the traffic half through the gateway evidence code, for its persona only', async () => {
    const curator = createCurator({ mode: 'bm25', embedder: null });
    await curator.buildIndex(TOOLS);
    // Shares no word with get_library_loans' text: before the replay BM25 finds only list_events' "week".
    const query = 'stuff I checked out this week';
    const top = async (persona: string): Promise<string | undefined> => (await curator.select(query, TOOLS, { topK: 1, learnedScope: replayScope(persona) })).tools[0]?.name;
    expect(await top('student')).toBe('list_events');
    const traffic: TrafficCase[] = [{ persona: 'student', query: 'is there stuff I checked out', tools: ['get_library_loans'] }];
    // Three users replay each case: exactly the default min_users, so the one pair is learned.
    expect(await replayTraffic(curator, traffic, () => TOOLS)).toBe(1);
    expect(await top('student')).toBe('get_library_loans');
    expect(await top('faculty')).toBe('list_events');
  });

  it('learns nothing from a tool outside the persona\'s allowed list', async () => {
    const curator = createCurator({ mode: 'bm25', embedder: null });
    await curator.buildIndex(TOOLS);
    const traffic: TrafficCase[] = [{ persona: 'student', query: 'books I checked out', tools: ['get_library_loans'] }];
    expect(await replayTraffic(curator, traffic, () => TOOLS.filter((t) => t.name !== 'get_library_loans'))).toBe(0);
  });
});
