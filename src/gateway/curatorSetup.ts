/**
 * The curator a gateway ranks with, built from the config: the embedder loading in the
 * background (seeding the embeddings cache from `curator.vectors` once it is known), and
 * the curator answering from BM25 until the embedder and its dense index are in.
 */
import type { LoadedConfig } from '../config/load.js';
import { createCurator } from '../curator/index.js';
import type { ProgressListener } from '../curator/progress.js';
import type { ExtraContext, ToolCurator } from '../curator/types.js';
import { createEmbedder } from '../embedding/index.js';
import type { Embedder } from '../embedding/types.js';
import { log } from '../log.js';
import type { EmbeddingCache } from '../store/types.js';
import { seedVectors } from './vectors.js';

export interface CuratorSetup {
  curator: ToolCurator;
  /** The embedder once loaded and the cache seeded (null: none configured, wanted, or loadable). */
  embedder: Promise<Embedder | null>;
}

/**
 * Creates the curator of `loaded` over the embeddings cache `cache` (the store's). With `noEmbedder`
 * (catalog-only commands) no embedder is loaded and a dense or hybrid mode runs as BM25.
 * Never rejects for an embedder that fails to load: it is logged and the curator runs BM25.
 */
export function startCurator(loaded: LoadedConfig, cache: EmbeddingCache, opts: { noEmbedder?: boolean; onProgress?: ProgressListener } = {}): CuratorSetup {
  const { mode, fusion, approximate, embedder: embedderConfig } = loaded.config.curator;
  const wantsEmbedder = !opts.noEmbedder && (mode === 'dense' || mode === 'hybrid');
  const embedder = wantsEmbedder
    ? createEmbedder(embedderConfig).then(
        async (e) => {
          if (e) await seedVectors(loaded, cache, e.id);
          return e;
        },
        (err: Error) => {
          log.error({ err: err.message }, 'no embedder could be loaded; the curator falls back to BM25');
          return null;
        },
      )
    : Promise.resolve(null);
  const curator = createCurator({ mode: opts.noEmbedder && mode !== 'none' ? 'bm25' : mode, fusion, approximate, embedder, cache, onProgress: opts.onProgress });
  return { curator, embedder };
}

/** Domain knowledge the config adds to the catalog: synonyms, exemplars, dependencies, pinned tools. */
export function extraContext(loaded: LoadedConfig): ExtraContext {
  const { synonyms, exemplars, dependencies, config } = loaded;
  return { synonyms, exemplars, dependencies, pinned: config.exposure.pinned };
}
