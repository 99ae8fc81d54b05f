/**
 * Entry points whose modules are loaded on first use: the embedders (and TF.js/ONNX behind
 * them) and the config schemas (zod). Importing `tool-curator` loads neither, so an app
 * pays for them only when it builds an embedder or parses personas.
 */
import type { Personas } from '../config/schema.js';
import type { EmbedderConfig } from '../embedding/index.js';
import type { Embedder } from '../embedding/types.js';

/**
 * Builds the embedder `config` names, or null for `{ provider: 'none' }` (see
 * embedding/index.ts `createEmbedder` for each provider's settings).
 *
 * ### Usage
 * ```ts
 * const embedder = await createEmbedder({ provider: 'use' });
 * ```
 * @throws for an invalid config (the message lists each key path) or a provider that cannot load.
 */
export async function createEmbedder(config: EmbedderConfig): Promise<Embedder | null> {
  return (await import('../embedding/index.js')).createEmbedder(config);
}

/**
 * personas.yaml's content (an object) checked and with its defaults applied, for `new Policy(...)`.
 * @throws a zod error naming each key path that does not fit.
 */
export async function parsePersonas(input: unknown): Promise<Personas> {
  return (await import('../config/schema.js')).personasSchema.parse(input);
}
