/**
 * Document embeddings through the cache: only texts missing from it are sent to the
 * embedder, each text once however many tools share it (copies of one description across
 * servers), and what it returns is stored batch by batch as it is computed, so a restart
 * in the middle of a cold build resumes where it stopped and a restart with an unchanged
 * catalog embeds nothing.
 *
 * Replicas sharing a store embed each text once for the fleet: a batch is claimed before
 * it is embedded (EmbeddingCache.claim), batches claimed by another replica are skipped,
 * and their vectors are waited for (the cache's put event, or a look every second) and
 * claimed again if their claim lapses (that replica died).
 */
import type { Embedder } from '../embedding/types.js';
import type { EmbeddingCache } from '../store/types.js';
import { ProgressMeter, yieldToEventLoop, type ProgressListener } from './progress.js';

/**
 * Texts per embedder call, stored and reported (progress) after each call. Large enough
 * to keep every worker of the USE pool busy (it splits a call into batches of 32 across
 * up to 4 workers), small enough that the first progress line comes soon (128 USE texts:
 * under 1 s idle at 161 texts/s; 40 s on the 2-core machine at load 27, where 512 took
 * 190 s) and a restart loses little work.
 */
export const EMBED_BATCH = 128;
/** Cache lookups per synchronous chunk before giving the event loop back. */
const READ_CHUNK = 2_000;
/**
 * A claimed batch is another replica's to embed for this long; past it (that replica
 * died or stalls) any replica claims it again. Two minutes cover one batch of 512 on a
 * loaded machine many times over.
 */
const CLAIM_TTL_MS = 120_000;
/** Longest wait for another replica's vectors before looking again, in ms. */
const LOOK_EVERY_MS = 1_000;

/** Resolves on the cache's next put of `embedderId`'s vectors (any replica), or after `ms`. */
function nextPut(cache: EmbeddingCache, embedderId: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      off?.();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const off = cache.onPut?.((id) => id === embedderId && done());
  });
}

/**
 * The texts each cache's embedDocuments calls of this process are embedding now, by
 * `<embedder>\0<text>`. The store's claims are per process (renewed by their holder), so
 * two builds at once in one process — a newer catalog arriving while the first embeds —
 * would both hold a claim and both embed; the second skips these instead and waits for
 * their vectors as it waits for another replica's. A failed call lets go of them at once.
 */
const embedding = new WeakMap<EmbeddingCache, Set<string>>();

/** Unit vectors for `texts`, in order; duplicates are embedded once. `embedded`: how many this process computed. */
export async function embedDocuments(
  embedder: Embedder,
  texts: readonly string[],
  cache?: EmbeddingCache,
  onProgress?: ProgressListener,
): Promise<{ vectors: Float32Array[]; embedded: number }> {
  const unique = [...new Set(texts)];
  const byText = new Map<string, Float32Array>();
  let missing: string[] = [];
  for (let at = 0; at < unique.length; at += READ_CHUNK) {
    const part = unique.slice(at, at + READ_CHUNK);
    const cached = cache ? await cache.get(embedder.id, part) : [];
    part.forEach((t, i) => (cached[i] ? byText.set(t, cached[i]) : missing.push(t)));
    if (at + READ_CHUNK < unique.length) await yieldToEventLoop();
  }
  const meter = new ProgressMeter(missing.length, { embedder: embedder.id, cached: unique.length - missing.length }, onProgress);
  let embedded = 0;
  const embed = async (batch: string[]) => {
    const fresh = await embedder.embedDocuments(batch);
    if (fresh.length !== batch.length) {
      throw new Error(`Embedder ${embedder.id} returned ${fresh.length} vectors for ${batch.length} texts.`);
    }
    await cache?.put(embedder.id, batch.map((text, i) => ({ text, vector: fresh[i]! })));
    batch.forEach((t, i) => byText.set(t, fresh[i]!));
    meter.advance(batch.length);
    embedded += batch.length;
    // An in-process embedder resolves without ever leaving the microtask queue: serve requests between batches.
    await yieldToEventLoop();
  };

  const busy = cache?.claim ? (embedding.get(cache) ?? embedding.set(cache, new Set()).get(cache)!) : undefined;
  const keyOf = (t: string) => `${embedder.id}\0${t}`;
  while (missing.length > 0) {
    for (let at = 0; at < missing.length; at += EMBED_BATCH) {
      // What another call of this process embeds now is waited for below, like another replica's.
      const batch = missing.slice(at, at + EMBED_BATCH).filter((t) => !busy?.has(keyOf(t)));
      const mine = cache?.claim && batch.length > 0 ? await cache.claim(embedder.id, batch, CLAIM_TTL_MS) : batch;
      if (mine.length === 0) continue;
      const taken = mine.filter((t) => !busy?.has(keyOf(t)));
      if (taken.length === 0) continue;
      for (const t of taken) busy?.add(keyOf(t));
      try {
        await embed(taken);
      } finally {
        for (const t of taken) busy?.delete(keyOf(t));
      }
    }
    const elsewhere = missing.filter((t) => !byText.has(t));
    if (elsewhere.length === 0 || !cache) break;
    // Another replica embeds these: take its vectors as they are stored, then claim again what is still missing.
    await nextPut(cache, embedder.id, LOOK_EVERY_MS);
    const arrived = await cache.get(embedder.id, elsewhere);
    missing = [];
    elsewhere.forEach((t, i) => {
      const v = arrived[i];
      if (v) byText.set(t, v);
      else missing.push(t);
    });
    meter.advance(elsewhere.length - missing.length);
  }
  return { vectors: texts.map((t) => byText.get(t)!), embedded };
}
