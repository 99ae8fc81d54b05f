/**
 * Watching single files for edits, also when an editor saves by writing a new file and
 * renaming it over the old one. Each file itself is watched, not its folder: a folder
 * watch wakes the gateway on every write to any file in it, such as the store's two
 * writes per tool call when the store sits beside gateway.config.yaml.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Calls `onChange(file)` after each change to one of `files` (edited in place, replaced
 * by a rename, deleted, created again). A rename replaces the watched inode, so the watch
 * is re-armed on the path; while a file is absent its folder is watched for its name
 * only, until it appears.
 * @param onError called when a file or folder cannot be watched (the file is not watched then).
 * @returns a function that stops every watch.
 *
 * ### Usage
 * ```ts
 * const stop = watchFiles(['/etc/tc/gateway.config.yaml'], (f) => log.info({ file: f }, 'changed'), (f, err) => log.warn({ file: f, err: err.message }, 'not watched'));
 * stop();
 * ```
 */
export function watchFiles(files: string[], onChange: (file: string) => void, onError: (file: string, err: Error) => void): () => void {
  const watchers = new Map<string, FSWatcher>();
  let stopped = false;

  const replace = (file: string, w: FSWatcher | undefined) => {
    watchers.get(file)?.close();
    if (w) watchers.set(file, w);
    else watchers.delete(file);
  };

  /** Watches `file` itself, or its folder until it exists. */
  const arm = (file: string): void => {
    if (stopped) return;
    try {
      const w = watch(file, { persistent: false }, (event) => {
        onChange(file);
        if (event === 'rename') arm(file);
      });
      w.on('error', (err) => onError(file, err));
      replace(file, w);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        replace(file, undefined);
        onError(file, err as Error);
        return;
      }
      awaitCreation(file);
    }
  };

  const awaitCreation = (file: string): void => {
    const name = basename(file);
    try {
      const w = watch(dirname(file), { persistent: false }, (_event, changed) => {
        if (changed?.toString() !== name) return;
        onChange(file);
        arm(file);
      });
      w.on('error', (err) => onError(file, err));
      replace(file, w);
    } catch (err) {
      replace(file, undefined);
      onError(file, err as Error);
      return;
    }
    // Created between the failed watch and this one: no event will say so.
    if (existsSync(file)) {
      onChange(file);
      arm(file);
    }
  };

  for (const f of new Set(files)) arm(f);
  return () => {
    stopped = true;
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
}
