/**
 * Building the retrievers of an index, in the order a host can use them: BM25 first
 * (seconds even for 100,000 tools, built in chunks that give the event loop back), then
 * the dense index once every vector is cached or computed, then the catalog trust
 * (cached beside the vectors). Each step that fails leaves the steps before it in use:
 * no dense index means BM25 alone, no trust means the per-query gate alone.
 */
import { createHash } from 'node:crypto';
import { passageParts, retrievalFields, retrievalText } from '../catalog/retrievalText.js';
import type { ToolRecord } from '../catalog/types.js';
import type { Embedder } from '../embedding/types.js';
import { log } from '../log.js';
import type { EmbeddingStore } from '../store/embeddings.js';
import { Bm25Index } from './bm25.js';
import { DenseIndex } from './dense.js';
import { embedDocuments } from './embedCache.js';
import { yieldToEventLoop, type ProgressListener } from './progress.js';
import { measureTrust, type CatalogTrust, type ToolProbe } from './trust.js';
import type { ExtraContext } from './types.js';

/** Version of the cached catalog trust's key; 3: measured on a bounded sample (trust.ts MAX_PROBES), key hashed. */
const TRUST_KEY_VERSION = 3;
/** Tools per synchronous chunk of BM25 indexing. */
const BM25_CHUNK = 2_000;

/** What buildDense makes: the dense index, the catalog-trust probes and every text embedded (document, passages per tool). */
export interface DenseBuild {
  index: DenseIndex;
  probes: ToolProbe[];
  texts: string[];
}

/** The BM25 index of `tools`, built in chunks so requests are served in between. */
export async function buildBm25(tools: readonly ToolRecord[], extra: ExtraContext): Promise<Bm25Index> {
  const fields = [];
  for (let at = 0; at < tools.length; at += BM25_CHUNK) {
    for (const t of tools.slice(at, at + BM25_CHUNK)) fields.push(retrievalFields(t, extra.synonyms?.[t.name]));
    await yieldToEventLoop();
  }
  const index = new Bm25Index();
  for (let at = 0; at < fields.length; at += BM25_CHUNK) {
    index.add(fields.slice(at, at + BM25_CHUNK), at);
    await yieldToEventLoop();
  }
  return index;
}

/**
 * Embeds each tool's document and passages (passageParts(): name phrase, description
 * sentences, synonyms; then its exemplars) through the cache, in batches stored as they
 * are computed (embedCache.ts). Returns the dense index and the catalog-trust probes
 * built from the same vectors.
 * @throws what the embedder throws; the caller falls back to BM25.
 */
export async function buildDense(
  embedder: Embedder,
  tools: readonly ToolRecord[],
  extra: ExtraContext,
  cache?: EmbeddingStore,
  onProgress?: ProgressListener,
): Promise<DenseBuild> {
  const views = tools.map((t) => {
    const parts = passageParts(t, extra.synonyms?.[t.name]);
    const own = [...(parts.name ? [parts.name] : []), ...parts.sentences, ...(parts.synonyms ? [parts.synonyms] : [])];
    return { parts, document: retrievalText(t, extra.synonyms?.[t.name]), passages: [...own, ...(extra.exemplars?.[t.name] ?? [])] };
  });
  const texts = views.flatMap((v) => [v.document, ...v.passages]);
  const { vectors, embedded } = await embedDocuments(embedder, texts, cache, onProgress);
  let next = 0;
  const take = (n: number): Float32Array[] => vectors.slice(next, (next += n));
  const perTool = views.map((v) => ({ document: take(1)[0]!, passages: take(v.passages.length) }));
  const probes = views.map(({ parts }, i): ToolProbe => {
    const own = perTool[i]!.passages;
    const first = parts.name ? 1 : 0;
    const description = own.slice(first, first + parts.sentences.length + (parts.synonyms ? 1 : 0));
    return {
      ...(parts.name ? { name: { text: parts.name, vector: own[0]! } } : {}),
      ...(parts.sentences.length > 0 ? { sentence: { text: parts.sentences[0]!, vector: own[first]! } } : {}),
      description,
    };
  });
  log.debug({ embedder: embedder.id, vectors: vectors.length, embedded }, 'curator: document embeddings ready');
  await yieldToEventLoop();
  return { index: new DenseIndex(embedder.dim, perTool), probes, texts };
}

/**
 * The catalog trust (trust.ts), cached in the embedding store under the embedder id +
 * `#trust`, keyed by a hash of every text indexed: measuring it costs at most
 * 2 × MAX_PROBES BM25 queries and as many bounded vector searches, a cache hit nothing.
 * The key's version (TRUST_KEY_VERSION) changes whenever tokenize() or the probes change
 * what the same texts measure, so a store written by an older build is not trusted.
 * Undefined (the gate alone decides) when fewer than MIN_PROBES tools can be probed or
 * the measurement fails.
 */
export async function cachedTrust(embedderId: string, built: DenseBuild, bm25: Bm25Index, cache?: EmbeddingStore): Promise<CatalogTrust | undefined> {
  const id = `${embedderId}#trust`;
  const hash = createHash('sha256');
  for (const t of built.texts) hash.update(t).update('\0');
  const key = `catalog trust v${TRUST_KEY_VERSION}\n${hash.digest('hex')}`;
  let stored = cache?.get(id, [key])[0];
  if (!stored) {
    const trust = await measureTrust(built.probes, bm25, built.index.dim);
    // Stored as float32, and used as stored on a cold build too, so a warm one ranks identically.
    stored = Float32Array.of(trust?.dense ?? 0, trust?.bm25 ?? 0, trust?.probes ?? 0);
    cache?.put(id, [{ text: key, vector: stored }]);
  }
  return stored[2]! > 0 ? { dense: stored[0]!, bm25: stored[1]!, probes: stored[2]! } : undefined;
}
