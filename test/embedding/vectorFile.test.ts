/**
 * Vector files: written and read back exactly, refused with the reason when damaged, and
 * seeding puts into the cache only what it lacks, only for the embedder that computed them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../../src/config/load.js';
import { readVectorFile, seedCache, VectorFileError, writeVectorFile, type VectorFile } from '../../src/embedding/vectorFile.js';
import { seedVectors } from '../../src/gateway/vectors.js';
import { openDb } from '../../src/store/db.js';
import { EmbeddingStore } from '../../src/store/embeddings.js';

const dir = mkdtempSync(join(tmpdir(), 'tc-vectors-'));
const FILE: VectorFile = {
  embedder: 'test:3d',
  dim: 3,
  entries: [
    { text: 'pay my hostel fees', vector: Float32Array.of(0.6, 0.8, 0) },
    { text: 'ünïcode — text\nwith a newline', vector: Float32Array.of(1 / 3, 2 / 3, -2 / 3) },
  ],
};

describe('vector files', () => {
  it('round-trip every text and every float exactly', () => {
    const path = join(dir, 'a.vectors');
    writeVectorFile(path, FILE);
    const back = readVectorFile(path);
    expect(back.embedder).toBe('test:3d');
    expect(back.dim).toBe(3);
    expect(back.entries.map((e) => e.text)).toEqual(FILE.entries.map((e) => e.text));
    expect(back.entries.map((e) => [...e.vector])).toEqual(FILE.entries.map((e) => [...e.vector]));
    // One JSON header line, then 2 × 3 float32.
    const bytes = readFileSync(path);
    expect(bytes.length - bytes.indexOf(0x0a) - 1).toBe(2 * 3 * 4);
  });

  it('refuses a missing, foreign, truncated or mismatched file with the reason', () => {
    const good = readFileSync(join(dir, 'a.vectors'));
    const bad = (name: string, content: Buffer | string) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      try {
        readVectorFile(path);
      } catch (err) {
        expect(err).toBeInstanceOf(VectorFileError);
        return (err as Error).message.slice(path.length + 2);
      }
      throw new Error(`${name} was read`);
    };
    expect(() => readVectorFile(join(dir, 'none.vectors'))).toThrow(`${join(dir, 'none.vectors')}: file not found`);
    expect(bad('b.vectors', '{"format":"something-else"}\n')).toBe('not a vector file (format "something-else")');
    expect(bad('c.vectors', 'no header line')).toBe('not a vector file (no header line)');
    expect(bad('d.vectors', good.subarray(0, good.length - 4))).toBe('20 bytes of vectors for 2 texts × 3 dimensions (truncated or corrupt)');
    expect(() => writeVectorFile(join(dir, 'e.vectors'), { ...FILE, dim: 4 })).toThrow('vector of "pay my hostel fees" has 3 dimensions, not 4');
  });

  it('seeds only what the cache lacks', async () => {
    const cache = new EmbeddingStore(openDb(':memory:'));
    await cache.put('test:3d', [{ text: 'pay my hostel fees', vector: Float32Array.of(0, 0, 1) }]);
    expect(await seedCache(cache, FILE)).toBe(1);
    const [kept, added] = await cache.get('test:3d', FILE.entries.map((e) => e.text));
    expect([...kept!]).toEqual([0, 0, 1]);
    expect([...added!]).toEqual([...FILE.entries[1]!.vector]);
    expect(await seedCache(cache, FILE)).toBe(0);
  });

  it('the config\'s curator.vectors seeds the cache for the embedder that computed them, and only for it', async () => {
    const loaded = { file: join(dir, 'gateway.config.yaml'), baseDir: dir, config: { curator: { vectors: 'a.vectors' } } } as unknown as LoadedConfig;
    const cache = new EmbeddingStore(openDb(':memory:'));
    expect(await seedVectors(loaded, cache, 'use:lite-512')).toBe(0);
    expect(await cache.get('use:lite-512', ['pay my hostel fees'])).toEqual([undefined]);
    expect(await seedVectors(loaded, cache, 'test:3d')).toBe(2);
    const missing = { ...loaded, config: { curator: { vectors: 'gone.vectors' } } } as unknown as LoadedConfig;
    expect(await seedVectors(missing, cache, 'test:3d')).toBe(0);
  });
});
