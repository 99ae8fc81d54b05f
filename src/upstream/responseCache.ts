/**
 * The SDK client's `ResponseCacheStore` backed by the gateway's store, so an upstream's
 * caching hints hold for the whole fleet: a `public` tools/list cached by one replica is
 * served to every other replica and user until its `ttlMs` ends; `private` entries stay
 * under the client's `cachePartition` (the user of a per-user connection). Entries live
 * under a namespace per upstream connection (era.ts connectionKey without the user), so
 * two upstreams that report the same serverInfo (two instances of one package) never
 * share entries. A failing store costs a cache miss, never a request.
 */
import type { CacheEntry, CacheKey, CacheScope, ResponseCacheStore } from '@modelcontextprotocol/client';
import { log } from '../log.js';
import type { ResponseCachePart } from '../store/types.js';

/** Rows kept in the shared cache table: the newest writes stay past this. */
export const MAX_CACHE_ROWS = 10_000;

export class StoreResponseCache implements ResponseCacheStore {
  private readonly prefix: string;

  /**
   * @param namespace the upstream connection's key (era.ts connectionKey, no principal)
   * @param maxValueBytes results larger than this are not cached (the relay's read bound)
   */
  constructor(
    private readonly part: ResponseCachePart,
    namespace: string,
    private readonly maxValueBytes: number,
  ) {
    // The namespace is a JSON array, so it ends where the SDK's partition (another JSON array) begins.
    this.prefix = namespace;
  }

  private where(key: CacheKey): [string, string, string] {
    return [key.method, key.params ?? '', this.prefix + (key.partition ?? '')];
  }

  async get(key: CacheKey): Promise<CacheEntry | undefined> {
    try {
      return await this.part.get(...this.where(key));
    } catch (err) {
      log.warn({ method: key.method, err: (err as Error).message }, 'response cache unreadable; asking the upstream');
      return undefined;
    }
  }

  async set(key: CacheKey, entry: { value: string; expiresAt?: number; scope?: CacheScope }): Promise<number> {
    // Too large to keep: whatever was cached under the key is stale now, so it goes too.
    if (Buffer.byteLength(entry.value) > this.maxValueBytes) {
      await this.delete(key);
      return 0;
    }
    return this.part.set(...this.where(key), entry, MAX_CACHE_ROWS);
  }

  delete(key: CacheKey): Promise<void> {
    return this.part.delete(...this.where(key));
  }

  evict(method: string): Promise<void> {
    return this.part.evict(method, this.prefix);
  }

  clear(): Promise<void> {
    return this.part.clear(this.prefix);
  }
}
