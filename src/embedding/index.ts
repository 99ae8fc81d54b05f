/**
 * Embedder selection: the config schema of every provider and `createEmbedder`, which
 * builds the one the config names. `auto` (the default) prefers a transformers.js model
 * when @huggingface/transformers (an optional peer dependency) is installed, and falls
 * back to USE Lite, which ships in npm and always loads offline.
 */
import { z } from 'zod';
import { log } from '../log.js';
import { describeError } from './errors.js';
import { createOpenAIEmbedder, openaiSettingsSchema } from './openai.js';
import { createTransformersEmbedder, TRANSFORMERS_PACKAGE, TransformersNotInstalledError, transformersSettingsSchema } from './transformers.js';
import type { Embedder } from './types.js';
import { createUseEmbedder, useSettingsSchema } from './use.js';

export type { Embedder } from './types.js';

const autoSchema = z.object({
  provider: z.literal('auto'),
  ...transformersSettingsSchema.shape,
  ...useSettingsSchema.shape,
  /**
   * How long the transformers model may take to load before `use` is taken instead, in
   * ms. Default 5000: a cached bge-small loads in well under a second, so 5 s only
   * runs out on a first download or an unreachable hub.
   */
  autoTimeoutMs: z.number().int().positive().default(5000),
}).strict();

/**
 * The `curator.embedder` config: `{ provider, ...settings }`, unknown keys rejected.
 * - `auto`: transformers settings + use settings + `autoTimeoutMs`.
 * - `use`, `transformers`, `openai`: that provider's settings (see their schemas).
 * - `none`: no embedder; the curator runs BM25 only.
 */
export const embedderConfigSchema = z.discriminatedUnion('provider', [
  autoSchema,
  useSettingsSchema.extend({ provider: z.literal('use') }).strict(),
  transformersSettingsSchema.extend({ provider: z.literal('transformers') }).strict(),
  openaiSettingsSchema.extend({ provider: z.literal('openai') }).strict(),
  z.object({ provider: z.literal('none') }).strict(),
]);

/** An embedder config as written by a user (defaults not yet applied). */
export type EmbedderConfig = z.input<typeof embedderConfigSchema>;

/**
 * Builds the embedder `config` names, or `null` for `none`.
 *
 * `auto` loads `transformers` with a deadline of `autoTimeoutMs` (when its package is not
 * installed, `use` at once); when that fails or runs out, its downloads are cancelled (nothing keeps the process alive or the CPU
 * busy afterwards) and `use` is loaded. Either way one info line on stderr names the
 * active embedder and why, e.g.
 * `embedder: use:lite-512 (transformers model Xenova/bge-small-en-v1.5 not available: …)`.
 *
 * ### Usage
 * ```ts
 * const embedder = await createEmbedder({ provider: 'auto', autoTimeoutMs: 3000 });
 * const v = await embedder.embedQuery('submit my assignment'); // unit length, embedder.dim numbers
 * ```
 * @throws when `config` is invalid (the message lists each key path and expectation) or
 * the chosen provider cannot load (for `auto`: when `use` cannot either).
 */
export function createEmbedder(config: EmbedderConfig & { provider: 'none' }): Promise<null>;
export function createEmbedder(config: Exclude<EmbedderConfig, { provider: 'none' }>): Promise<Embedder>;
export function createEmbedder(config: EmbedderConfig): Promise<Embedder | null>;
export async function createEmbedder(config: EmbedderConfig): Promise<Embedder | null> {
  const parsed = embedderConfigSchema.safeParse(config);
  if (!parsed.success) throw new Error(`invalid embedder config:\n${z.prettifyError(parsed.error)}`);
  const c = parsed.data;
  switch (c.provider) {
    case 'none':
      log.info('embedder: none (BM25 only)');
      return null;
    case 'use':
      return announce(await createUseEmbedder(c), 'configured');
    case 'transformers':
      return announce(await createTransformersEmbedder(c), 'configured');
    case 'openai':
      return announce(await createOpenAIEmbedder(c), 'configured');
    case 'auto':
      return createAuto(c);
  }
}

/** Why each embedder createEmbedder returned was chosen, as its log line says. */
const reasons = new WeakMap<Embedder, string>();

/** Why `embedder` (from createEmbedder) is the active one, e.g. `configured` or `auto: @huggingface/transformers is not installed`. */
export function embedderReason(embedder: Embedder): string | undefined {
  return reasons.get(embedder);
}

function announce(embedder: Embedder, why: string): Embedder {
  reasons.set(embedder, why);
  log.info({ id: embedder.id, dim: embedder.dim }, `embedder: ${embedder.id} (${why})`);
  return embedder;
}

async function createAuto(c: z.output<typeof autoSchema>): Promise<Embedder> {
  const { autoTimeoutMs, workers, ...transformers } = c;
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`not loaded within ${autoTimeoutMs} ms`)), autoTimeoutMs);
  try {
    const embedder = await createTransformersEmbedder(transformers, { signal: deadline.signal });
    return announce(embedder, `auto: loaded in ${Math.round(performance.now() - started)} ms`);
  } catch (err) {
    const reason = err instanceof TransformersNotInstalledError ? `auto: ${TRANSFORMERS_PACKAGE} is not installed` : `transformers model ${c.model} not available: ${describeError(err)}`;
    const use = await createUseEmbedder({ workers, queryWorkers: c.queryWorkers, batchSize: c.batchSize });
    return announce(use, reason);
  } finally {
    clearTimeout(timer);
  }
}
