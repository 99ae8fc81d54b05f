/**
 * How a serving gateway process ends: on SIGTERM, SIGINT or (stdio) the host closing
 * stdin, in whatever phase it is — upstreams starting, a cold index build, an upstream
 * reconnecting — it exits within about a second and leaves no upstream child behind.
 * SIGHUP never ends it: it asks for a configuration reload.
 *
 * Order: end the upstream children first (they are the only thing that can outlive us),
 * then give the gateway a bounded moment to close its store cleanly, then exit. Nothing
 * waits for the index build: embedding workers are threads and end with the process.
 */
import { log } from '../log.js';
import { terminateChildren } from '../upstream/children.js';

export interface LifecycleOptions {
  /** Graceful close of the gateway (sessions, pool, embedder, store); cut off after `closeMs`. */
  close(): Promise<void>;
  /**
   * Called on SIGHUP: `serve` plugs in the live-configuration reload (liveConfig.ts); without it
   * the signal is logged and ignored (a terminal closing must not stop the gateway).
   */
  reload?(): Promise<void> | void;
  /** Time the graceful close gets after the children are gone. Default 800 ms. */
  closeMs?: number;
  /** Exit code on a requested stop. Default 0. */
  exitCode?: number;
}

export interface Lifecycle {
  /** Stops the process as a signal would; `why` goes to the log. Idempotent. */
  shutdown(why: string): Promise<never>;
}

/** Installs the signal and stdin handlers of a serving process. */
export function installLifecycle(opts: LifecycleOptions): Lifecycle {
  let stopping: Promise<never> | undefined;
  const shutdown = (why: string): Promise<never> => {
    stopping ??= (async () => {
      log.info({ why }, 'shutting down');
      // Whatever happens below, the process is gone within the bound.
      setTimeout(() => process.exit(opts.exitCode ?? 0), 1500).unref();
      // close() first marks the pool closing (no reconnect starts), then the children go.
      const closed = opts.close().catch(() => undefined);
      await terminateChildren(300);
      const closeMs = opts.closeMs ?? 800;
      await Promise.race([closed, new Promise((r) => setTimeout(r, closeMs).unref())]);
      process.exit(opts.exitCode ?? 0);
    })();
    return stopping;
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGHUP', () => {
    if (!opts.reload) {
      log.warn('SIGHUP received: live configuration reload is not available in this build; restart the gateway to apply config changes');
      return;
    }
    log.info('SIGHUP received: reloading configuration');
    Promise.resolve()
      .then(() => opts.reload!())
      .catch((err: Error) => log.error({ err: err.message }, 'configuration reload failed; the last good configuration keeps running'));
  });
  return { shutdown };
}
