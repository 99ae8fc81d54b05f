/**
 * Building the retrievers of an index, in the order a host can use them: BM25 first
 * (seconds even for 100,000 tools, built in chunks that give the event loop back), then
 * the dense index once every vector is cached or computed, then the catalog trust
 * (cached beside the vectors). Each step that fails leaves the steps before it in use:
 * no dense index means BM25 alone, no trust means the per-query gate alone.
 */
import { createHash } from 'node:crypto';
import { fieldsText, passageParts, retrievalFields, retrievalText, type RetrievalFields } from '../catalog/retrievalText.js';
import type { ToolRecord } from '../catalog/types.js';
import type { Embedder } from '../embedding/types.js';
import { log } from '../log.js';
import type { EmbeddingCache } from '../store/types.js';
import { Bm25Index } from './bm25.js';
import { DenseIndex } from './dense.js';
import { embedDocuments } from './embedCache.js';
import { ExactNames } from './exactNames.js';
import { NameAnchor } from './anchor.js';
import { ScriptProfile } from './script.js';
import { yieldToEventLoop, type ProgressListener } from './progress.js';
import { measureTrust, type CatalogTrust, type ToolProbe } from './trust.js';
import type { ApproximateOptions, ExtraContext } from './types.js';

/** Version of the cached catalog trust's key; 3: measured on a bounded sample (trust.ts MAX_PROBES), key hashed; 4: ranked within a bounded scope (MAX_SCOPE). */
const TRUST_KEY_VERSION = 4;
/** Tools per synchronous chunk of BM25 indexing (and of the lookups and passage texts). */
const BM25_CHUNK = 2_000;
/** Texts hashed per synchronous chunk for the catalog trust's cache key. */
const HASH_CHUNK = 20_000;

/** What buildDense makes: the dense index, the catalog-trust probes and every text embedded (document, passages per tool). */
export interface DenseBuild {
  index: DenseIndex;
  probes: ToolProbe[];
  texts: string[];
}

/** What select() looks names and scripts up in, besides the retrievers. */
export interface Lookups {
  anchor: NameAnchor;
  exact: ExactNames;
  scripts: ScriptProfile;
}

/** The retrieval fields of every tool (retrievalFields), in chunks so requests are served in between. */
export async function buildFields(tools: readonly ToolRecord[], extra: ExtraContext): Promise<RetrievalFields[]> {
  const fields: RetrievalFields[] = [];
  for (let at = 0; at < tools.length; at += BM25_CHUNK) {
    for (const t of tools.slice(at, at + BM25_CHUNK)) {
      const extraText = [extra.synonyms?.[t.name], extra.glosses?.[t.name]].filter((x) => x !== undefined).join('. ');
      fields.push(retrievalFields(t, extraText === '' ? undefined : extraText));
    }
    await yieldToEventLoop();
  }
  return fields;
}

/**
 * The name anchor, the exact-name table and the script profile of `tools` (the script
 * profile counts each tool's retrieval text, made of `fields`), in chunks so requests
 * are served in between.
 */
export async function buildLookups(tools: readonly ToolRecord[], fields: readonly RetrievalFields[]): Promise<Lookups> {
  const lookups = { anchor: new NameAnchor(), exact: new ExactNames(), scripts: new ScriptProfile() };
  for (let at = 0; at < tools.length; at += BM25_CHUNK) {
    const chunk = tools.slice(at, at + BM25_CHUNK);
    lookups.anchor.add(chunk.map((t) => t.name), at);
    lookups.exact.add(chunk, at);
    lookups.scripts.add(fields.slice(at, at + BM25_CHUNK).map(fieldsText));
    await yieldToEventLoop();
  }
  return lookups;
}

/**
 * The BM25 index of `tools` (of their `fields` when computed already), built in chunks so
 * requests are served in between; `spelling` false: no spelling correction (Bm25Index).
 */
export async function buildBm25(tools: readonly ToolRecord[], extra: ExtraContext, fields?: readonly RetrievalFields[], spelling = true): Promise<Bm25Index> {
  const all = fields ?? (await buildFields(tools, extra));
  const index = new Bm25Index([], { spelling });
  for (let at = 0; at < all.length; at += BM25_CHUNK) {
    index.add(all.slice(at, at + BM25_CHUNK), at);
    await yieldToEventLoop();
  }
  return index;
}

/**
 * Embeds each tool's document and passages (passageParts(): name phrase, description
 * sentences, synonyms; then its exemplars, from exemplars.json and an operator override's
 * `examples`) through the cache, in batches stored as they
 * are computed (embedCache.ts). Returns the dense index and the catalog-trust probes
 * built from the same vectors. A catalog of at least `approximate.from` tools also gets
 * the HNSW graph of its rows (ann.ts) before the index is returned; `current()` false
 * stops that (a newer catalog superseded this one) and the index stays exact.
 * @throws what the embedder throws; the caller falls back to BM25.
 */
export async function buildDense(
  embedder: Embedder,
  tools: readonly ToolRecord[],
  extra: ExtraContext,
  cache?: EmbeddingCache,
  onProgress?: ProgressListener,
  approximate?: ApproximateOptions,
  current: () => boolean = () => true,
): Promise<DenseBuild> {
  const views = [];
  for (let at = 0; at < tools.length; at += BM25_CHUNK) {
    for (const t of tools.slice(at, at + BM25_CHUNK)) {
      const parts = passageParts(t, extra.synonyms?.[t.name]);
      const own = [...(parts.name ? [parts.name] : []), ...parts.sentences, ...(parts.synonyms ? [parts.synonyms] : [])];
      const exemplars = [...(extra.exemplars?.[t.name] ?? []), ...(t.examples ?? [])];
      views.push({ parts, document: retrievalText(t, extra.synonyms?.[t.name]), passages: [...own, ...exemplars] });
    }
    await yieldToEventLoop();
  }
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
  const index = await DenseIndex.create(embedder.dim, perTool);
  if (approximate && tools.length >= approximate.from) {
    const started = performance.now();
    log.info({ tools: tools.length, rows: index.rows, quantization: approximate.quantization }, 'curator: building the approximate (HNSW) index');
    await index.buildGraph(approximate.quantization, current, texts);
    log.info({ rows: index.rows, approximate: index.approximate, ms: Math.round(performance.now() - started) }, 'curator: approximate index built');
  }
  return { index, probes, texts };
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
export async function cachedTrust(embedderId: string, built: DenseBuild, bm25: Bm25Index, cache?: EmbeddingCache): Promise<CatalogTrust | undefined> {
  const id = `${embedderId}#trust`;
  const hash = createHash('sha256');
  for (let at = 0; at < built.texts.length; at += HASH_CHUNK) {
    for (const t of built.texts.slice(at, at + HASH_CHUNK)) hash.update(t).update('\0');
    await yieldToEventLoop();
  }
  const key = `catalog trust v${TRUST_KEY_VERSION}\n${hash.digest('hex')}`;
  let stored = (await cache?.get(id, [key]))?.[0];
  if (!stored) {
    const trust = await measureTrust(built.probes, bm25, built.index.dim);
    // Stored as float32, and used as stored on a cold build too, so a warm one ranks identically.
    stored = Float32Array.of(trust?.dense ?? 0, trust?.bm25 ?? 0, trust?.probes ?? 0);
    await cache?.put(id, [{ text: key, vector: stored }]);
  }
  return stored[2]! > 0 ? { dense: stored[0]!, bm25: stored[1]!, probes: stored[2]! } : undefined;
}
