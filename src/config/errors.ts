/**
 * The config error and path rule shared by everything that reads the configuration, kept
 * apart from the loader so modules that only report or resolve (the store, the library)
 * do not load the zod schemas.
 */
import { isAbsolute, resolve } from 'node:path';

/** A configuration that does not load: the file, the key path and what was expected. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly keyPath: string,
    readonly expectation: string,
  ) {
    super(`${file}: ${keyPath ? `${keyPath}: ` : ''}${expectation}`);
    this.name = 'ConfigError';
  }
}

/** `p` resolved against the config file's folder (absolute paths stay as they are). */
export function resolveFrom(baseDir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(baseDir, p);
}
