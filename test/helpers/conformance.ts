/**
 * The conformance upstream (test/conformance/upstream.ts, built to dist/) behind an
 * in-process gateway: a temp config with that one upstream, over stdio or Streamable HTTP.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { ROOT } from './reference.js';

export const UPSTREAM_JS = join(ROOT, 'dist/test/conformance/upstream.js');

/**
 * Writes a gateway config whose one upstream `conformance` is the conformance upstream,
 * spawned over stdio, or reached at `upstreamUrl` when given. `extra` is merged at top level.
 * @returns the config file's path.
 */
export function conformanceConfig(extra: Record<string, unknown> = {}, upstreamUrl?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-conf-'));
  const upstream = upstreamUrl ? { url: upstreamUrl, transport: 'streamable-http' } : { command: process.execPath, args: [UPSTREAM_JS] };
  // Its test tools change no state but most carry no annotations (an action, by MCP's defaults): read-only, as in gateway.*.yaml.
  const config = { upstreams: { conformance: upstream }, curator: { mode: 'bm25' }, store: join(dir, 'store.db'), confirmation: { read_only: ['conformance.*'] }, ...extra };
  const path = join(dir, 'gateway.config.yaml');
  writeFileSync(path, dump(config));
  return path;
}
