/**
 * Learning from use (`curator.learning`, opt-in): what a session's users searched for and
 * then really used becomes evidence in the store, and evidence that enough distinct users
 * of one persona gave becomes learned exemplars of that persona for the curator
 * (curator/learned.ts). Evidence: a find_tools query followed, in the same session and
 * within `window_seconds`, by a call that was allowed, not corrected by the name guard,
 * and succeeded. The call is evidence for the latest recent query whose answer returned
 * or named (in `cut`) the tool, else for the latest recent query (the user went past the
 * shortlist to the tool: the miss learning is for). It counts once `min_users` distinct
 * users of one persona (within one tenant: the identity provider that signed them in)
 * gave it, decays with age (`half_life_days`), is capped per tool (`max_per_tool`), and
 * is read again every `refresh_seconds` and whenever the catalog is indexed again, never
 * per query. It never crosses personas or tenants: each (persona, tenant) is a scope of
 * its own, a session's queries are ranked with its own scope only, and a learned tool the
 * persona may no longer use is dropped.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { LearningConfig } from '../config/schema.js';
import { learnedScope, type LearnedExemplar, type LearnedExemplars } from '../curator/learned.js';
import { accountOf } from '../gateway/accounts.js';
import type { CallContext, SessionIdentity } from '../guards/types.js';
import { log } from '../log.js';
import type { LearnedEvidence, LearnedPair, LearnedPart } from '../store/types.js';

/** Recent find_tools answers a session remembers: a call is matched against these. */
export const MAX_FINDS = 20;
/** Evidence rows one session may write: a session cannot flood the store. */
export const MAX_SESSION_EVIDENCE = 100;
/** Longest query stored, in characters (find_tools accepts 2,000). */
export const MAX_EVIDENCE_QUERY = 500;
/** Evidence older than this many half-lives (weight under 1/16) is not read, and is deleted at the next refresh. */
export const HORIZON_HALF_LIVES = 4;
const DAY_MS = 86_400_000;

/** The call decisions under which a call ran as asked for (guards/types.ts Decision). */
const RAN = new Set(['allowed', 'approved']);

/** The tenant of a session: the identity provider that signed its user in; '' for static tokens and stdio. */
export function tenantOf(identity: Pick<SessionIdentity, 'principal'>): string {
  return identity.principal?.issuer ?? '';
}

/** The learned scope of a session's queries (curator/learned.ts). */
export function scopeOf(identity: Pick<SessionIdentity, 'persona' | 'principal'>): string {
  return learnedScope(identity.persona, tenantOf(identity));
}

/**
 * A query as evidence: Unicode NFC, lower case, white space collapsed, trailing sentence
 * punctuation dropped, at most MAX_EVIDENCE_QUERY characters. Users who typed the same
 * request count as one pair however they capitalised or spaced it.
 */
export function evidenceQuery(query: string): string {
  return query.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim().replace(/[\s.!?。？！]+$/u, '').slice(0, MAX_EVIDENCE_QUERY);
}

/** Evidence in the store: learned pairs (at least `minUsers` users) and pairs still gathering evidence, over every persona and tenant (doctor, lint). */
export async function learnedCounts(store: LearnedPart, minUsers: number): Promise<{ learned: number; gathering: number }> {
  let learned = 0;
  let all = 0;
  for (const scope of await store.scopes()) {
    const pairs = await store.pairs({ ...scope, minUsers: 1 });
    all += pairs.length;
    learned += pairs.filter((p) => p.users >= minUsers).length;
  }
  return { learned, gathering: all - learned };
}

/** Who gives a session's evidence, and what it may not teach. */
export interface EvidenceSource {
  persona: string;
  tenant: string;
  /** The person's key (store/people.ts): signed-in users by issuer and subject, static-token users apart. */
  userId: string;
  /** How long after a query a call counts, in ms. */
  windowMs: number;
  /** Epoch ms. */
  now(): number;
  /** Tools a call of which teaches nothing (pinned tools: always shown, never retrieved). */
  ignored: ReadonlySet<string>;
}

/**
 * What one session searched for and then used. The gateway makes one per session with a
 * user id (evidence from anonymous sessions cannot be counted by distinct users).
 */
export class SessionEvidence {
  /** Recent queries, oldest first, with the tools each answer returned or named and when it was given. */
  private readonly finds: { query: string; names: ReadonlySet<string>; at: number }[] = [];
  /** Pairs already given by this session (a session's repeated calls count once). */
  private readonly given = new Set<string>();

  constructor(
    private readonly source: EvidenceSource,
    private readonly write: (evidence: LearnedEvidence) => void,
  ) {}

  /** A find_tools answer: `names` are the tools it returned and those it named as cut. */
  found(query: string, names: readonly string[]): void {
    const q = evidenceQuery(query);
    if (!q) return;
    this.finds.push({ query: q, names: new Set(names), at: this.source.now() });
    if (this.finds.length > MAX_FINDS) this.finds.shift();
  }

  /**
   * A finished tools/call (`ctx` as the call path left it): evidence when the call ran as
   * asked (allowed or approved, never corrected or refused) and its result is not an error.
   */
  called(ctx: CallContext, result: CallToolResult): void {
    const tool = ctx.tool?.name;
    if (!tool || result.isError === true || ctx.decisions.includes('corrected') || !RAN.has(ctx.decisions.at(-1) ?? 'allowed')) return;
    this.used(tool);
  }

  /**
   * A successful call of `tool`: evidence for the latest query of the window whose answer
   * held it, else for the latest query of the window; nothing without a recent query.
   */
  used(tool: string): void {
    if (this.source.ignored.has(tool) || this.given.size >= MAX_SESSION_EVIDENCE) return;
    const since = this.source.now() - this.source.windowMs;
    const recent = this.finds.filter((f) => f.at >= since);
    const find = recent.findLast((f) => f.names.has(tool)) ?? recent.at(-1);
    if (!find) return;
    const key = `${find.query}\u0000${tool}`;
    if (this.given.has(key)) return;
    this.given.add(key);
    const { persona, tenant, userId } = this.source;
    this.write({ persona, tenant, userId, query: find.query, tool, at: this.source.now() });
  }
}

/**
 * The learned exemplars of one scope from its pairs: each pair's weight halves with every
 * half-life since its latest use; per tool the `max_per_tool` pairs with the most users ×
 * weight (then uses) are kept; tools outside `allowed` are left out (the persona may no
 * longer use them).
 *
 * ### Usage
 * ```ts
 * exemplarsOf([{ query: 'pay rent', tool: 'make_payment', users: 3, count: 4, lastAt: now }], settings, now, new Set(['make_payment']))
 * // [{ query: 'pay rent', tool: 'make_payment', weight: 1 }]
 * ```
 */
export function exemplarsOf(pairs: readonly LearnedPair[], settings: Pick<LearningConfig, 'half_life_days' | 'max_per_tool'>, now: number, allowed: ReadonlySet<string>): LearnedExemplar[] {
  const halfLife = settings.half_life_days * DAY_MS;
  const byTool = new Map<string, { pair: LearnedPair; weight: number }[]>();
  for (const pair of pairs) {
    if (!allowed.has(pair.tool)) continue;
    const weight = Math.min(1, 0.5 ** (Math.max(0, now - pair.lastAt) / halfLife));
    const list = byTool.get(pair.tool) ?? [];
    list.push({ pair, weight });
    byTool.set(pair.tool, list);
  }
  return [...byTool.values()].flatMap((list) =>
    list
      .sort((a, b) => b.pair.users * b.weight - a.pair.users * a.weight || b.pair.count - a.pair.count || a.pair.query.localeCompare(b.pair.query))
      .slice(0, settings.max_per_tool)
      .map(({ pair, weight }) => ({ query: pair.query, tool: pair.tool, weight })),
  );
}

export interface LearningDeps {
  store: LearnedPart;
  settings: LearningConfig;
  /** Gives the curator the learned exemplars (ToolCurator.learn). */
  learn(learned: LearnedExemplars): Promise<void>;
  /** The tools `persona` ('' when no personas are configured) may use now; undefined for a persona that no longer exists. */
  allowed(persona: string): ReadonlySet<string> | undefined;
  /** Tools whose calls teach nothing (pinned tools). */
  ignored(): ReadonlySet<string>;
  /** Reports a failed store operation (Gateway.storeFailed). */
  failed(operation: string, err: unknown): void;
  /** Epoch ms; default Date.now. */
  now?: () => number;
}

/** The gateway's learning: evidence writers for sessions, and the refresh that turns evidence into learned exemplars. */
export class Learning {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Evidence writes not yet settled (settled() waits for them). */
  private readonly writes = new Set<Promise<void>>();

  constructor(private readonly deps: LearningDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** An evidence writer for a session; undefined for a session without a user id. */
  session(identity: Pick<SessionIdentity, 'persona' | 'userId' | 'principal'>): SessionEvidence | undefined {
    const person = identity.userId ? accountOf(identity) : undefined;
    if (!person) return undefined;
    const source: EvidenceSource = {
      persona: identity.persona ?? '',
      tenant: tenantOf(identity),
      userId: person,
      windowMs: this.deps.settings.window_seconds * 1000,
      now: () => this.now(),
      ignored: this.deps.ignored(),
    };
    return new SessionEvidence(source, (evidence) => {
      const write = this.deps.store.add(evidence).catch((err: unknown) => this.deps.failed('learned evidence', err));
      this.writes.add(write);
      void write.finally(() => this.writes.delete(write));
    });
  }

  /** Resolves once every evidence write made so far is in the store (or has failed, reported). */
  async settled(): Promise<void> {
    while (this.writes.size > 0) await Promise.all(this.writes);
  }

  /**
   * Reads every scope's pairs with at least `min_users` users from the last
   * HORIZON_HALF_LIVES half-lives, gives the curator their exemplars, and deletes older
   * evidence (the store stays bounded by the horizon). One refresh at a time (a caller
   * during one waits for it). A store failure keeps the exemplars in use.
   * @returns learned exemplars given to the curator, or -1 when the store failed
   */
  refresh(): Promise<number> {
    const run = (this.running ?? Promise.resolve()).then(() => this.readAndLearn());
    this.running = run.then(() => undefined, () => undefined);
    return run;
  }

  private async readAndLearn(): Promise<number> {
    const { settings, store } = this.deps;
    const now = this.now();
    const since = now - HORIZON_HALF_LIVES * settings.half_life_days * DAY_MS;
    const learned: LearnedExemplars = {};
    let count = 0;
    try {
      await store.forget({ before: since });
      for (const { persona, tenant } of await store.scopes({ since })) {
        const allowed = this.deps.allowed(persona);
        if (!allowed) continue;
        const pairs = await store.pairs({ persona, tenant, minUsers: settings.min_users, since });
        const exemplars = exemplarsOf(pairs, settings, now, allowed);
        if (exemplars.length > 0) learned[learnedScope(persona, tenant)] = exemplars;
        count += exemplars.length;
      }
    } catch (err) {
      this.deps.failed('learned pairs', err);
      return -1;
    }
    await this.deps.learn(learned);
    log.info({ exemplars: count, scopes: Object.keys(learned).length }, 'learning: learned exemplars refreshed');
    return count;
  }

  /** Refreshes every `refresh_seconds` until close(). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.refresh(), this.deps.settings.refresh_seconds * 1000);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
