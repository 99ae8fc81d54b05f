/**
 * `tool-curator select` over the reference servers' real tools (filesystem, memory,
 * everything): queries phrased the way a user would say them, each with the tool it
 * needs in the top 5.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { storeLocation } from '../../src/config/store.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { CLI, referenceConfig } from '../helpers/reference.js';
import { rawQuery } from '../helpers/stores.js';

const CASES: [query: string, expected: string][] = [
  ['read the contents of a file', 'read_text_file'],
  ['list the files in this folder', 'list_directory'],
  ['rename notes.txt to old-notes.txt', 'move_file'],
  ['find all files whose name matches *.log', 'search_files'],
  ['when was this file last modified and how big is it', 'get_file_info'],
  ['save this text into a new file', 'write_file'],
  ['store a new person called Alice in the knowledge graph', 'create_entities'],
  ['add a relation between Alice and Acme in the knowledge graph', 'create_relations'],
  ['forget everything about Bob', 'delete_entities'],
  ['what is 17 plus 25', 'get-sum'],
  ['repeat my message back to me', 'echo'],
  ['print the whole knowledge graph', 'read_graph'],
  ['make a new folder called reports', 'create_directory'],
];

describe('select over the reference servers', () => {
  let gateway: Gateway;
  let configPath: string;

  beforeAll(async () => {
    ({ configPath } = referenceConfig());
    gateway = await Gateway.start(loadConfig(configPath));
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(CASES)('"%s" has %s in the top 5', async (query, expected) => {
    const selection = await gateway.curator.select(query, gateway.catalog, { topK: 5 });
    expect(selection.mode).toBe('hybrid');
    expect(selection.tools.slice(0, 5).map((t) => t.name)).toContain(expected);
  });

  it('a restart with the same catalog embeds nothing: every vector comes from the SQLite store', async () => {
    const count = async (g: Gateway) => (await rawQuery<{ n: number; last: number }>('sqlite', storeLocation(g.loaded), 'SELECT COUNT(*) AS n, MAX(created_at) AS last FROM embeddings'))[0]!;
    const before = await count(gateway);
    expect(before.n).toBeGreaterThanOrEqual(gateway.catalog.length);
    const restarted = await Gateway.start(loadConfig(configPath));
    try {
      expect(await count(restarted)).toEqual(before);
      const selection = await restarted.curator.select('read the contents of a file', restarted.catalog, { topK: 3 });
      expect(selection.tools.map((t) => t.name)).toContain('read_text_file');
    } finally {
      await restarted.close();
    }
  });

  it('the CLI prints the ranked shortlist with dense rank, BM25 rank and RRF score', () => {
    const out = execFileSync(process.execPath, [CLI, 'select', 'read the contents of a file', '--config', configPath, '--top-k', '5', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, TOOL_CURATOR_LOG: 'warn' },
    });
    const parsed = JSON.parse(out) as { mode: string; tools: { rank: number; name: string; denseRank?: number; bm25Rank?: number; rrfScore?: number }[] };
    expect(parsed.mode).toBe('hybrid');
    // --top-k 5 is a maximum: a confident ranking keeps back a reserve of min(5, ⌊5 / 3⌋) = 1.
    expect(parsed.tools.length).toBe(parsed.mode === 'hybrid' && (parsed as { confidence?: number }).confidence! >= 0.3 ? 4 : 5);
    expect(parsed.tools[0]!.rank).toBe(1);
    expect(['read_text_file', 'read_file']).toContain(parsed.tools[0]!.name);
    expect(parsed.tools[0]!.denseRank).toBeGreaterThanOrEqual(1);
    expect(parsed.tools[0]!.bm25Rank).toBeGreaterThanOrEqual(1);
    // RRF with k = 60: a tool ranked first by both lists scores 2/61 at most.
    expect(parsed.tools[0]!.rrfScore).toBeGreaterThan(0);
    expect(parsed.tools[0]!.rrfScore).toBeLessThanOrEqual(2 / 61 + 1e-9);
  });
});
