/**
 * Exposed names through the real gateway and store: the MCP reference memory server as
 * upstream `notes`; then, as after a config edit and restart, a second memory server
 * `scratch` listed before it. `notes` keeps the plain names its hosts know (and the pin on
 * one of them keeps working); `scratch` gets the prefixed ones.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { gatewayConfigSchema, personasSchema } from '../../src/config/schema.js';
import type { LoadedConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { ROOT } from '../helpers/reference.js';

const memory = (dir: string, name: string) => ({ command: process.execPath, args: [join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')], env: { MEMORY_FILE_PATH: join(dir, `${name}.jsonl`) } });

function loaded(dir: string, upstreams: Record<string, unknown>): LoadedConfig {
  const config = gatewayConfigSchema.parse({
    upstreams,
    curator: { mode: 'bm25', embedder: 'none' },
    store: join(dir, 'store.db'),
    exposure: { pinned: ['read_graph'] },
    timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
  });
  return { file: join(dir, 'gateway.config.yaml'), baseDir: dir, config, personas: personasSchema.parse({}), dependencies: {}, synonyms: {}, exemplars: {} };
}

describe('exposed names survive restarts and later upstreams', () => {
  test('the first owner keeps the plain names across a restart that adds a clashing upstream before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-gw-names-'));
    const first = await Gateway.start(loaded(dir, { notes: memory(dir, 'notes') }), { noEmbedder: true });
    const plain = first.catalog.map((t) => t.name);
    await first.close();
    expect(plain).toContain('read_graph');
    expect(plain.every((n) => !n.includes('__'))).toBe(true);

    const second = await Gateway.start(loaded(dir, { scratch: memory(dir, 'scratch'), notes: memory(dir, 'notes') }), { noEmbedder: true });
    try {
      const byServer = (s: string) => second.catalog.filter((t) => t.server === s).map((t) => t.name);
      expect(byServer('notes')).toEqual(plain);
      expect(byServer('scratch')).toEqual(plain.map((n) => `scratch__${n}`));
      expect(second.renamed).toEqual([]);
      // The pinned name still means notes' read_graph.
      expect(second.catalog.find((t) => t.name === 'read_graph')?.server).toBe('notes');
      for (const t of second.catalog) expect(t.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
    } finally {
      await second.close();
    }
  }, 240_000);
});
