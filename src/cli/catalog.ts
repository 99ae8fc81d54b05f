/**
 * The commands that look at the catalog without serving a host: `select` (one query
 * ranked as find_tools ranks it; from the catalog snapshot when there is one), `tools`
 * (the upstreams and their tools, listed live) and `index` (build the embeddings index,
 * and with --write-vectors a vector file of the catalog).
 */
import { resolve } from 'node:path';
import type { ToolRecord } from '../catalog/types.js';
import type { LoadedConfig } from '../config/load.js';
import type { BuildProgress } from '../curator/progress.js';
import type { Selection } from '../curator/types.js';
import { readSnapshot, snapshotAge } from '../gateway/catalogSnapshot.js';
import { extraContext, startCurator } from '../gateway/curatorSetup.js';
import { Gateway } from '../gateway/gateway.js';
import { scopeOf } from '../learning/learning.js';
import { progressBar } from './progressView.js';
import { formatSelection, selectionJson } from './selectView.js';
import { writeVectors } from '../gateway/vectors.js';
import { Policy } from '../policy/policy.js';
import { openConfiguredStore } from '../config/store.js';
import type { FlagsOf } from './commands.js';
import { checkPersona, config, identity, snapshotPatternIssues, strictError } from './session.js';

const out = (text: string) => process.stdout.write(text);
const note = (text: string) => process.stderr.write(`${text}\n`);

/** Ranks `query` over the catalog snapshot: no upstream is started. */
async function selectFromSnapshot(loaded: LoadedConfig, tools: ToolRecord[], query: string, persona: string | undefined, topK: number): Promise<Selection> {
  const store = await openConfiguredStore(loaded);
  const { curator, embedder } = startCurator(loaded, store.embeddings);
  try {
    await curator.buildIndex(tools, extraContext(loaded));
    return await curator.select(query, new Policy(loaded.personas).allowed(persona, tools), { topK, explain: true });
  } finally {
    await embedder.then((e) => e?.close()).catch(() => undefined);
    await store.close();
  }
}

/** Ranks `query` over the catalog of the upstreams, started for it (and the snapshot written for next time). */
async function selectLive(loaded: LoadedConfig, query: string, persona: string | undefined, topK: number, strict: boolean): Promise<Selection> {
  const gateway = await Gateway.start(loaded);
  try {
    const refused = strict ? strictError(loaded, gateway.patternIssues) : undefined;
    if (refused) throw refused;
    // With learning on, the persona's learned exemplars count as they do for its sessions (no tenant: static tokens, stdio).
    const scope = gateway.learning ? { learnedScope: scopeOf({ persona }) } : {};
    return await gateway.curator.select(query, gateway.allowedFor(persona), { topK, explain: true, ...scope });
  } finally {
    await gateway.close();
  }
}

export async function select(query: string, flags: FlagsOf<'select'>): Promise<void> {
  const loaded = config(flags);
  const { persona } = identity(flags, loaded);
  checkPersona(loaded, persona);
  // --mode and --fusion override the config for this one query, e.g. to compare them.
  if (flags.mode) loaded.config.curator.mode = flags.mode;
  if (flags.fusion) loaded.config.curator.fusion = flags.fusion;
  const topK = flags['top-k'] ?? loaded.config.curator.top_k;
  const snapshot = flags.refresh ? undefined : readSnapshot(loaded);
  let selection: Selection;
  if (snapshot) {
    note(`catalog: ${snapshot.tools.length} tools from ${snapshot.path}, listed ${snapshotAge(snapshot.writtenAt)}; --refresh lists the upstreams again`);
    const refused = flags.strict ? strictError(loaded, snapshotPatternIssues(loaded, snapshot.tools)) : undefined;
    if (refused) throw refused;
    selection = await selectFromSnapshot(loaded, snapshot.tools, query, persona, topK);
  } else {
    selection = await selectLive(loaded, query, persona, topK, flags.strict === true);
  }
  out(flags.json ? `${JSON.stringify(selectionJson(selection), null, 2)}\n` : formatSelection(selection, Boolean(flags.explain)));
}

export async function tools(flags: FlagsOf<'tools'>): Promise<void> {
  const loaded = config(flags);
  const persona = flags.persona;
  if (persona !== undefined) checkPersona(loaded, persona);
  const gateway = await Gateway.start(loaded, { noEmbedder: true });
  try {
    const refused = flags.strict ? strictError(loaded, gateway.patternIssues) : undefined;
    if (refused) throw refused;
    const list = persona ? gateway.allowedFor(persona) : gateway.catalog;
    if (flags.json) {
      out(`${JSON.stringify({ upstreams: gateway.pool.status(), tools: list }, null, 2)}\n`);
      return;
    }
    for (const s of gateway.pool.status()) out(`# ${s.name}: ${s.state}${s.era ? ` (protocol ${s.era})` : ''}, ${s.tools} tools${s.error ? ` (${s.error})` : ''}\n`);
    for (const t of list) out(`${t.server}\t${t.name}\t${t.isAction ? 'action' : 'read'}\t${t.description.split('\n')[0]!.slice(0, 100)}\n`);
    out(`${list.length} tools${persona ? ` allowed for ${persona}` : ''}\n`);
  } finally {
    await gateway.close();
  }
}

/**
 * Builds the index as `serve` would, then exits. With --write-vectors the catalog is only
 * listed (BM25), its texts are embedded once for the file, and the store is seeded from it.
 */
export async function index(flags: FlagsOf<'index'>): Promise<void> {
  const loaded = config(flags);
  const file = flags['write-vectors'];
  const gateway = await Gateway.create(loaded, { noEmbedder: file !== undefined });
  try {
    // On a terminal, a bar that redraws in place; elsewhere the curator's progress log lines suffice.
    const bar = process.stderr.isTTY ? (p: BuildProgress) => process.stderr.write(`\r${progressBar(p)}`) : undefined;
    if (bar) gateway.on('progress', bar);
    await gateway.ready;
    const refused = flags.strict ? strictError(loaded, gateway.patternIssues) : undefined;
    if (refused) throw refused;
    if (file === undefined) {
      if (bar) process.stderr.write('\n');
      out(`indexed ${gateway.catalog.length} tools (${gateway.curator.mode})\n`);
      return;
    }
    const written = await writeVectors(loaded, gateway.catalog, gateway.extraContext, resolve(file), { cache: gateway.store.embeddings, onProgress: bar });
    if (bar) process.stderr.write('\n');
    out(`wrote ${written.vectors} vectors of ${written.embedder} for ${gateway.catalog.length} tools to ${file} (and into the store)\n`);
  } finally {
    await gateway.close();
  }
}
