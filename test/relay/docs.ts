/**
 * The `docs` fixture (fixtures/docs.mjs) behind the built gateway, for the persona of issue
 * 18: a gateway configuration of its own per call, so a test may edit its personas.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { FIXTURES } from './setup.js';

export const DOCS = join(FIXTURES, 'docs.mjs');
export const DOCS_TOKEN = 'reader-token-0123456789abcdef';

/** The persona of issue 18. */
export const DOCS_PERSONAS = {
  reader: {
    allow: ['*'],
    // The third deny pattern is written as a person writes a path, with a space; URIs carry `%20`.
    resources: { allow: ['docs.file:///*', 'docs.secret://*'], deny: ['docs.file:///secret/*', 'docs.secret://*', 'docs.file:///secret dir/*'] },
    prompts: { allow: ['docs.*'] },
    confirm: 'none',
  },
};

/** A fresh folder with gateway.config.yaml over `docs` and personas.yaml holding `personas`. */
export function docsConfig(personas: object = DOCS_PERSONAS): { configPath: string; personasPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tc-docs-'));
  const personasPath = join(dir, 'personas.yaml');
  writeFileSync(personasPath, dump(personas));
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(
    configPath,
    dump({
      upstreams: { docs: { command: process.execPath, args: [DOCS] } },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      policy: { personas: 'personas.yaml' },
      http: { tokens: [{ token: DOCS_TOKEN, persona: 'reader' }] },
      // Hosts' first lists wait for the upstream, however slowly it starts on a loaded machine.
      timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 },
    }),
  );
  return { configPath, personasPath };
}
