/**
 * `tool-curator doctor`: checks a configuration end to end without serving — the config
 * files, the store, every upstream (started for real: state, tool count, start and ping
 * latency, auth state; per-user upstreams' authorizations and consent settings), each
 * persona's pattern coverage, and the embedder that would be active and why. Each finding
 * has a level; any error or warning makes the exit code 1.
 */
import { existsSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/server';
import { buildCatalog } from '../catalog/catalog.js';
import { ActionRules } from '../policy/actions.js';
import type { ToolRecord } from '../catalog/types.js';
import { ConfigError, loadConfig, type LoadedConfig } from '../config/load.js';
import type { UpstreamConfig } from '../config/schema.js';
import { openConfiguredStore, storeLocation } from '../config/store.js';
import { createEmbedder, embedderReason } from '../embedding/index.js';
import { patternMatches, Policy } from '../policy/policy.js';
import { isPostgresUrl } from '../store/location.js';
import type { Store } from '../store/types.js';
import { providerFor } from '../upstream/auth/index.js';
import { StoreOAuthProvider } from '../upstream/auth/provider.js';
import { storedMoreScope } from '../upstream/auth/stepUp.js';
import { connectUpstream, withTimeout } from '../upstream/connect.js';
import { listAllTools } from '../upstream/pool.js';
import { learnedCounts } from '../learning/learning.js';
import { approverFindings } from './approvers.js';
import { checkDefinitions } from './definitions.js';
import { perUserFindings } from './perUser.js';
import type { DoctorReport, Finding, Level, PersonaReport, UpstreamReport } from './types.js';

/**
 * The auth state of one upstream as doctor shows it. The OAuth work replaces this hook
 * (`setAuthState`) to report token presence, expiry and the authorization server.
 */
export type AuthStateHook = (name: string, cfg: UpstreamConfig, loaded: LoadedConfig) => Promise<string> | string;

const staticAuthState: AuthStateHook = (_name, cfg) => {
  if ('command' in cfg) return 'n/a (stdio)';
  if (cfg.auth) return 'oauth' in cfg.auth ? 'oauth' : 'client_credentials';
  const headers = Object.keys(cfg.headers ?? {}).map((h) => h.toLowerCase());
  return headers.includes('authorization') ? 'static Authorization header' : 'none';
};

let authState: AuthStateHook = staticAuthState;

/** Installs the hook that reports each upstream's auth state (default: static headers only). */
export function setAuthState(hook: AuthStateHook): void {
  authState = hook;
}

/**
 * Starts `name` as serve would (a remote upstream with `auth` on the tokens in `db`,
 * unattended) and lists its tools.
 */
async function checkUpstream(name: string, cfg: UpstreamConfig, loaded: LoadedConfig, store: Store | undefined): Promise<{ report: UpstreamReport; tools: Tool[] }> {
  const ms = cfg.startup_timeout_ms ?? loaded.config.timeouts.startup_ms;
  const transport = 'command' in cfg ? 'stdio' : 'http';
  const auth = await Promise.resolve(authState(name, cfg, loaded)).catch((err: Error) => `unknown (${err.message})`);
  const provider = 'url' in cfg && store ? providerFor(name, cfg, store) : undefined;
  const t0 = performance.now();
  try {
    const conn = await connectUpstream(name, cfg, loaded.baseDir, ms, provider);
    try {
      const tools = await withTimeout(listAllTools(conn, ms), ms, `tools/list of upstream "${name}"`).catch((err) => Promise.reject(conn.explain?.(err) ?? err));
      const startMs = Math.round(performance.now() - t0);
      const p0 = performance.now();
      // 2026-07-28 has no ping: a fresh server/discover is its round trip.
      await (conn.era === '2025' ? conn.client.ping({ timeout: ms }) : conn.client.discover({ timeout: ms }));
      const pingMs = Math.round(performance.now() - p0);
      const more = provider instanceof StoreOAuthProvider ? await storedMoreScope(provider) : undefined;
      return { report: { name, transport, state: 'ready', era: conn.era, tools: tools.length, startMs, pingMs, auth, ...(more && { moreScope: more }) }, tools };
    } finally {
      await conn.client.close().catch(() => undefined);
    }
  } catch (err) {
    const startMs = Math.round(performance.now() - t0);
    return { report: { name, transport, state: 'failed', tools: 0, startMs, auth, error: (err as Error).message }, tools: [] };
  }
}

function coverage(loaded: LoadedConfig, catalog: ToolRecord[], failed: Set<string>): { personas: PersonaReport[]; findings: Finding[] } {
  const policy = new Policy(loaded.personas);
  const personasFile = loaded.config.policy.personas ?? 'personas.yaml';
  const servers = new Set(Object.keys(loaded.config.upstreams));
  const findings: Finding[] = [];
  const personas = Object.entries(loaded.personas).map(([persona, p]) => {
    const unmatched: PersonaReport['unmatched'] = [];
    for (const [kind, patterns] of [['allow', p.allow], ['deny', p.deny]] as const) {
      patterns.forEach((pattern, i) => {
        if (catalog.some((t) => patternMatches(pattern, t))) return;
        const key = `${persona}.${kind}.${i}`;
        const dot = pattern.indexOf('.');
        const server = dot > 0 ? pattern.slice(0, dot) : undefined;
        // A pattern that may be about an upstream that did not start cannot be judged.
        if (server === undefined || server === '*' ? failed.size > 0 : failed.has(server)) return;
        unmatched.push({ key: `${kind}.${i}`, pattern });
        const why = server !== undefined && server !== '*' && !servers.has(server) ? `no upstream is named "${server}"` : 'it matches no tool';
        findings.push({ check: 'persona', level: 'warn', file: personasFile, key, message: `pattern "${pattern}": ${why}` });
      });
    }
    return { persona, tools: policy.allowed(persona, catalog).length, unmatched };
  });
  findings.push(...visibility(loaded, catalog, policy, personasFile));
  return { personas, findings };
}

/** Allows every tool of every upstream: `*` or `*.*` among its allow patterns (an administrator). */
function allowsEverything(patterns: readonly string[]): boolean {
  return patterns.some((p) => p === '*' || p === '*.*');
}

/**
 * Upstreams whose tools no persona may use, or only a persona that allows everything: a
 * new upstream is visible to no one until a pattern names it, and nothing else says so.
 */
function visibility(loaded: LoadedConfig, catalog: ToolRecord[], policy: Policy, personasFile: string): Finding[] {
  if (policy.open) return [];
  const everything = Object.entries(loaded.personas).filter(([, p]) => allowsEverything(p.allow)).map(([name]) => name);
  const servers = [...new Set(catalog.map((t) => t.server))];
  return servers.flatMap((server): Finding[] => {
    const tools = catalog.filter((t) => t.server === server);
    const seeing = Object.keys(loaded.personas).filter((persona) => tools.some((t) => policy.isAllowed(persona, t)));
    if (seeing.some((persona) => !everything.includes(persona))) return [];
    const who = seeing.length === 0 ? 'no persona' : `only ${seeing.join(', ')} (allow "*")`;
    return [{
      check: 'persona',
      level: 'warn',
      file: personasFile,
      key: `upstreams.${server}`,
      message: `upstream "${server}": its ${tools.length} tools are visible to ${who}; to let a persona use them, add "${server}.*" (or "${server}.<tool>") to its allow list`,
    }];
  });
}

async function checkEmbedder(loaded: LoadedConfig): Promise<{ embedder?: DoctorReport['embedder']; finding: Finding }> {
  const { mode, embedder: cfg } = loaded.config.curator;
  if (mode === 'none' || mode === 'bm25') return { finding: { check: 'embedder', level: 'ok', message: `none: curator mode ${mode} uses no embedder` } };
  try {
    const embedder = await createEmbedder(cfg);
    if (!embedder) return { finding: { check: 'embedder', level: 'warn', message: `none: curator mode ${mode} runs on BM25 only (embedder provider none)` } };
    await embedder.close();
    const why = cfg.provider !== 'auto' ? `provider ${cfg.provider} configured` : (embedderReason(embedder) ?? 'auto');
    return { embedder: { id: embedder.id, why }, finding: { check: 'embedder', level: 'ok', message: `${embedder.id} (${why})` } };
  } catch (err) {
    return { finding: { check: 'embedder', level: 'error', key: 'curator.embedder', message: `no embedder loads: ${(err as Error).message}; the curator would fall back to BM25` } };
  }
}

/**
 * The store: opened and pinged (its migrations applied), reported by kind and location
 * (a URL without its password). A SQLite file that does not exist is not created by a check.
 */
/** The store's finding, and the store itself when it answers (open: OAuth upstreams are checked with its tokens; the caller closes it). */
async function checkStore(loaded: LoadedConfig): Promise<{ finding: Finding; store?: Store }> {
  const location = storeLocation(loaded);
  if (!isPostgresUrl(location) && !existsSync(location)) {
    // A gateway running with this config would not see a file made now.
    const message = `${location} does not exist: the first serve creates it (if a gateway is running with this config, its store was deleted under it: restart it)`;
    return { finding: { check: 'store', level: 'info', key: 'store', message } };
  }
  let store: Store | undefined;
  try {
    store = await openConfiguredStore(loaded);
    await store.ping();
    return { finding: { check: 'store', level: 'ok', key: 'store', message: `${store.kind} ${store.location}` }, store };
  } catch (err) {
    await store?.close().catch(() => undefined);
    return { finding: { check: 'store', level: 'error', file: loaded.file, key: 'store', message: (err as Error).message } };
  }
}

/**
 * Learning from use (`curator.learning`): what the store holds, and settings under which it
 * cannot work or works in part (mode none ranks nothing; without an embedder learned queries
 * are a BM25 field only; evidence needs sessions with a user id).
 */
function learningFindings(loaded: LoadedConfig, counts: { learned: number; gathering: number } | undefined): Finding[] {
  const { curator, session } = loaded.config;
  const key = 'curator.learning';
  const held = counts ? `; the store holds ${counts.learned} learned pair(s) and ${counts.gathering} gathering evidence (tool-curator learned list --all)` : '';
  if (!curator.learning.enabled) {
    return counts && counts.learned + counts.gathering > 0 ? [{ check: 'learning', level: 'info', key, message: `off${held}; tool-curator learned forget --all deletes them` }] : [];
  }
  const findings: Finding[] = [{ check: 'learning', level: 'ok', key, message: `on: a pair counts from ${curator.learning.min_users} distinct users of a persona, at most ${curator.learning.max_per_tool} per tool${held}` }];
  if (curator.mode === 'none') {
    findings.push({ check: 'learning', level: 'warn', file: loaded.file, key, message: 'curator mode none ranks nothing: evidence is recorded but never used' });
  } else if (curator.mode === 'bm25' || curator.embedder.provider === 'none') {
    findings.push({ check: 'learning', level: 'info', file: loaded.file, key, message: `without an embedder (mode ${curator.mode}, embedder ${curator.embedder.provider}) learned queries rank through BM25 only, not as dense passages` });
  }
  if ((loaded.config.http.tokens ?? []).length === 0 && !loaded.config.http.oauth && session.user_id === undefined) {
    findings.push({ check: 'learning', level: 'info', file: loaded.file, key, message: 'no session has a user id (session.user_id, http.tokens[].user_id or http.oauth): nothing is recorded, since evidence counts by distinct users' });
  }
  return findings;
}

/**
 * Runs every check on the configuration at `configPath`. Never throws for what it
 * checks: a broken config is a finding (with file and key), and the report stops there.
 */
export async function runDoctor(configPath: string): Promise<DoctorReport> {
  const findings: Finding[] = [];
  const done = (report: Omit<DoctorReport, 'exitCode' | 'findings'>): DoctorReport => ({
    ...report,
    findings,
    exitCode: findings.some((f) => f.level === 'error' || f.level === 'warn') ? 1 : 0,
  });
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig(configPath);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    findings.push({ check: 'config', level: 'error', file: err.file, key: err.keyPath || undefined, message: err.expectation });
    return done({ upstreams: [], personas: [] });
  }
  const files = [loaded.file, ...Object.values(loaded.config.policy).filter((p): p is string => typeof p === 'string')];
  findings.push({ check: 'config', level: 'ok', file: loaded.file, message: `${files.length} file(s) valid: ${files.join(', ')}` });
  if (loaded.httpError) {
    findings.push({ check: 'config', level: 'info', file: loaded.file, key: loaded.httpError.keyPath, message: `${loaded.httpError.expectation} (only serve --http needs it)` });
  }
  const { finding: storeFinding, store } = await checkStore(loaded);
  findings.push(storeFinding);
  const counts = store && (await learnedCounts(store.learned, loaded.config.curator.learning.min_users).catch(() => undefined));
  findings.push(...learningFindings(loaded, counts));

  // Upstreams first, the embedder after: loading a model beside them would skew their latencies.
  const checked = await Promise.all(Object.entries(loaded.config.upstreams).map(([name, cfg]) => checkUpstream(name, cfg, loaded, store)));
  const perUser = await perUserFindings(loaded, checked.map((c) => c.report), store).finally(() => store?.close());
  const embedder = await checkEmbedder(loaded);
  const upstreams = checked.map((c) => c.report);
  for (const u of upstreams) {
    findings.push(u.state === 'ready'
      ? { check: 'upstream', level: u.tools === 0 ? 'warn' : 'ok', key: `upstreams.${u.name}`, message: `${u.name}: ${u.tools} tools, protocol ${u.era}, start ${u.startMs} ms, ping ${u.pingMs} ms, auth ${u.auth}` }
      : { check: 'upstream', level: 'error', file: loaded.file, key: `upstreams.${u.name}`, message: `failed after ${u.startMs} ms: ${u.error}` });
    if (u.moreScope) {
      const message = `${u.name}: needs authorization (more scope: ${u.moreScope}) for some of its tools; the others work. Run tool-curator auth ${u.name}`;
      findings.push({ check: 'upstream', level: 'warn', key: `upstreams.${u.name}`, message });
    }
  }
  findings.push(...perUser, ...approverFindings(loaded));
  const byServer = new Map(checked.filter((c) => c.tools.length > 0).map((c) => [c.report.name, c.tools]));
  findings.push(...(await checkDefinitions(loaded, byServer)));
  const catalog = buildCatalog(byServer, new ActionRules(loaded.config.confirmation).classify);
  const failed = new Set(upstreams.filter((u) => u.state === 'failed').map((u) => u.name));
  const { personas, findings: patternFindings } = coverage(loaded, catalog, failed);
  for (const p of personas) findings.push({ check: 'persona', level: 'ok', message: `${p.persona}: ${p.tools} of ${catalog.length} tools` });
  findings.push(...patternFindings, embedder.finding);
  return done({ config: loaded.file, upstreams, personas, ...(embedder.embedder && { embedder: embedder.embedder }) });
}

const MARK: Record<Level, string> = { ok: 'ok   ', info: 'info ', warn: 'WARN ', error: 'ERROR' };

/** One line per finding: `check  LEVEL  [file: key: ]message`. */
export function formatDoctor(report: DoctorReport): string {
  const lines = report.findings.map((f) => {
    const where = [f.check !== 'upstream' && f.check !== 'store' ? f.file : undefined, f.key].filter(Boolean).join(': ');
    return `${f.check.padEnd(9)}${MARK[f.level]}  ${where && f.level !== 'ok' ? `${where}: ` : ''}${f.message}`;
  });
  const bad = report.findings.filter((f) => f.level === 'error' || f.level === 'warn').length;
  lines.push(bad === 0 ? 'all checks passed' : `${bad} problem(s) found`);
  return `${lines.join('\n')}\n`;
}
