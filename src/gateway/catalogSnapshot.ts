/**
 * The catalog snapshot: the gateway's latest complete catalog (every upstream connected)
 * in `catalog.json` beside the store, with the time it was written and a digest of the
 * `upstreams` section it came from, so `select` and `eval` can rank without starting
 * every upstream (`--refresh` starts them). A snapshot of other upstreams, or one that
 * does not read, is ignored.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ToolRecord } from '../catalog/types.js';
import { resolveFrom, type LoadedConfig } from '../config/load.js';
import { log } from '../log.js';

const VERSION = 1;
/** Largest catalog kept in a snapshot: writing one is synchronous JSON, done on every catalog change. */
export const MAX_SNAPSHOT_TOOLS = 50_000;
/** Largest snapshot file read, in bytes. */
const MAX_SNAPSHOT_BYTES = 512 * 1024 ** 2;

export interface CatalogSnapshot {
  path: string;
  /** When the catalog was listed. */
  writtenAt: Date;
  tools: ToolRecord[];
}

interface SnapshotFile {
  version: number;
  writtenAt: string;
  upstreams: string;
  tools: ToolRecord[];
}

/**
 * `catalog.json` in the store's folder; for a store that is not a file (`:memory:`, a
 * database URL) in `.tool-curator/` beside the config.
 */
export function snapshotPath(loaded: LoadedConfig): string {
  const { store } = loaded.config;
  const folder = store === ':memory:' || store.includes('://') ? join(loaded.baseDir, '.tool-curator') : dirname(resolveFrom(loaded.baseDir, store));
  return join(folder, 'catalog.json');
}

/** Digest of the config's upstreams: a snapshot is of these upstreams or of none. */
function upstreamsDigest(loaded: LoadedConfig): string {
  return createHash('sha256').update(JSON.stringify(loaded.config.upstreams)).digest('hex');
}

/** Writes the snapshot of `tools`. Never throws: a snapshot that cannot be written is logged and skipped. */
export function writeSnapshot(loaded: LoadedConfig, tools: readonly ToolRecord[], now = new Date()): void {
  if (tools.length > MAX_SNAPSHOT_TOOLS) return;
  const path = snapshotPath(loaded);
  try {
    mkdirSync(dirname(path), { recursive: true });
    const file: SnapshotFile = { version: VERSION, writtenAt: now.toISOString(), upstreams: upstreamsDigest(loaded), tools: [...tools] };
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(file));
    renameSync(tmp, path);
  } catch (err) {
    log.warn({ file: path, err: (err as Error).message }, 'could not write the catalog snapshot; select and eval will start the upstreams');
  }
}

/** The snapshot of `loaded`'s upstreams, or undefined when there is none (absent, of other upstreams, unreadable). */
export function readSnapshot(loaded: LoadedConfig): CatalogSnapshot | undefined {
  const path = snapshotPath(loaded);
  try {
    if (statSync(path).size > MAX_SNAPSHOT_BYTES) return undefined;
    const file = JSON.parse(readFileSync(path, 'utf8')) as Partial<SnapshotFile>;
    const writtenAt = new Date(file.writtenAt ?? '');
    if (file.version !== VERSION || file.upstreams !== upstreamsDigest(loaded) || Number.isNaN(writtenAt.getTime()) || !Array.isArray(file.tools)) return undefined;
    if (!file.tools.every((t) => typeof t?.name === 'string' && typeof t.server === 'string' && typeof t.upstreamName === 'string')) return undefined;
    return { path, writtenAt, tools: file.tools };
  } catch {
    return undefined;
  }
}

/** "3 h ago (2026-12-02 10:14 UTC)": how fresh a snapshot is, for the user. */
export function snapshotAge(writtenAt: Date, now = new Date()): string {
  const s = Math.max(0, Math.round((now.getTime() - writtenAt.getTime()) / 1000));
  const ago = s < 90 ? `${s} s` : s < 90 * 60 ? `${Math.round(s / 60)} min` : s < 36 * 3600 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86400)} days`;
  return `${ago} ago (${writtenAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
}
