import { defineConfig } from 'vitest/config';

// Integration tests spawn real MCP servers and the built gateway (dist/, built by the
// `pretest` script). Two cores: keep file parallelism modest so spawned servers are
// not starved into timeouts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Vectors of the catalogs tests rank, embedded once with no time limit: the reference
    // servers' and the public slice's (test/setup/). The university catalog's ship in the repo.
    globalSetup: ['test/setup/referenceVectors.ts', 'test/setup/publicVectors.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
