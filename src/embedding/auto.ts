/**
 * `embedder: auto` picks transformers when its model can be had, else USE Lite, and asks
 * the network only when nothing else can tell. In order:
 * 1. @huggingface/transformers is not installed → `use`.
 * 2. The model's files are on this machine — `<localModelPath>/<model>/` or the
 *    transformers cache `<cacheDir>/<model>/` holds config.json, tokenizer.json,
 *    tokenizer_config.json and the dtype's `onnx/model*.onnx` → transformers, loaded with
 *    remote models off (not even an optional file is asked of the hub) and no deadline.
 * 3. `allowRemoteModels: false` → `use`: nothing local, and no download allowed.
 * 4. A load of this model from this hub failed less than a day ago (hubMemo.ts) → `use`.
 * 5. Otherwise a load from the hub within `autoTimeoutMs`, as before; a failure is
 *    remembered (4), a success leaves the model in the cache (2).
 * The reason for the choice goes with it (index.ts logs it as `embedder: <id> (<why>)`).
 */
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { log } from '../log.js';
import { describeError } from './errors.js';
import { MEMO_FILE, memoKey, recentFailure, rememberFailure, RETRY_MS } from './hubMemo.js';
import { createTransformersEmbedder, loadTransformers, TRANSFORMERS_PACKAGE, TransformersNotInstalledError, transformersSettingsSchema } from './transformers.js';
import type { Embedder } from './types.js';
import { createUseEmbedder, useSettingsSchema } from './use.js';

/** The `auto` embedder's config: transformers settings + use settings + `autoTimeoutMs`. */
export const autoSchema = z.object({
  provider: z.literal('auto'),
  ...transformersSettingsSchema.shape,
  ...useSettingsSchema.shape,
  /**
   * How long a download of the transformers model from the hub may take before `use` is
   * taken instead, in ms. Default 5000. Model files already on the machine are loaded
   * without a deadline, and without asking the hub (auto.ts).
   */
  autoTimeoutMs: z.number().int().positive().default(5000),
}).strict();

type AutoConfig = z.output<typeof autoSchema>;

/** The weight file's suffix transformers.js reads for each dtype (its DEFAULT_DTYPE_SUFFIX_MAPPING). */
const ONNX_SUFFIX: Record<string, string> = { fp32: '', fp16: '_fp16', q8: '_quantized', int8: '_int8', uint8: '_uint8', q4: '_q4', bnb4: '_bnb4', q4f16: '_q4f16' };

const exists = (file: string) => access(file).then(() => true, () => false);

/** The dtype `auto` stands for on the CPU: the model's own choice in config.json, else fp32 (as transformers.js decides). */
async function cpuDtype(dir: string, dtype: string): Promise<string> {
  if (dtype !== 'auto') return dtype;
  const config = JSON.parse(await readFile(path.join(dir, 'config.json'), 'utf8').catch(() => '{}')) as { 'transformers.js_config'?: { dtype?: unknown } };
  const own = config['transformers.js_config']?.dtype;
  return typeof own === 'string' && own in ONNX_SUFFIX ? own : 'fp32';
}

/** The first of `dirs` holding every file a feature-extraction load of the model at `dtype` reads, or undefined. */
async function modelFilesIn(dirs: string[], dtype: string): Promise<string | undefined> {
  for (const dir of dirs) {
    const weights = `onnx/model${ONNX_SUFFIX[await cpuDtype(dir, dtype)] ?? ''}.onnx`;
    const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', weights];
    if ((await Promise.all(files.map((f) => exists(path.join(dir, f))))).every(Boolean)) return dir;
  }
  return undefined;
}

/** The embedder `auto` settles on, and why. @throws when `use` cannot load either. */
export async function chooseAuto(c: AutoConfig): Promise<{ embedder: Embedder; why: string }> {
  const { autoTimeoutMs, workers, ...transformers } = c;
  const use = async (why: string) => ({ embedder: await createUseEmbedder({ workers, queryWorkers: c.queryWorkers, batchSize: c.batchSize }), why });
  const unavailable = `transformers model ${c.model} not available`;
  let env: Awaited<ReturnType<typeof loadTransformers>>['env'];
  try {
    env = (await loadTransformers()).env;
  } catch (err) {
    return use(err instanceof TransformersNotInstalledError ? `auto: ${TRANSFORMERS_PACKAGE} is not installed` : `${unavailable}: ${describeError(err)}`);
  }
  const cacheDir = c.cacheDir ?? env.cacheDir ?? undefined;
  const places = [path.resolve(c.localModelPath ?? env.localModelPath, c.model), ...(cacheDir ? [path.resolve(cacheDir, c.model)] : [])];
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);

  const local = await modelFilesIn(places, c.dtype);
  if (local) {
    try {
      return { embedder: await createTransformersEmbedder({ ...transformers, allowRemoteModels: false }), why: `auto: model files in ${local}, loaded in ${ms()} ms` };
    } catch (err) {
      return use(`${unavailable}: its files in ${local} did not load: ${describeError(err)}`);
    }
  }
  const absent = `${unavailable}: not on this machine (${places.join(', ')})`;
  if (!c.allowRemoteModels) return use(`${absent} and allowRemoteModels is false`);

  const memo = cacheDir ? path.join(cacheDir, MEMO_FILE) : undefined;
  const key = memoKey(c.remoteHost ?? env.remoteHost, c.model, c.dtype);
  const failed = memo ? await recentFailure(memo, key) : undefined;
  if (failed) {
    const again = new Date(Date.parse(failed.failedAt) + RETRY_MS).toISOString();
    return use(`${absent}; the hub failed for it at ${failed.failedAt} (${failed.reason}), so it is not asked again before ${again} (delete ${memo} to ask now)`);
  }

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`not loaded within ${autoTimeoutMs} ms`)), autoTimeoutMs);
  try {
    return { embedder: await createTransformersEmbedder(transformers, { signal: deadline.signal }), why: `auto: downloaded and loaded in ${ms()} ms` };
  } catch (err) {
    const reason = describeError(err);
    if (!memo) return use(`${unavailable}: ${reason}`);
    const remembered = await rememberFailure(memo, key, { failedAt: new Date().toISOString(), reason }).then(
      () => `; the hub is not asked again for a day (${memo})`,
      (e: Error) => (log.debug({ err: e.message, memo }, 'embedder: the hub failure could not be remembered'), ''),
    );
    return use(`${unavailable}: ${reason}${remembered}`);
  } finally {
    clearTimeout(timer);
  }
}
