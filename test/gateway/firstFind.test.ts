/**
 * A find_tools that arrives while the first catalog's index is being built, and a newer
 * catalog supersedes that build (an upstream arriving, a reload): the superseded build
 * publishes nothing, yet its `indexed` promise resolves. find_tools must answer from the
 * newer catalog's BM25 index, never from no index at all — before, it fell through to the
 * unranked allowed pool ("confidence 1", no retrievers), which a newcomer's first query met
 * in 5 of 13 fresh starts of the university example (docs/PROTOCOL.md: BM25 until the
 * dense index is built). A real stdio upstream with 3,000 tools, so the first BM25 build
 * spans many turns of the event loop; the gateway in process. The newer build is started on
 * the gateway's curator directly, the moment find_tools begins to wait: an upstream's arrival
 * starts the same build, at a moment a test cannot choose.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { ROOT } from '../helpers/reference.js';

const dir = mkdtempSync(join(tmpdir(), 'tc-first-find-'));
let gateway: Gateway | undefined;
afterAll(async () => {
  await gateway?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('find_tools during a superseded first index build answers from BM25, ranked', { timeout: 180_000 }, async () => {
  const file = join(dir, 'gateway.config.yaml');
  writeFileSync(
    file,
    JSON.stringify({
      upstreams: { many: { command: process.execPath, args: [join(ROOT, 'dist/bench/fixtures/manyTools.js'), '3000'] } },
      curator: { mode: 'bm25', top_k: 5, embedder: 'none' },
      store: join(dir, 'store.db'),
      timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
    }),
  );
  gateway = await Gateway.create(loadConfig(file), { noEmbedder: true });
  await gateway.catalogReady;
  // The first build has begun; a newer catalog's build (here the same tools, as a rebuild
  // after an upstream arrives would start it) supersedes it before its BM25 is published.
  const found = gateway.findTools('export the invoice records of an account', undefined);
  const newer = gateway.curator.buildIndex([...gateway.catalog], gateway.extraContext);
  const selection = await found;
  expect(selection.mode).toBe('bm25');
  expect(selection.tools.length).toBeGreaterThan(0);
  expect(selection.tools.length).toBeLessThanOrEqual(5);
  expect(selection.tools[0]!.name).toMatch(/^export_invoice/);
  expect(selection.confidence).toBeLessThan(1);
  await newer;
});
