/**
 * What `auto` remembers of the Hugging Face hub between starts: for one (hub, model,
 * dtype), when a load from the hub last failed and why, in `tool-curator-hub.json` in the
 * transformers cache folder (beside the models it downloads). Within RETRY_MS of a failure
 * no start asks the hub again, so on a machine that cannot reach it only the first start
 * of the day waits for it. A load that succeeds leaves the model in the cache, which the
 * next start finds without asking.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The file's name in the transformers cache folder. */
export const MEMO_FILE = 'tool-curator-hub.json';
/** How long a failure is trusted: a day. */
export const RETRY_MS = 24 * 3600 * 1000;
/** Entries kept, the most recent first: one per configured (hub, model, dtype) in practice. */
const MAX_ENTRIES = 50;

/** A failed load from the hub. */
export interface HubFailure {
  /** ISO time of the failure. */
  failedAt: string;
  /** The error, as the log line gave it. */
  reason: string;
}

type Memo = Record<string, HubFailure>;

/** The memo's key for a load of `model` at `dtype` from `remoteHost`. */
export function memoKey(remoteHost: string, model: string, dtype: string): string {
  return `${remoteHost} ${model} ${dtype}`;
}

async function read(file: string): Promise<Memo> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Memo) : {};
  } catch {
    return {};
  }
}

/** The failure remembered in `file` for `key` if it happened less than RETRY_MS before `now`, else undefined. */
export async function recentFailure(file: string, key: string, now = Date.now()): Promise<HubFailure | undefined> {
  const failure = (await read(file))[key];
  const at = typeof failure?.failedAt === 'string' ? Date.parse(failure.failedAt) : NaN;
  return at <= now && now - at < RETRY_MS ? failure : undefined;
}

/** Records `failure` for `key` in `file` (written whole, then renamed into place). @throws when the folder cannot be written. */
export async function rememberFailure(file: string, key: string, failure: HubFailure): Promise<void> {
  const others = Object.entries(await read(file)).filter(([k]) => k !== key);
  const memo = Object.fromEntries([[key, failure], ...others].slice(0, MAX_ENTRIES));
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(memo, null, 2)}\n`);
  await rename(tmp, file);
}
