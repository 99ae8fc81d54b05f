/**
 * A catalog's vectors shipped with its config (`curator.vectors`, a vector file:
 * embedding/vectorFile.ts): seeding the embeddings cache from it before the first index
 * build, and writing one for the current catalog (`tool-curator index --write-vectors F`,
 * `npm run vectors` for the bundled example).
 */
import type { ToolRecord } from '../catalog/types.js';
import { resolveFrom, type LoadedConfig } from '../config/load.js';
import { createCurator } from '../curator/index.js';
import type { ProgressListener } from '../curator/progress.js';
import type { ExtraContext } from '../curator/types.js';
import { createEmbedder } from '../embedding/index.js';
import type { Embedder } from '../embedding/types.js';
import { readVectorFile, seedCache, writeVectorFile, type EmbeddingCache, type VectorEntry } from '../embedding/vectorFile.js';
import { describeError } from '../embedding/errors.js';
import { log } from '../log.js';

/**
 * Puts the vectors of the config's `curator.vectors` file into `cache` when they were
 * computed by `embedderId` (other vectors would not be comparable). Never throws: a file
 * that cannot be used is a warning, and the index is then built by embedding.
 * @returns how many vectors were added.
 */
export async function seedVectors(loaded: LoadedConfig, cache: EmbeddingCache, embedderId: string): Promise<number> {
  const configured = loaded.config.curator.vectors;
  if (configured === undefined) return 0;
  const path = resolveFrom(loaded.baseDir, configured);
  try {
    const file = readVectorFile(path);
    if (file.embedder !== embedderId) {
      log.info({ file: path, vectors: file.embedder, embedder: embedderId }, `curator.vectors holds vectors of ${file.embedder}, not of the active embedder ${embedderId}: not used`);
      return 0;
    }
    const added = await seedCache(cache, file);
    if (added > 0) log.info({ file: path, added, of: file.entries.length }, 'embeddings cache seeded from curator.vectors');
    return added;
  } catch (err) {
    log.warn({ key: 'curator.vectors', file: path }, `${loaded.file}: curator.vectors: ${describeError(err)}; the index is built by embedding`);
    return 0;
  }
}

/**
 * The embedder, recording every document vector it computes (each text once, first seen
 * first) and the error of a failed call: the curator falls back to BM25 instead of throwing.
 */
function recording(embedder: Embedder): { embedder: Embedder; entries: Map<string, Float32Array>; failure: () => unknown } {
  const entries = new Map<string, Float32Array>();
  let failure: unknown;
  return {
    entries,
    failure: () => failure,
    embedder: {
      id: embedder.id,
      dim: embedder.dim,
      embedQuery: (text) => embedder.embedQuery(text),
      close: () => embedder.close(),
      async embedDocuments(texts) {
        try {
          const vectors = await embedder.embedDocuments(texts);
          texts.forEach((t, i) => entries.set(t, vectors[i]!));
          return vectors;
        } catch (err) {
          failure = err;
          throw err;
        }
      },
    },
  };
}

/**
 * Embeds every document text of `tools` (their retrieval texts and passages, as the
 * curator indexes them with `extra`) afresh with the config's embedder and writes them to
 * `path` as a vector file; then seeds `cache` with them, if given.
 * @returns the embedder id and how many vectors were written.
 * @throws when no embedder loads or embedding fails.
 */
export async function writeVectors(
  loaded: LoadedConfig,
  tools: ToolRecord[],
  extra: ExtraContext,
  path: string,
  opts: { cache?: EmbeddingCache; onProgress?: ProgressListener } = {},
): Promise<{ embedder: string; vectors: number }> {
  const base = await createEmbedder(loaded.config.curator.embedder);
  if (!base) throw new Error('curator.embedder is none: there is nothing to write vectors of');
  const { embedder, entries, failure } = recording(base);
  try {
    await createCurator({ mode: 'dense', embedder, onProgress: opts.onProgress }).buildIndex(tools, extra);
    if (failure() !== undefined) throw failure();
    const file = { embedder: base.id, dim: base.dim, entries: [...entries].map(([text, vector]): VectorEntry => ({ text, vector })) };
    writeVectorFile(path, file);
    if (opts.cache) await seedCache(opts.cache, file);
    return { embedder: base.id, vectors: file.entries.length };
  } finally {
    await base.close();
  }
}
