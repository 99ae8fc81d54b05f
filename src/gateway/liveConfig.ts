/**
 * Live configuration: a running gateway re-reads gateway.config.yaml and the files it
 * names when one of them changes on disk (or on SIGHUP), and applies what can change under
 * a running gateway — personas, workflow dependencies, synonyms, exemplars, tool
 * overrides (`overrides:`), the approvers rules (`confirmation.approvers`,
 * `approvers_may_approve_own_calls`, while approvers stay configured) — without a restart. An edit that does not load (malformed YAML, a key that fails its schema, a
 * pattern naming an unknown upstream) is logged with its file, key and reason and changes
 * nothing: the last good configuration keeps running. A reload that widens access (a
 * persona gains tools, resources or prompts, loses identity fields or confirmation, or is
 * new) is logged as a warning saying what widened. Changes to upstreams, the store, HTTP,
 * timeouts or the curator are logged as needing a restart.
 */
import { basename } from 'node:path';
import { resolveFrom } from '../config/load.js';
import { log } from '../log.js';
import { watchFiles } from './fileWatch.js';
import type { Gateway } from './gateway.js';

/** Quiet time after the last change event before reloading: editors write a file in several steps. */
export const RELOAD_DEBOUNCE_MS = 300;

/** The files a configuration is read from: gateway.config.yaml and the policy files it names. */
export function configFiles(gateway: Gateway): string[] {
  const { file, baseDir, config } = gateway.loaded;
  const named = Object.values(config.policy).filter((p): p is string => typeof p === 'string');
  return [file, ...named.map((p) => resolveFrom(baseDir, p))];
}

/**
 * Reloads once, logging the outcome; never throws (a failed reload leaves the last good
 * configuration in force).
 */
export async function reloadAndLog(gateway: Gateway, why: string): Promise<void> {
  try {
    const { applied, restart, widened } = await gateway.reload();
    if (widened.length > 0) log.warn({ why, widened }, `configuration reloaded: the personas now allow more: ${widened.join('; ')}`);
    else if (applied.length > 0) log.info({ why, applied }, `configuration reloaded: ${applied.join(', ')} in force`);
    else log.info({ why }, 'configuration reloaded: nothing that applies live changed');
    if (restart.length > 0) log.warn({ keys: restart }, `${gateway.loaded.file}: ${restart.join(', ')} changed; restart the gateway to apply`);
  } catch (err) {
    log.error({ why, err: (err as Error).message }, `configuration edit rejected, the last good configuration keeps running: ${(err as Error).message}`);
  }
}

/**
 * Watches the configuration's files (a file replaced by an editor's rename is seen too,
 * fileWatch.ts) and reloads after each burst of changes to one of them.
 * @returns a function that stops watching.
 */
export function watchConfig(gateway: Gateway): () => void {
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const schedule = (file: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(() => reloadAndLog(gateway, `${basename(file)} changed`));
    }, RELOAD_DEBOUNCE_MS);
    timer.unref();
  };
  const stop = watchFiles(configFiles(gateway), schedule, (file, err) => log.warn({ file, err: err.message }, 'cannot watch a configuration file; SIGHUP still reloads'));
  return () => {
    clearTimeout(timer);
    stop();
  };
}
