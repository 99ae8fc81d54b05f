/**
 * The exposed names of relayed prompts, resources and templates, kept in the store
 * (`relay_names`) as tool names are (`tool_names`): so they survive restarts, and replicas
 * of a fleet agree on them. The relay names items synchronously from memory (names.ts);
 * this memory is that, plus the store: each build of the shared aggregate runs `under`
 * the store's `relay-names` lock, after reading what every replica saved and before
 * saving what it assigned, as the catalog's build does for tools under `names`. A build
 * outside it (a user's own aggregate) keeps its names in memory and saves them at once,
 * under the lock. A store that is unavailable leaves the names last read in force.
 *
 * ### Usage
 * ```ts
 * const relay = new Relay(pool, policy, bounds, servers, new StoredRelayNames(store));
 * await relay.start(); // names decided under the lock
 * ```
 */
import { log } from '../log.js';
import type { RelayNameKind, RememberedName, Store } from '../store/types.js';
import { MAX_REMEMBERED_NAMES, MemoryRelayNames, type RelayNameMemory } from './names.js';

const KINDS: readonly RelayNameKind[] = ['resources', 'templates', 'prompts'];

/** The name of the store lock relayed names are decided under. */
export const RELAY_NAMES_LOCK = 'relay-names';

export class StoredRelayNames implements RelayNameMemory {
  private memory = new MemoryRelayNames();
  /** Names assigned here and not yet saved in the store, by kind and key. */
  private readonly unsaved = new Map<RelayNameKind, Map<string, string>>(KINDS.map((k) => [k, new Map()]));
  private inside = false;
  private saving?: Promise<void>;

  constructor(private readonly store: Pick<Store, 'relayNames' | 'lock'>) {}

  load(kind: RelayNameKind): ReadonlyMap<string, string> {
    return this.memory.load(kind);
  }

  save(kind: RelayNameKind, names: ReadonlyMap<string, string>): void {
    const known = this.memory.load(kind);
    const unsaved = this.unsaved.get(kind)!;
    for (const [key, name] of names) if (known.get(key) !== name) unsaved.set(key, name);
    this.memory.save(kind, names);
    if (!this.inside && unsaved.size > 0) this.saving ??= this.under(() => undefined).finally(() => (this.saving = undefined));
  }

  async under<T>(build: () => T): Promise<T> {
    let built: { out: T } | undefined;
    try {
      await this.store.lock(RELAY_NAMES_LOCK, async () => {
        await this.read();
        built = { out: this.quietly(build) };
        await this.write();
      });
    } catch (err) {
      log.error({ err: (err as Error).message }, 'relayed prompt and resource names could not be read or saved; using the names last read');
    }
    // Unsaved names are saved by the next build that reaches the store.
    return (built ?? { out: this.quietly(build) }).out;
  }

  /** Runs `build` without saving from inside it: its caller saves. */
  private quietly<T>(build: () => T): T {
    this.inside = true;
    try {
      return build();
    } finally {
      this.inside = false;
    }
  }

  /** What every replica saved, with this process's unsaved names over it (they are saved next). */
  private async read(): Promise<void> {
    const memory = new MemoryRelayNames();
    for (const kind of KINDS) {
      memory.save(kind, await this.store.relayNames.load(kind));
      memory.save(kind, this.unsaved.get(kind)!);
    }
    this.memory = memory;
  }

  private async write(): Promise<void> {
    for (const kind of KINDS) {
      const unsaved = this.unsaved.get(kind)!;
      if (unsaved.size === 0) continue;
      const entries: RememberedName[] = [...unsaved].map(([key, name]) => {
        const at = key.indexOf('\0');
        return { server: key.slice(0, at), upstreamName: key.slice(at + 1), name };
      });
      await this.store.relayNames.save(kind, entries, MAX_REMEMBERED_NAMES);
      unsaved.clear();
    }
  }
}
