/**
 * The `transformers` provider: a sentence encoder run by @huggingface/transformers
 * (ONNX Runtime, CPU) through its `feature-extraction` pipeline, pooled and normalized.
 * The package is an optional peer dependency, imported only when this provider loads.
 * Default `Xenova/bge-small-en-v1.5` (384-d, q8), fetched from the Hugging Face hub on
 * first use and cached; `localModelPath` + `allowRemoteModels: false` run it offline.
 *
 * transformers.js keeps `allowRemoteModels`, `localModelPath`, `cacheDir`, `remoteHost`
 * and `fetch` in one process-wide `env`: each load sets them, so the settings of the
 * most recent load apply to every later one.
 */
import { z } from 'zod';
import { log } from '../log.js';
import { defaultQueryWorkers, EmbedPool, queryWorkersSchema, workerScript } from './pool.js';
import type { Embedder } from './types.js';
import { chunks, clip } from './vector.js';

/**
 * The npm package this provider runs on: an optional peer dependency of tool-curator
 * (with onnxruntime-node it is hundreds of MB), installed by whoever configures it.
 */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';

/** The `transformers` provider was configured, but its package is not installed. */
export class TransformersNotInstalledError extends Error {
  constructor() {
    super(
      `the transformers embedder needs the npm package ${TRANSFORMERS_PACKAGE}, which is not installed: ` +
        `run \`npm install ${TRANSFORMERS_PACKAGE}@^4.3.2\` (where GitHub is unreachable, with ONNXRUNTIME_NODE_INSTALL=skip set), ` +
        'or use the embedder `use`, which needs nothing more (docs/LIBRARY.md, "Embedders")',
    );
    this.name = 'TransformersNotInstalledError';
  }
}

/** transformers.js, loaded on first use. @throws TransformersNotInstalledError when the package is absent. */
export async function loadTransformers(): Promise<typeof import('@huggingface/transformers')> {
  try {
    return await import('@huggingface/transformers');
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string };
    if (code === 'ERR_MODULE_NOT_FOUND' && message?.includes(TRANSFORMERS_PACKAGE)) throw new TransformersNotInstalledError();
    throw err;
  }
}

/** The bge English models' instruction for short queries against passages (their model card). */
const BGE_EN_QUERY_INSTRUCTION = 'Represent this sentence for searching relevant passages: ';

/** Settings of the `transformers` provider. */
export const transformersSettingsSchema = z.object({
  /** Hub model id or folder name under `localModelPath`. Default `Xenova/bge-small-en-v1.5`. */
  model: z.string().min(1).default('Xenova/bge-small-en-v1.5'),
  /**
   * Weight precision, which picks the file: `fp32` → `onnx/model.onnx`, `q8` →
   * `onnx/model_quantized.onnx`. Default `q8`: ~4× smaller and faster than fp32 on CPU.
   */
  dtype: z.enum(['auto', 'fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'bnb4', 'q4f16']).default('q8'),
  /**
   * How token vectors become one vector. Default from the model card: `cls` for the
   * bge family (trained on the [CLS] state), `mean` otherwise (sentence-transformers).
   */
  pooling: z.enum(['cls', 'mean']).optional(),
  /**
   * Prefix added to queries only. Default from the model card: the bge English
   * instruction for `bge-{small,base,large}-en*`, none otherwise.
   */
  queryInstruction: z.string().optional(),
  /** Folder holding `<model>/` trees (config.json, tokenizer.json, onnx/…). Default: transformers.js's own. */
  localModelPath: z.string().optional(),
  /** Whether to download from the hub when the model is not local. Default true. */
  allowRemoteModels: z.boolean().default(true),
  /** Where downloads are cached. Default: transformers.js's `.cache` in its package folder. */
  cacheDir: z.string().optional(),
  /** Hub mirror base URL, e.g. `https://hf-mirror.com/`. Default the Hugging Face hub. */
  remoteHost: z.url().optional(),
  /** Texts per model call, default 32: bounds the padded [batch, tokens, dim] activations. */
  batchSize: z.number().int().min(1).max(1024).default(32),
  /** Worker threads for queries, each with its own copy of the model; see pool.ts `queryWorkersSchema`. Documents stay on the main thread. */
  queryWorkers: queryWorkersSchema,
});

/** What a caller may pass: every field is optional. */
export type TransformersSettings = z.input<typeof transformersSettingsSchema>;

/** Pooling and query instruction the model card of `model` prescribes. */
export function modelCardDefaults(model: string): { pooling: 'cls' | 'mean'; queryInstruction: string } {
  return {
    pooling: /(^|\/)bge-/i.test(model) ? 'cls' : 'mean',
    queryInstruction: /(^|\/)bge-(small|base|large)-en/i.test(model) ? BGE_EN_QUERY_INSTRUCTION : '',
  };
}

/**
 * Resolves with `work`, or rejects as soon as `signal` aborts; a result that arrives
 * after the abort is handed to `discard` so nothing stays loaded.
 */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, discard: (late: T) => unknown): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) void Promise.resolve(discard(value)).catch(() => undefined);
        else resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** A loaded feature-extraction pipeline with its model card settings applied. */
export interface TransformersModel {
  /** `transformers:<model>:<dtype>:<pooling>` */
  id: string;
  dim: number;
  /** Unit vectors in input order; `query` prefixes each text with the query instruction. */
  embed(texts: string[], query: boolean): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

/**
 * Loads the pipeline and probes one text to learn the vector width. Used by the main
 * thread and by each query worker (worker.ts), so both produce the same vectors. The id
 * is `transformers:<model>:<dtype>:<pooling>`.
 *
 * `signal` bounds the load: on abort, hub requests in flight are cancelled (so no
 * socket keeps the process alive), the returned promise rejects with the signal's
 * reason, and a model that finishes loading anyway is disposed.
 *
 * @throws TransformersNotInstalledError without the package; an error when the model or
 *   tokenizer files cannot be found or loaded.
 */
export async function loadTransformersModel(settings: TransformersSettings, { signal }: { signal?: AbortSignal } = {}): Promise<TransformersModel> {
  const s = transformersSettingsSchema.parse(settings);
  const card = modelCardDefaults(s.model);
  const pooling = s.pooling ?? card.pooling;
  const queryInstruction = s.queryInstruction ?? card.queryInstruction;
  signal?.throwIfAborted();

  const { pipeline, env } = await loadTransformers();
  env.allowRemoteModels = s.allowRemoteModels;
  if (s.localModelPath !== undefined) env.localModelPath = s.localModelPath;
  if (s.cacheDir !== undefined) env.cacheDir = s.cacheDir;
  if (s.remoteHost !== undefined) env.remoteHost = s.remoteHost;
  // Every hub request of this load carries `signal`; the wrapper is removed once the load settles.
  const previousFetch = env.fetch;
  const boundFetch: typeof env.fetch = (input, init?: RequestInit) =>
    fetch(input, { ...init, signal: signal && init?.signal ? AbortSignal.any([signal, init.signal]) : signal ?? init?.signal });
  env.fetch = boundFetch;
  const loading = pipeline('feature-extraction', s.model, { dtype: s.dtype, cache_dir: s.cacheDir }).finally(() => {
    if (env.fetch === boundFetch) env.fetch = previousFetch;
  });
  const extractor = await abortable(loading, signal, (late) => late.dispose());

  const embed = async (texts: string[], query: boolean): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (const batch of chunks(texts, s.batchSize)) {
      const tensor = await extractor(batch.map((t) => clip(query ? queryInstruction + t : t)), { pooling, normalize: true });
      const width = tensor.dims.at(-1)!;
      const data = Float32Array.from(tensor.data as ArrayLike<number>);
      tensor.dispose();
      for (let r = 0; r < batch.length; r++) out.push(data.slice(r * width, (r + 1) * width));
    }
    return out;
  };

  let probe: Float32Array[];
  try {
    probe = await embed(['dimension probe'], false);
  } catch (err) {
    await extractor.dispose();
    throw err;
  }
  return { id: `transformers:${s.model}:${s.dtype}:${pooling}`, dim: probe[0]!.length, embed, dispose: () => extractor.dispose() };
}

/**
 * `size` query workers loading the model as the main thread did, warmed by one query, or
 * undefined (queries on the main thread) when size is 0, when running from sources, or
 * when the workers cannot load the model (logged).
 */
async function startQueryPool(model: TransformersModel, size: number, settings: TransformersSettings & { batchSize: number }): Promise<EmbedPool | undefined> {
  const script = workerScript();
  if (size === 0 || !script) return undefined;
  const pool = new EmbedPool(size, script, { model: { provider: 'transformers', settings }, queries: true, joinUpTo: settings.batchSize });
  try {
    await pool.embedOne('warm-up');
    return pool;
  } catch (err) {
    log.warn({ model: model.id, err: (err as Error).message }, 'embedder: transformers query workers could not load the model; queries run on the main thread');
    await pool.close();
    return undefined;
  }
}

/**
 * Loads the pipeline on the main thread (documents) and starts `queryWorkers` query
 * workers, each loading its own copy from the files the main thread just loaded (or
 * downloaded and cached). The id is
 * `transformers:<model>:<dtype>:<pooling>`.
 *
 * `signal` bounds the load: on abort, hub requests in flight are cancelled (so no
 * socket keeps the process alive), the returned promise rejects with the signal's
 * reason, and a model that finishes loading anyway is disposed.
 *
 * ### Usage
 * ```ts
 * const bge = await createTransformersEmbedder({ model: 'Xenova/bge-small-en-v1.5' });
 * bge.id;  // 'transformers:Xenova/bge-small-en-v1.5:q8:cls'
 * bge.dim; // 384
 * ```
 * @throws when the model or tokenizer files cannot be found or loaded.
 */
export async function createTransformersEmbedder(
  settings: TransformersSettings = {},
  { signal }: { signal?: AbortSignal } = {},
): Promise<Embedder> {
  const model = await loadTransformersModel(settings, { signal });
  const { queryWorkers = defaultQueryWorkers(), ...loadSettings } = transformersSettingsSchema.parse(settings);
  const queries = await startQueryPool(model, queryWorkers, loadSettings);
  let closed = false;
  const open = () => {
    if (closed) throw new Error(`transformers embedder for ${loadSettings.model} is closed`);
  };
  return {
    id: model.id,
    dim: model.dim,
    async embedDocuments(texts) {
      open();
      return model.embed(texts, false);
    },
    async embedQuery(text) {
      open();
      if (queries) return queries.embedOne(text);
      const [vector] = await model.embed([text], true);
      return vector!;
    },
    async close() {
      if (closed) return;
      closed = true;
      await queries?.close();
      await model.dispose();
    },
  };
}
