/**
 * Learned exemplars in the curator (learned.ts): a scope's learned queries lift their tool
 * for that scope's queries only, in BM25 (an extra field) and in dense (extra passages);
 * a query without a scope, or of another scope, is ranked exactly as before; learn({})
 * takes them back; an index built later keeps them.
 */
import { describe, expect, it } from 'vitest';
import type { ToolRecord } from '../../src/catalog/types.js';
import { createCurator, learnedScope } from '../../src/curator/index.js';
import type { ToolCurator } from '../../src/curator/types.js';
import { fakeEmbedder } from './fakeEmbedder.js';

const tool = (name: string, description: string): ToolRecord => ({ server: 's', upstreamName: name, name, description, inputSchema: { type: 'object' }, isAction: false });
const TOOLS = [
  tool('set', ''),
  tool('get', ''),
  tool('write_file', 'Create a file with the given content.'),
  tool('send_email', 'Deliver an email to recipients.'),
  tool('create_note', 'Write a new note with a title and a body.'),
  tool('post_message', 'Publish a message in a channel.'),
];
const OPS = learnedScope('ops');
const SALES = learnedScope('sales');
const LEARNED = { [OPS]: [{ query: 'stash the deploy token for the scripts', tool: 'set', weight: 1 }] };
const QUERY = 'stash the staging token';

async function names(curator: ToolCurator, scope?: string): Promise<string[]> {
  return (await curator.select(QUERY, TOOLS, { topK: 3, ...(scope !== undefined && { learnedScope: scope }) })).tools.map((t) => t.name);
}

describe.each(['bm25', 'hybrid'] as const)('learned exemplars, %s', (mode) => {
  it('lift their tool for their own scope only, and learn({}) takes them back', async () => {
    const curator = createCurator({ mode, embedder: mode === 'bm25' ? null : fakeEmbedder() });
    await curator.buildIndex(TOOLS);
    const before = await names(curator, OPS);
    expect(before[0]).not.toBe('set');
    await curator.learn(LEARNED);
    expect((await names(curator, OPS))[0]).toBe('set');
    expect(await names(curator, SALES)).toEqual(before);
    expect(await names(curator)).toEqual(before);
    await curator.learn({});
    expect(await names(curator, OPS)).toEqual(before);
  });

  it('are applied to an index built after learn()', async () => {
    const curator = createCurator({ mode, embedder: mode === 'bm25' ? null : fakeEmbedder() });
    await curator.learn(LEARNED);
    await curator.buildIndex(TOOLS);
    expect((await names(curator, OPS))[0]).toBe('set');
    expect((await names(curator, SALES))[0]).not.toBe('set');
  });
});

it('explains a learned passage with its similarity (dense), a tool the catalog lacks is ignored', async () => {
  const curator = createCurator({ mode: 'dense', embedder: fakeEmbedder() });
  await curator.buildIndex(TOOLS);
  await curator.learn({ [OPS]: [...LEARNED[OPS]!, { query: 'stash the staging token', tool: 'not_in_catalog', weight: 1 }] });
  const s = await curator.select(QUERY, TOOLS, { topK: 3, learnedScope: OPS, explain: true });
  const set = s.explanations!.find((e) => e.name === 'set')!;
  // Bag of words: "stash the staging token" against "stash the deploy token for the scripts".
  expect(set.learnedSimilarity).toBeCloseTo(4 / Math.sqrt(4 * 9), 5);
  expect(s.tools[0]!.name).toBe('set');
});
