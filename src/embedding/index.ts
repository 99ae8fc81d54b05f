/**
 * Embedder selection: the config schema of every provider and `createEmbedder`, which
 * builds the one the config names. `auto` (the default) prefers a transformers.js model
 * when @huggingface/transformers (an optional peer dependency) is installed and the model
 * can be had, and falls back to USE Lite, which ships in npm and always loads offline
 * (auto.ts: how it decides, asking the hub only when nothing on the machine can tell).
 */
import { z } from 'zod';
import { log } from '../log.js';
import { autoSchema, chooseAuto } from './auto.js';
import { createOpenAIEmbedder, openaiSettingsSchema } from './openai.js';
import { createTransformersEmbedder, transformersSettingsSchema } from './transformers.js';
import type { Embedder } from './types.js';
import { createUseEmbedder, useSettingsSchema } from './use.js';

export type { Embedder } from './types.js';

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
 * `auto` loads `transformers` from model files on the machine when they are there, and
 * takes `use` without asking the network when the package is not installed, downloads are
 * off, or the hub failed for this model less than a day ago; otherwise it downloads within
 * `autoTimeoutMs`, and when that fails or runs out the downloads are cancelled (nothing
 * keeps the process alive or the CPU busy afterwards), the failure is remembered, and
 * `use` is loaded (auto.ts). Either way one info line on stderr names the active embedder
 * and why, e.g.
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
    case 'auto': {
      const { embedder, why } = await chooseAuto(c);
      return announce(embedder, why);
    }
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
