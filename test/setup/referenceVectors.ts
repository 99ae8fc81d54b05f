/**
 * Vitest global setup: the USE vectors of the MCP reference servers' catalog (filesystem,
 * memory, everything), built once with `tool-curator index --write-vectors` before any
 * test runs, with no time limit and its progress on stderr, and kept in
 * .tool-curator/test/reference.vectors for later runs. Every test config over these
 * servers names the file as `curator.vectors` (helpers/reference.ts), so no test waits
 * for a cold build of the catalog under its own timeout; a text that changed since the
 * file was written is embedded by the test that needs it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { CLI, referenceConfig, ROOT } from '../helpers/reference.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The vector file of the reference servers' catalog. */
    referenceVectors: string;
  }
}

export default function setup(project: TestProject): void {
  const path = join(ROOT, '.tool-curator', 'test', 'reference.vectors');
  if (!existsSync(path)) {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does)`);
    mkdirSync(dirname(path), { recursive: true });
    process.stderr.write(`test setup: embedding the reference servers' catalog once into ${path} (no time limit; later runs reuse it)\n`);
    const { configPath } = referenceConfig({ curator: { mode: 'hybrid', embedder: 'use' } });
    const r = spawnSync(process.execPath, [CLI, 'index', '--write-vectors', path, '--config', configPath], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, TOOL_CURATOR_LOG: 'info', TOOL_CURATOR_LOG_FORMAT: 'pretty' },
    });
    if (r.status !== 0) throw new Error(`building ${path} failed (exit ${r.status}); see the lines above`);
  }
  project.provide('referenceVectors', path);
}
