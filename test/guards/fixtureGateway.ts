/**
 * A gateway config over one fixture upstream of test/guards/fixtures (an SDK McpServer over
 * stdio, plain JavaScript) in a fresh temp dir: BM25 only, its own store, one persona.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';

export interface FixtureGateway {
  dir: string;
  configPath: string;
}

/**
 * @param upstream the fixture's name: `bank` runs fixtures/bank.mjs.
 * @param persona the session's persona: its name and its personas.yaml entry.
 * @param extra more gateway.config.yaml keys (`confirmation`, `definitions`, `session`, …), merged at top level.
 */
export function fixtureGateway(upstream: string, persona: { name: string; rules: Record<string, unknown> }, extra: Record<string, unknown> = {}): FixtureGateway {
  const dir = mkdtempSync(join(tmpdir(), `tc-${upstream}-`));
  writeFileSync(join(dir, 'personas.yaml'), dump({ [persona.name]: persona.rules }));
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(
    configPath,
    dump({
      upstreams: { [upstream]: { command: process.execPath, args: [join(import.meta.dirname, 'fixtures', `${upstream}.mjs`)] } },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      policy: { personas: 'personas.yaml' },
      session: { persona: persona.name },
      ...extra,
    }),
  );
  return { dir, configPath };
}
