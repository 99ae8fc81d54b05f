/**
 * The relay's aggregates (names.ts) and whom each is for: one shared by every caller, in
 * which per-user upstreams' items (as the gateway's own account lists them) are routing
 * only; and, for each user who has connected a per-user upstream, one in which that
 * upstream's items are the user's own lists through their own connection (perUser.ts).
 * Both name items from the same memory, so an item keeps its exposed name in every view.
 */
import type { Prompt, Resource } from '@modelcontextprotocol/server';
import type { UpstreamPool } from '../upstream/pool.js';
import type { RelayedUpstream } from '../upstream/types.js';
import { buildRelayCatalog, type RelayCatalog, type RelayEntry, type RelayNameMemory } from './names.js';
import { log } from '../log.js';
import type { PerUserRelay } from './perUser.js';
import type { RelayCaller } from './types.js';

/** Users whose own aggregate is kept built; the least recently used is rebuilt when needed again. */
const USER_VIEWS = 1000;

export interface View {
  /** Changes with every rebuild: the version relayed cursors carry. */
  key: string;
  catalog: RelayCatalog;
  /** By exposed URI: canonical, or prefixed with a canonical upstream URI. */
  resources: Map<string, RelayEntry<Resource>>;
  templates: Map<string, RelayCatalog['templates'][number]>;
  prompts: Map<string, RelayEntry<Prompt>>;
  /** The upstreams in it, config order (their capabilities: completion, the single-owner fallback). */
  upstreams: RelayedUpstream[];
  /** Per-user upstreams whose items are here for routing only (the caller has not connected them): never listed or read through. */
  routingOnly: ReadonlySet<string>;
}

export class RelayViews {
  private changes = 0;
  private cached?: View;
  /** Each user's own aggregate, least recently used first, with the own lists it was built from. */
  private readonly users = new Map<string, { base: string; lists: unknown[]; view: View }>();
  private builds = 0;
  /** The latest `refresh`: requests wait for it, so they see the names it decides. */
  private refreshing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: UpstreamPool,
    private readonly servers: ReadonlySet<string>,
    private readonly names: RelayNameMemory,
    private readonly perUser?: PerUserRelay,
  ) {}

  /** An upstream's lists changed: the next view is rebuilt. */
  changed(): void {
    this.changes++;
  }

  /** Upstreams by name, in config order, the first list naming one winning. */
  private ordered(...lists: (RelayedUpstream | undefined)[][]): RelayedUpstream[] {
    return [...this.servers].flatMap((name) => lists.flat().find((u) => u?.name === name) ?? []);
  }

  private build(key: string, upstreams: RelayedUpstream[], routingOnly: ReadonlySet<string>): View {
    const catalog = buildRelayCatalog(upstreams, this.names, [...this.servers]);
    const byExposed = <T extends { exposed: string }>(xs: T[]) => new Map(xs.map((e) => [e.exposed, e]));
    return { key, catalog, resources: byExposed(catalog.resources), templates: byExposed(catalog.templates), prompts: byExposed(catalog.prompts), upstreams, routingOnly };
  }

  /**
   * Rebuilds the shared aggregate with its names decided under the name memory's lock,
   * from what every replica saved (names.ts `under`; a memory of one process builds at once).
   */
  refresh(): Promise<void> {
    const rebuild = () => {
      this.cached = undefined;
      this.shared();
    };
    const run = this.names.under ? this.names.under(rebuild) : Promise.resolve().then(rebuild);
    this.refreshing = run.catch((err: Error) => log.error({ err: err.stack }, 'building the relayed aggregate failed'));
    return this.refreshing;
  }

  /** The aggregate every caller shares, rebuilt when an upstream's lists change or an upstream comes or goes. */
  shared(): View {
    const routing = this.pool.perUserCatalog();
    const upstreams = this.ordered(this.pool.relayed(), routing);
    const key = `${this.changes}:${upstreams.map((u) => u.name).join(',')}`;
    if (this.cached?.key !== key) this.cached = this.build(key, upstreams, new Set(routing.map((u) => u.name)));
    return this.cached;
  }

  /** The caller's aggregate: the shared one, with the per-user upstreams the caller has connected in their own lists. */
  async for(who: RelayCaller): Promise<View> {
    await this.refreshing;
    const base = this.shared();
    if (!this.perUser || who.userId === undefined) return base;
    const own = await this.perUser.own(who.userId);
    if ([...own.values()].every((u) => u === undefined)) return base;
    const lists = [...own.values()].map((u) => u?.lists);
    const hit = this.users.get(who.userId);
    this.users.delete(who.userId);
    if (hit && hit.base === base.key && hit.lists.every((l, i) => l === lists[i])) {
      this.users.set(who.userId, hit);
      return hit.view;
    }
    const routing = this.pool.perUserCatalog().filter((u) => own.get(u.name) === undefined);
    const upstreams = this.ordered(this.pool.relayed(), [...own.values()], routing);
    const view = this.build(`${base.key}:u${++this.builds}`, upstreams, new Set(routing.map((u) => u.name)));
    this.users.set(who.userId, { base: base.key, lists, view });
    for (const user of this.users.keys()) {
      if (this.users.size <= USER_VIEWS) break;
      this.users.delete(user);
    }
    return view;
  }
}
