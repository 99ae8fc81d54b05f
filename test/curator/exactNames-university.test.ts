/**
 * Exact names over the whole university catalog (191 tools, eight real servers over
 * stdio), as the admin persona who may use all of them: a query that is one tool's name
 * ranks that tool first, for every tool (issue 12 measured 162 of 191 before), and a
 * query listing several names returns them all. Exact names do not depend on the
 * retrievers, so BM25 mode keeps the test free of an embedder.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildCatalog } from '../../src/catalog/catalog.js';
import type { ToolRecord } from '../../src/catalog/types.js';
import { createCurator } from '../../src/curator/index.js';
import type { ToolCurator } from '../../src/curator/types.js';
import { ROOT, University } from '../mock-servers/university.js';

let uni: University;
let catalog: ToolRecord[];
let curator: ToolCurator;
beforeAll(async () => {
  uni = await new University().start();
  const byServer = new Map<string, Tool[]>();
  for (const t of uni.tools) byServer.set(t.server, [...(byServer.get(t.server) ?? []), t]);
  catalog = buildCatalog(byServer);
  curator = createCurator({ mode: 'bm25', embedder: null });
  await curator.buildIndex(catalog, { synonyms: JSON.parse(readFileSync(join(ROOT, 'domain_synonyms.json'), 'utf8')) });
});
afterAll(async () => uni?.stop());

describe('exact names over the 191 university tools', () => {
  test('the query equal to a tool\'s name ranks it first: 191 of 191', async () => {
    expect(catalog).toHaveLength(191);
    const notFirst: string[] = [];
    for (const t of catalog) {
      const s = await curator.select(t.name, catalog, { topK: 17 });
      if (s.tools[0]?.name !== t.name) notFirst.push(`${t.name} → ${s.tools[0]?.name}`);
    }
    expect(notFirst).toEqual([]);
  });

  test('server-qualified names (server.tool, server__tool) rank first too', async () => {
    for (const t of catalog.filter((_, i) => i % 10 === 0)) {
      expect((await curator.select(`${t.server}.${t.name}`, catalog, { topK: 12 })).tools[0]?.name).toBe(t.name);
      expect((await curator.select(`${t.server}__${t.name}`, catalog, { topK: 12 })).tools[0]?.name).toBe(t.name);
    }
  });

  test('a query listing four names returns all four, first, for every run of four tools', async () => {
    const missing: string[] = [];
    for (let i = 0; i + 4 <= catalog.length; i += 4) {
      const four = catalog.slice(i, i + 4).map((t) => t.name);
      const s = await curator.select(`I need ${four[0]}, ${four[1]}, ${four[2]} and ${four[3]} for U1010`, catalog, { topK: 12 });
      const got = s.tools.slice(0, 4).map((t) => t.name);
      for (const n of four) if (!got.includes(n)) missing.push(n);
    }
    expect(missing).toEqual([]);
  });
});
