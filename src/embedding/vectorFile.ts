/**
 * Vector files: document vectors computed ahead of time, shipped beside a catalog so the
 * first start needs no embedding (`tool-curator index --write-vectors FILE` writes one,
 * `curator.vectors` seeds the embeddings cache from it). A vector is keyed by its text,
 * as in the cache: a text that changed since the file was written is simply not found,
 * and only it is embedded.
 *
 * Layout: one line of JSON, `{"format":"tool-curator-vectors","version":1,"embedder":…,
 * "dim":…,"encoding":"f32le","texts":[…]}`, then `texts.length × dim` little-endian
 * float32 values, the vectors in the order of `texts`. Stored exactly (no quantization),
 * so a seeded index ranks exactly as a cold build does.
 */
import { closeSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';

const FORMAT = 'tool-curator-vectors';
const VERSION = 1;
/** Largest vector file read, in bytes: 1 GiB is about 500,000 vectors of 512 dimensions. */
export const MAX_VECTOR_FILE_BYTES = 1024 ** 3;

export interface VectorEntry {
  text: string;
  vector: Float32Array;
}

export interface VectorFile {
  /** Embedder id the vectors were computed with (`Embedder.id`, e.g. `use:lite-512`). */
  embedder: string;
  dim: number;
  entries: VectorEntry[];
}

/** A vector file that cannot be used; the message names the path and what is wrong. */
export class VectorFileError extends Error {
  constructor(readonly path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'VectorFileError';
  }
}

/** Writes `file` to `path` (through a temporary file beside it, so a reader never sees half of one). */
export function writeVectorFile(path: string, file: VectorFile): void {
  const header = { format: FORMAT, version: VERSION, embedder: file.embedder, dim: file.dim, encoding: 'f32le', texts: file.entries.map((e) => e.text) };
  const body = Buffer.alloc(file.entries.length * file.dim * 4);
  file.entries.forEach(({ text, vector }, row) => {
    if (vector.length !== file.dim) throw new Error(`vector of "${text.slice(0, 40)}" has ${vector.length} dimensions, not ${file.dim}`);
    vector.forEach((x, i) => body.writeFloatLE(x, (row * file.dim + i) * 4));
  });
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(header)}\n`);
    writeSync(fd, body);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * Reads a vector file.
 * @throws VectorFileError for a missing, oversized or malformed file.
 */
export function readVectorFile(path: string): VectorFile {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    throw new VectorFileError(path, (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message);
  }
  if (size > MAX_VECTOR_FILE_BYTES) throw new VectorFileError(path, `${size} bytes, over the ${MAX_VECTOR_FILE_BYTES}-byte limit`);
  const data = readFileSync(path);
  const newline = data.indexOf(0x0a);
  if (newline < 0) throw new VectorFileError(path, 'not a vector file (no header line)');
  let header: { format?: unknown; version?: unknown; embedder?: unknown; dim?: unknown; encoding?: unknown; texts?: unknown };
  try {
    header = JSON.parse(data.subarray(0, newline).toString('utf8')) as typeof header;
  } catch {
    throw new VectorFileError(path, 'not a vector file (header is not JSON)');
  }
  if (header.format !== FORMAT) throw new VectorFileError(path, `not a vector file (format ${JSON.stringify(header.format)})`);
  if (header.version !== VERSION || header.encoding !== 'f32le') throw new VectorFileError(path, `version ${String(header.version)}, encoding ${String(header.encoding)}: this build reads version ${VERSION}, f32le`);
  const { embedder, dim, texts } = header;
  if (typeof embedder !== 'string' || !Number.isInteger(dim) || (dim as number) < 1 || !Array.isArray(texts) || !texts.every((t) => typeof t === 'string')) {
    throw new VectorFileError(path, 'header needs embedder (string), dim (positive integer) and texts (strings)');
  }
  const width = dim as number;
  const body = data.subarray(newline + 1);
  if (body.length !== texts.length * width * 4) throw new VectorFileError(path, `${body.length} bytes of vectors for ${texts.length} texts × ${width} dimensions (truncated or corrupt)`);
  const view = new DataView(body.buffer, body.byteOffset, body.length);
  const entries = (texts as string[]).map((text, row) => {
    const vector = new Float32Array(width);
    for (let i = 0; i < width; i++) vector[i] = view.getFloat32((row * width + i) * 4, true);
    return { text, vector };
  });
  return { embedder, dim: width, entries };
}

/** What seeding needs of the embeddings cache (the store's EmbeddingStore, synchronous or not). */
export interface EmbeddingCache {
  get(embedderId: string, texts: string[]): (Float32Array | undefined)[] | Promise<(Float32Array | undefined)[]>;
  put(embedderId: string, entries: VectorEntry[]): void | Promise<void>;
}

/**
 * Puts the vectors of `file` the cache lacks into it, under the file's embedder id.
 * @returns how many were added (0 when the cache had them all).
 */
export async function seedCache(cache: EmbeddingCache, file: VectorFile): Promise<number> {
  const cached = await cache.get(file.embedder, file.entries.map((e) => e.text));
  const missing = file.entries.filter((_, i) => cached[i] === undefined);
  if (missing.length > 0) await cache.put(file.embedder, missing);
  return missing.length;
}
