import { describe, expect, test } from 'vitest';
import { toolDefinitionTokens } from '../../src/catalog/tokens.js';
import { createCurator } from '../../src/curator/index.js';
import { everyKth, loadPublicSet } from '../../src/eval/data.js';
import { DEV_CASES } from '../../src/eval/dev/cases.js';
import { DEV_TOOLS } from '../../src/eval/dev/catalog.js';
import { outcomeOf, runSuite } from '../../src/eval/suite.js';
import { withoutEvalData } from '../helpers/evalData.js';

describe.skipIf(withoutEvalData)('public data loader', () => {
  test('api_bank: 52 tools with input_parameters, 406 queries, gold by name', () => {
    const set = loadPublicSet('api_bank');
    expect([set.tools.length, set.cases.length]).toEqual([52, 406]);
    const add = set.tools.find((t) => t.name === 'AddAgenda')!;
    expect(add.server).toBe('api_bank');
    expect(Object.keys((add.inputSchema as { properties: object }).properties)).toEqual(['token', 'content', 'time', 'location']);
    expect(set.cases[0]!.gold).toEqual(['GetUserToken', 'AddAgenda', 'AddAlarm']);
  });
  test('toollens: test split only, parameters parsed from full_text, gold ids mapped to names', () => {
    const set = loadPublicSet('toollens');
    expect([set.tools.length, set.cases.length]).toEqual([464, 1877]);
    expect(set.tools[0]!.inputSchema).toEqual({ type: 'object', properties: { q: { type: 'string', description: '' } }, required: ['q'] });
    expect(set.cases[0]!.gold).toEqual(['Worldwide Recipes::Suggestions', 'Nutrition by API-Ninjas::/v1/nutrition', 'Store Groceries::Search a Grocery']);
  });
  test('metatool: 497 multi + every k-th 2,000 single; no schema → {type: object}', () => {
    const set = loadPublicSet('metatool');
    expect([set.tools.length, set.cases.length]).toEqual([199, 2497]);
    expect(set.cases.filter((c) => c.gold.length === 2)).toHaveLength(497);
    expect(set.cases[497]!.id).toBe('s0');
    expect(set.cases[498]!.id).toBe('s10');
    expect(set.tools[0]!.inputSchema).toEqual({ type: 'object' });
  });
  test('everyKth', () => {
    expect(everyKth([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3)).toEqual([0, 3, 6]);
    expect(everyKth([1, 2], 5)).toEqual([1, 2]);
  });
});

describe('suite runner', () => {
  test('outcomes', () => {
    expect([outcomeOf(['a', 'b'], ['a', 'b']), outcomeOf(['a'], ['a', 'b']), outcomeOf(['c'], ['a']), outcomeOf([], [])]).toEqual(['correct', 'partial', 'missed', 'correct']);
  });
  test('accuracy = (correct + 0.5 × partial) / total; tokens against the full list', async () => {
    const curator = createCurator({ mode: 'bm25', embedder: null });
    await curator.buildIndex(DEV_TOOLS);
    const cases = DEV_CASES.filter((c) => c.category === 'compound').slice(0, 4);
    const r = await runSuite(curator, cases, () => DEV_TOOLS, { topK: 1, pinned: ['get_my_profile'] });
    expect(r.total).toBe(4);
    expect(r.accuracy).toBeCloseTo((r.correct + 0.5 * r.partial) / 4, 12);
    expect(r.avgFullTokens).toBe(toolDefinitionTokens(DEV_TOOLS));
    expect(r.cases[0]!.shortlist[0]).toBe('get_my_profile');
    expect(r.tokenReduction).toBeGreaterThan(0.5);
  });
  test('token count is of the tools/list JSON', () => {
    expect(toolDefinitionTokens([])).toBe(0);
    const one = toolDefinitionTokens(DEV_TOOLS.slice(0, 1));
    expect(one).toBeGreaterThan(20);
    expect(toolDefinitionTokens(DEV_TOOLS.slice(0, 2))).toBeGreaterThan(one);
  });
});
