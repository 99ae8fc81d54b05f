import { defineConfig } from 'vitest/config';

// Integration tests spawn real MCP servers and the built gateway (dist/, built by the
// `pretest` script). Two cores: keep file parallelism modest so spawned servers are
// not starved into timeouts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reference servers' vectors, built once with no time limit (test/setup/referenceVectors.ts).
    globalSetup: ['test/setup/referenceVectors.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
