/**
 * `npm run bench`: every benchmark in turn, each printing a Markdown table with its
 * figures. Speed and memory targets are checked here, by reading the figures, not by
 * timed tests. Run after `npm run build`.
 */
import { cpus, totalmem } from 'node:os';
import { createEmbedder } from '../src/embedding/index.js';
import { benchBurst } from './burst.js';
import { benchEmbed } from './embed.js';
import { benchFleet } from './fleet.js';
import { benchFuzzMemory } from './fuzzMemory.js';
import { benchGateways } from './gateway.js';
import { benchHung } from './hung.js';
import { benchHttp } from './http.js';
import { benchLibrary } from './library.js';
import { benchNames } from './names.js';
import { benchOverhead } from './overhead.js';
import { benchScale } from './scale.js';
import { benchSecrets } from './secrets.js';
import { benchSelect } from './select.js';
import { benchSizes } from './sizes.js';
import { benchStoreCost } from './storeCost.js';

const out = (title: string, lines: string[]) => process.stdout.write(`\n## ${title}\n\n${lines.join('\n')}\n`);

process.stdout.write(
  `# Tool Curator benchmarks — ${new Date().toISOString()}\n` +
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}\n`,
);
out('Gateway start-up and latency over real upstreams', await benchGateways());
out('Gateway memory under many Streamable HTTP sessions (child process, university example)', await benchHttp());
out('Stdio gateway memory around a 10,000-message fuzz: before, right after, idling, after a forced GC', await benchFuzzMemory());
out('Gateway per-call overhead (direct, stdio, HTTP, mcp-proxy), 100,000-tool upstream, 50 concurrent HTTP sessions', await benchOverhead());
out('A fleet behind HAProxy: 1 vs 2 replicas, 100 concurrent HTTP sessions', await benchFleet());
out('PostgreSQL vs SQLite per audited tools/call', await benchStoreCost());
out('initialize, tools/list and tools/call during a burst of 50 concurrent find_tools (query embedding on the main thread vs on query workers)', await benchBurst());
out('A hung upstream at start: when tools/list, find_tools and calls answer', await benchHung());
const embedder = await createEmbedder({ provider: 'use' });
try {
  out('Curator select() on public catalogs (USE)', await benchSelect(embedder));
  out('Curator on larger catalogs: the union of the public sets (770 tools) and synthetic copies (USE)', await benchScale(embedder));
  out('Library: import cost and curation per model call for each adapter (USE, 191 tools)', await benchLibrary(embedder));
} finally {
  await embedder.close();
}
out('Curator at 191 / 1k / 10k tools (100k with BENCH_100K=1): index build, stages, memory; cheap vectors, plus a cold USE build', await benchSizes());
out('Name guard at 1k / 10k / 100k look-alike names: misspelled-name lookups', await benchNames());
out('Secret redaction of what is sent to a host: small and 1 MB results, typical and 10,000-user held sets', await benchSecrets());
out('USE embedder', await benchEmbed(400));
const rss = process.memoryUsage();
out('Memory of this process at the end', [`rss ${(rss.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(rss.heapUsed / 2 ** 20).toFixed(0)} MiB`]);
