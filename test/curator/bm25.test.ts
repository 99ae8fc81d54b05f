/**
 * Our BM25 index against the minisearch one it replaced (minisearchBm25.ts, the oracle):
 * the same hits in the same order, ties included, with identical scores (===) and
 * identical matched terms, on the university catalog (191 tools from the eight real
 * servers, with their domain synonyms; the 391 suite queries) and on the union of the
 * four public catalogs (770 tools; 300 of their queries), with and without an `allowed`
 * mask, with one field, with `limit`; and idf() / has() on every term.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { unionCatalog } from '../../bench/scale.js';
import { buildCatalog } from '../../src/catalog/catalog.js';
import { retrievalFields, type RetrievalFields } from '../../src/catalog/retrievalText.js';
import { Bm25Index, type Bm25Hit, type Field } from '../../src/curator/bm25.js';
import { tokenize } from '../../src/curator/tokenize.js';
import { everyKth, loadPublicSet, PUBLIC_SETS } from '../../src/eval/data.js';
import { loadSuite } from '../../src/eval/university.js';
import { withoutEvalData } from '../helpers/evalData.js';
import { ROOT, University } from '../mock-servers/university.js';
import { MinisearchBm25 } from './minisearchBm25.js';

interface Corpus {
  docs: RetrievalFields[];
  queries: string[];
}

/** Every third tool out, so the mask drops some of the best hits. */
const maskOf = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i % 3 === 1 ? 0 : 1));

/** Hits of both indices for every query; and how many hits and tied neighbours they hold (so the test is not vacuous). */
function compare(ours: Bm25Index, oracle: MinisearchBm25, queries: readonly string[], run: (index: Bm25Index | MinisearchBm25, q: string) => Bm25Hit[]) {
  const got: Bm25Hit[][] = [];
  const want: Bm25Hit[][] = [];
  let hits = 0;
  let ties = 0;
  for (const q of queries) {
    got.push(run(ours, q));
    want.push(run(oracle, q));
    const w = want.at(-1)!;
    hits += w.length;
    for (let i = 1; i < w.length; i++) if (w[i]!.score === w[i - 1]!.score) ties++;
  }
  return { got, want, hits, ties };
}

function oracleSuite(label: string, load: () => Promise<Corpus>, skip = false): void {
  describe.skipIf(skip)(`${label}: the same hits as minisearch, bit for bit`, () => {
    let corpus: Corpus;
    let ours: Bm25Index;
    let oracle: MinisearchBm25;
    beforeAll(async () => {
      corpus = await load();
      ours = new Bm25Index(corpus.docs, { spelling: false });
      oracle = new MinisearchBm25(corpus.docs);
    });

    test('every query over the whole catalog: same tools, order, scores (===), terms and viaSynonym', () => {
      const r = compare(ours, oracle, corpus.queries, (index, q) => index.query(q));
      expect(r.got).toEqual(r.want);
      expect(r.got.flat().map((h) => h.score)).toEqual(r.want.flat().map((h) => h.score));
      expect(r.hits).toBeGreaterThan(10 * corpus.queries.length);
      expect(r.ties).toBeGreaterThan(0);
      expect(r.want.flat().some((h) => h.viaSynonym.length > 0)).toBe(true);
    });

    test('with an allowed mask: the oracle\'s filtered list', () => {
      const mask = maskOf(corpus.docs.length);
      const r = compare(ours, oracle, corpus.queries, (index, q) => index.query(q, mask));
      expect(r.got).toEqual(r.want);
      expect(r.got.flat().every((h) => mask[h.index] === 1)).toBe(true);
    });

    test('some fields: names, descriptions (as the catalog-trust probes query them), two in reverse order, none', () => {
      const probes = [...corpus.queries, ...corpus.docs.filter((_, i) => i % 4 === 0).flatMap((d) => [d.name, d.description.split('. ')[0]!])];
      for (const fields of [['name'], ['description'], ['parameters', 'name']] as Field[][]) {
        const r = compare(ours, oracle, probes, (index, q) => index.query(q, undefined, fields));
        expect(r.got).toEqual(r.want);
        expect(r.hits).toBeGreaterThan(probes.length);
      }
      expect([ours.query(corpus.queries[0]!, undefined, []), oracle.query(corpus.queries[0]!, undefined, [])]).toEqual([[], []]);
    });

    test('limit: the first entries of the full order', () => {
      const mask = maskOf(corpus.docs.length);
      for (const limit of [1, 5, 17, 50]) {
        for (const q of corpus.queries) {
          expect(ours.query(q, undefined, undefined, limit)).toEqual(oracle.query(q).slice(0, limit));
          expect(ours.query(q, mask, undefined, limit)).toEqual(oracle.query(q, mask).slice(0, limit));
        }
      }
      expect(ours.query(corpus.queries[0]!, undefined, undefined, 0)).toEqual([]);
    });

    test('idf() and has() of every term in the catalog and the queries, and of an absent one', () => {
      const terms = new Set([...corpus.docs.flatMap((d) => tokenize(`${d.name} ${d.description} ${d.parameters}`)), ...corpus.queries.flatMap(tokenize), 'zzzabsent']);
      const mismatched = [...terms].filter((t) => ours.idf(t) !== oracle.idf(t) || ours.has(t) !== oracle.has(t));
      expect(mismatched).toEqual([]);
      expect([ours.has('zzzabsent'), ours.size]).toEqual([false, corpus.docs.length]);
    });

    test('built chunk by chunk, queried between chunks: the oracle over the same tools at every step', () => {
      const chunked = new Bm25Index([], { spelling: false });
      const growing = new MinisearchBm25();
      const chunk = Math.ceil(corpus.docs.length / 5);
      for (let at = 0; at < corpus.docs.length; at += chunk) {
        const docs = corpus.docs.slice(at, at + chunk);
        chunked.add(docs, at);
        growing.add(docs, at);
        const r = compare(chunked, growing, everyKth(corpus.queries, 40), (index, q) => index.query(q));
        expect(r.got).toEqual(r.want);
      }
      expect(() => chunked.add(corpus.docs.slice(0, 1), 0)).toThrow(`expected first index ${corpus.docs.length}, got 0`);
    });
  });
}

let uni: University | undefined;
afterAll(async () => uni?.stop());

oracleSuite('university catalog', async () => {
  uni = await new University().start();
  const byServer = new Map<string, Tool[]>();
  for (const t of uni.tools) byServer.set(t.server, [...(byServer.get(t.server) ?? []), t]);
  const synonyms = JSON.parse(readFileSync(join(ROOT, 'domain_synonyms.json'), 'utf8')) as Record<string, string>;
  const docs = buildCatalog(byServer).map((t) => retrievalFields(t, synonyms[t.name]));
  expect(docs).toHaveLength(191);
  return { docs, queries: loadSuite(join(ROOT, 'eval/university.yaml')).map((c) => c.query) };
});

oracleSuite('public union catalog', async () => {
  const sets = PUBLIC_SETS.map((s) => loadPublicSet(s));
  const docs = unionCatalog(sets).tools.map((t) => retrievalFields(t));
  expect(docs).toHaveLength(1297);
  return { docs, queries: sets.flatMap((s) => everyKth(s.cases, 75).map((c) => c.query)) };
}, withoutEvalData);

describe('Bm25Index on a hand-made catalog', () => {
  const docs = [
    { name: 'list directory', description: 'List the files of a folder.', parameters: 'path' },
    { name: 'read file', description: 'Read a file.', parameters: 'path' },
  ];
  const index = new Bm25Index(docs);
  const oracle = new MinisearchBm25(docs);
  test('a match through synonyms only (dir → folder, directory), scored as minisearch does', () => {
    const hits = index.query('make a dir');
    expect(hits).toEqual([{ index: 0, score: oracle.query('make a dir')[0]!.score, terms: [], viaSynonym: ['dir'] }]);
    expect(hits[0]!.score).toBeCloseTo(2.001183, 6);
  });
  test('two terms matched: the sum times 2; limit 1 keeps the best', () => {
    expect(index.query('files in a folder').map((h) => [h.index, h.terms])).toEqual([[0, ['file', 'folder']], [1, ['file']]]);
    expect(index.query('files in a folder', undefined, undefined, 1)).toEqual(oracle.query('files in a folder').slice(0, 1));
  });
  test('stopwords only, or no term in the catalog: no hits', () => {
    expect(index.query('what is the')).toEqual([]);
    expect(index.query('zebra')).toEqual([]);
  });
});
