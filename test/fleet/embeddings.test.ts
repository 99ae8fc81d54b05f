/**
 * Three `serve --http` replicas started at once, cold, on an empty PostgreSQL database,
 * hybrid with the USE embedder over a small catalog (two copies of recordsUpstream.ts):
 * every text the dense index needs is embedded once for the fleet (the replicas claim
 * batches, and wait for each other's vectors), every replica builds its dense index, and a
 * find_tools through HAProxy ranks with it.
 *
 * Each replica logs, per index build, how many texts it embedded itself (`curator: document
 * embeddings ready`, `embedded`, at debug level); their sum over the fleet must equal the
 * rows of the embeddings table, one per distinct text.
 * Needs the `haproxy` binary and TOOL_CURATOR_TEST_PG (.ci/run provides both).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fleet, recordsUpstream, skipFleet } from '../helpers/fleet.js';
import { createDatabase, dropDatabase } from '../helpers/pgDatabase.js';

const skip = skipFleet('embeddings.test.ts', { postgres: true });

describe.skipIf(skip)('three replicas cold on an empty PostgreSQL database', () => {
  let fleet: Fleet;
  let database: { name: string; url: string };
  const dir = mkdtempSync(join(tmpdir(), 'tc-fleet-embed-'));

  beforeAll(async () => {
    database = await createDatabase();
    const personas = join(dir, 'personas.yaml');
    writeFileSync(personas, JSON.stringify({ student: { allow: ['*'], confirm: 'actions' } }));
    fleet = await Fleet.start({
      replicas: 3,
      store: database.url,
      logLevel: 'debug',
      config: {
        upstreams: { alpha: recordsUpstream('alpha'), beta: recordsUpstream('beta') },
        curator: { mode: 'hybrid', embedder: { provider: 'use', queryWorkers: 0 } },
        policy: { personas },
      },
    });
    // Upstreams start independently: an index is built as each arrives. Wait for the one over the whole catalog (8 tools) with its dense part.
    await Promise.all(fleet.replicas.map((r) => r.process.line(/^(?=.*"msg":"curator index built")(?=.*"tools":8\b)(?=.*"dense":true)/, 600_000, `${r.name}: dense index over the 8 tools`)));
  }, 900_000);
  afterAll(async () => {
    await fleet?.stop();
    if (database) await dropDatabase(database.name);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('embed each text once for the fleet, and each replica ranks with the shared vectors', async () => {
    const embeddedBy = fleet.replicas.map((r) =>
      r.process.matches(/"msg":"curator: document embeddings ready"/).map((m) => JSON.parse(m.input) as { embedder: string; embedded: number; vectors: number }),
    );
    for (const [i, builds] of embeddedBy.entries()) expect(builds.length, `${fleet.replicas[i]!.name} built no dense index`).toBeGreaterThan(0);
    const embedded = embeddedBy.flat().reduce((n, b) => n + b.embedded, 0);
    const embedders = new Set(embeddedBy.flat().map((b) => b.embedder));
    expect(embedders.size).toBe(1);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      // The document vectors of that embedder (the catalog trust sits beside them under `<id>#trust`).
      const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM embeddings WHERE embedder = $1', [...embedders]);
      const stored = Number(rows[0]!.n);
      const all = (await client.query<{ embedder: string; n: string }>('SELECT embedder, count(*) AS n FROM embeddings GROUP BY embedder')).rows;
      expect(stored, `rows per embedder: ${JSON.stringify(all)}; builds: ${JSON.stringify(embeddedBy)}`).toBeGreaterThanOrEqual(4);
      const per = embeddedBy.map((builds, i) => `${fleet.replicas[i]!.name} ${builds.map((b) => b.embedded).join('+')}`).join(', ');
      expect(embedded, `texts embedded per replica: ${per}; rows: ${stored}`).toBe(stored);
    } finally {
      await client.end();
    }

    const host = await fleet.host();
    const found = (await host.client.callTool({ name: 'find_tools', arguments: { query: 'put a record away so it stops showing in listings' } })) as CallToolResult;
    const names = (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names[0], names.join(', ')).toMatch(/archive_record$/);
    await host.close();
  }, 300_000);
});
