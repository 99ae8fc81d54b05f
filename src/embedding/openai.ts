/**
 * The `openai` provider: any OpenAI-compatible `POST <baseUrl>/embeddings` endpoint
 * (OpenAI, Ollama, Hugging Face TEI, vLLM, LM Studio). Batched, with a per-request
 * timeout, retries with exponential backoff, and a check of every answer's shape.
 */
import { z } from 'zod';
import { log } from '../log.js';
import { describeError } from './errors.js';
import type { Embedder } from './types.js';
import { chunks, l2Normalize } from './vector.js';

/** Settings of the `openai` provider. */
export const openaiSettingsSchema = z.object({
  /** API base as in the OpenAI SDKs, `/v1` included: `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseUrl: z.url(),
  /** Embedding model name, e.g. `text-embedding-3-small`, `nomic-embed-text`. */
  model: z.string().min(1),
  /** Sent as `Authorization: Bearer <apiKey>`; local servers usually need none. */
  apiKey: z.string().optional(),
  /** Requested vector width (text-embedding-3 models can shorten); also checked on every answer. */
  dimensions: z.number().int().positive().optional(),
  /** Texts per request, default 64: well under every server's input limit (OpenAI: 2048). */
  batchSize: z.number().int().min(1).max(2048).default(64),
  /** Per-request timeout in ms, default 30000: a cold local model can take seconds to load. */
  timeoutMs: z.number().int().positive().default(30_000),
  /** Extra attempts after a timeout, network error, 408, 429 or 5xx; default 2. Backoff 0.5 s, 1 s, 2 s… */
  retries: z.number().int().min(0).max(10).default(2),
});

/** What a caller may pass: `baseUrl` and `model` are required. */
export type OpenAISettings = z.input<typeof openaiSettingsSchema>;

const BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

/** An HTTP answer worth another attempt (the server may recover), with its wait hint. */
class RetryableError extends Error {
  constructor(message: string, readonly retryAfterMs?: number) {
    super(message);
  }
}

interface EmbeddingsResponse {
  data?: Array<{ embedding?: unknown; index?: number }>;
}

/**
 * Checks the count and width of an answer and returns its vectors in input order
 * (answers carry an `index` per item; servers may reorder).
 */
function parseVectors(body: EmbeddingsResponse, expected: number, dim: number | undefined): Float32Array[] {
  const data = body.data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw new Error(`embeddings endpoint returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${expected} inputs`);
  }
  const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  const width = dim ?? (Array.isArray(ordered[0]!.embedding) ? ordered[0]!.embedding.length : 0);
  return ordered.map((item, i) => {
    const e = item.embedding;
    if (!Array.isArray(e) || e.length !== width || width === 0 || !e.every((x) => typeof x === 'number')) {
      throw new Error(`embeddings endpoint returned a vector of length ${Array.isArray(e) ? e.length : 'none'} `
        + `at position ${i}, expected ${width || 'a non-empty array of numbers'}`);
    }
    return l2Normalize(Float32Array.from(e as number[]));
  });
}

/**
 * Connects to the endpoint and embeds one probe text to learn (and check) the vector
 * width. The id is `openai:<model>` or `openai:<model>:<dimensions>`.
 *
 * ### Usage
 * ```ts
 * const e = await createOpenAIEmbedder({ baseUrl: 'http://localhost:11434/v1', model: 'nomic-embed-text' });
 * const [v] = await e.embedDocuments(['Read a file']); // unit length, e.dim numbers
 * ```
 * @throws when the endpoint is unreachable after the retries, answers with an error
 * status, or returns vectors of the wrong count or width.
 */
export async function createOpenAIEmbedder(settings: OpenAISettings): Promise<Embedder> {
  const s = openaiSettingsSchema.parse(settings);
  const url = `${s.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (s.apiKey) headers.authorization = `Bearer ${s.apiKey}`;

  const attempt = async (input: string[], dim: number | undefined): Promise<Float32Array[]> => {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: s.model, input, ...(s.dimensions ? { dimensions: s.dimensions } : {}) }),
        signal: AbortSignal.timeout(s.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      throw new RetryableError(`POST ${url}: ${timedOut ? `no answer within ${s.timeoutMs} ms` : describeError(err)}`);
    }
    if (!res.ok) {
      const detail = (await res.text().catch(() => '')).slice(0, 300);
      const message = `POST ${url}: HTTP ${res.status} ${res.statusText} ${detail}`.trim();
      if (res.status === 408 || res.status === 429 || res.status >= 500) {
        const retryAfter = Number(res.headers.get('retry-after'));
        throw new RetryableError(message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
      }
      throw new Error(message);
    }
    return parseVectors((await res.json()) as EmbeddingsResponse, input.length, dim);
  };

  const request = async (input: string[], dim: number | undefined): Promise<Float32Array[]> => {
    for (let n = 0; ; n++) {
      try {
        return await attempt(input, dim);
      } catch (err) {
        if (!(err instanceof RetryableError) || n >= s.retries) throw err;
        const wait = Math.min(err.retryAfterMs ?? BACKOFF_MS * 2 ** n, MAX_BACKOFF_MS);
        log.warn({ err: err.message, attempt: n + 1, waitMs: wait }, 'embedder: openai request failed, retrying');
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  };

  const [probe] = await request(['dimension probe'], s.dimensions);
  const dim = probe!.length;
  let closed = false;
  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    if (closed) throw new Error(`openai embedder for ${s.model} is closed`);
    const out: Float32Array[] = [];
    for (const batch of chunks(texts, s.batchSize)) out.push(...(await request(batch, dim)));
    return out;
  };
  return {
    id: s.dimensions ? `openai:${s.model}:${s.dimensions}` : `openai:${s.model}`,
    dim,
    embedDocuments: embed,
    async embedQuery(text) {
      const [vector] = await embed([text]);
      return vector!;
    },
    async close() {
      closed = true;
    },
  };
}
