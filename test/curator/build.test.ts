/**
 * The staged index build (build.ts, curator.ts): BM25 answers while the dense index is
 * built, vectors are stored batch by batch so an interrupted cold build resumes, and a
 * failure in the dense stage or the catalog trust falls back instead of failing a query.
 */
import { describe, expect, test } from 'vitest';
import { createCurator } from '../../src/curator/index.js';
import { EMBED_BATCH } from '../../src/curator/embedCache.js';
import type { BuildProgress } from '../../src/curator/progress.js';
import type { Embedder } from '../../src/embedding/types.js';
import { openDb } from '../../src/store/db.js';
import { EmbeddingStore } from '../../src/store/embeddings.js';
import { CAMPUS_TOOLS, fakeEmbedder, tool } from './fakeEmbedder.js';

const CATALOG = [
  ...CAMPUS_TOOLS,
  tool('report_lost_item', 'report an item lost on campus'),
  tool('get_timetable', 'weekly class schedule'),
];
const names = (s: { tools: { name: string }[] }): string[] => s.tools.map((t) => t.name);

describe('staged build: BM25 first, dense when its vectors are ready', () => {
  test('select answers from BM25 while the documents are still being embedded, then from both', async () => {
    const inner = fakeEmbedder();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: Embedder = { ...inner, embedDocuments: async (texts) => (await gate, inner.embedDocuments(texts)) };
    const curator = createCurator({ mode: 'hybrid', embedder: slow });
    const built = curator.buildIndex(CATALOG);
    await curator.whenSearchable();
    const early = await curator.select('library books', CATALOG, { topK: 2 });
    expect([early.mode, ...names(early)]).toEqual(['bm25', 'borrow_book', 'search_library_catalog']);
    release();
    await built;
    const late = await curator.select('library books', CATALOG, { topK: 2 });
    expect(late.mode).toBe('hybrid');
    expect(names(late)).toContain('search_library_catalog');
  });

  test('an embedder still loading: BM25 answers, dense joins once it has loaded', async () => {
    let loaded!: (e: Embedder) => void;
    const embedder = new Promise<Embedder>((resolve) => (loaded = resolve));
    const curator = createCurator({ mode: 'hybrid', embedder });
    const built = curator.buildIndex(CATALOG);
    await curator.whenSearchable();
    expect((await curator.select('library books', CATALOG, { topK: 2 })).mode).toBe('bm25');
    loaded(fakeEmbedder());
    await built;
    expect((await curator.select('library books', CATALOG, { topK: 2 })).mode).toBe('hybrid');
  });

  test('a newer buildIndex supersedes an older one still embedding', async () => {
    const inner = fakeEmbedder();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    let embedding!: () => void;
    const firstCall = new Promise<void>((resolve) => (embedding = resolve));
    const firstSlow: Embedder = {
      ...inner,
      embedDocuments: async (texts) => {
        if (++calls === 1) {
          embedding();
          await gate;
        }
        return inner.embedDocuments(texts);
      },
    };
    const curator = createCurator({ mode: 'hybrid', embedder: firstSlow });
    const old = curator.buildIndex(CATALOG);
    await firstCall;
    await curator.buildIndex(CATALOG.slice(0, 11));
    release();
    await old;
    // The old build finished last but published nothing: the index is the 11-tool one.
    const s = await curator.select('weekly class schedule', CATALOG, { topK: 10 });
    expect([s.mode, names(s).includes('get_timetable')]).toEqual(['hybrid', false]);
  });
});

describe('vectors stored batch by batch: an interrupted cold build resumes', () => {
  test('after a failure mid-build, the next build embeds only what was not stored', async () => {
    // 300 tools × (document, name phrase, sentence) = 900 distinct texts: two batches.
    const tools = Array.from({ length: 300 }, (_, k) => tool(`tool_${k}`, `Handles record number ${k}`));
    const cache = new EmbeddingStore(openDb(':memory:'));
    const hashed = (text: string): Float32Array => {
      const v = new Float32Array(16);
      for (let i = 0; i < text.length; i++) v[(text.charCodeAt(i) * 31 + i) % 16]! += 1;
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const sent: number[] = [];
    let failAfter = 1;
    const embedder: Embedder = {
      id: 'test:hashed', dim: 16, async close() {},
      async embedQuery(text) { return hashed(text); },
      async embedDocuments(texts) {
        if (failAfter-- <= 0) throw new Error('embedder went away');
        sent.push(texts.length);
        return texts.map(hashed);
      },
    };
    const progress: BuildProgress[] = [];
    const first = createCurator({ mode: 'hybrid', embedder, cache, onProgress: (p) => progress.push(p) });
    await first.buildIndex(tools);
    expect((await first.select('record number 7', tools, { topK: 3 })).mode).toBe('bm25');
    expect(sent).toEqual([EMBED_BATCH]);
    expect(progress.map((p) => [p.done, p.total])).toEqual([[EMBED_BATCH, 900]]);

    failAfter = Infinity;
    const second = createCurator({ mode: 'hybrid', embedder, cache });
    await second.buildIndex(tools);
    const rest = Array.from({ length: Math.ceil((900 - EMBED_BATCH) / EMBED_BATCH) }, (_, i) => Math.min(EMBED_BATCH, 900 - EMBED_BATCH * (i + 1)));
    expect(sent).toEqual([EMBED_BATCH, ...rest]);
    expect(rest.reduce((a, b) => a + b, 0)).toBe(900 - EMBED_BATCH);
    expect((await second.select('record number 7', tools, { topK: 3 })).mode).toBe('hybrid');
  });
});

describe('fail-open inside the index', () => {
  test('the dense stage throws at query time: BM25 alone answers', async () => {
    const inner = fakeEmbedder();
    // A query vector of the wrong dimension makes the vector search throw.
    const broken: Embedder = { ...inner, embedQuery: async () => new Float32Array(3) };
    const curator = createCurator({ mode: 'hybrid', embedder: broken });
    await curator.buildIndex(CATALOG);
    const s = await curator.select('library books', CATALOG, { topK: 2 });
    expect([s.mode, ...names(s)]).toEqual(['bm25', 'borrow_book', 'search_library_catalog']);
  });

  test('measuring the catalog trust throws: the index is still hybrid, without trust', async () => {
    const store = new EmbeddingStore(openDb(':memory:'));
    const failingTrust = Object.assign(Object.create(store) as EmbeddingStore, {
      get: (id: string, texts: string[]) => {
        if (id.endsWith('#trust')) throw new Error('store read failed');
        return store.get(id, texts);
      },
    });
    const curator = createCurator({ mode: 'hybrid', embedder: fakeEmbedder(), cache: failingTrust });
    await curator.buildIndex(CATALOG);
    expect(curator.trust).toBeUndefined();
    const s = await curator.select('library books', CATALOG, { topK: 2 });
    expect(s.mode).toBe('hybrid');
    expect(names(s)).toContain('borrow_book');
  });
});
