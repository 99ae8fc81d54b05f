/**
 * Reads and validates the config files. Every error is a ConfigError naming the file,
 * the key path and what was expected, so a user can fix it without reading our code.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import type { z } from 'zod';
import { unknownServerPatterns } from '../policy/patterns.js';
import { sharedCredential } from './credentials.js';
import { ConfigError, resolveFrom } from './errors.js';
import { explainIssue } from './suggest.js';

export { ConfigError, resolveFrom } from './errors.js';
import {
  dependenciesSchema,
  exemplarsSchema,
  gatewayConfigSchema,
  personasSchema,
  synonymsSchema,
  type GatewayConfig,
  type Personas,
} from './schema.js';

/**
 * Reads a YAML or JSON file (JSON is YAML). Throws ConfigError when absent or malformed;
 * an absent file named by a config key (`namedBy`) is reported against that key.
 */
function readDocument(file: string, namedBy?: { file: string; key: string }): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && namedBy) throw new ConfigError(namedBy.file, namedBy.key, `file not found: ${file}`);
    throw new ConfigError(file, '', code === 'ENOENT' ? 'file not found' : `cannot read: ${(err as Error).message}`);
  }
  try {
    return loadYaml(text, { filename: file });
  } catch (err) {
    const e = err as { mark?: { line: number; column: number }; reason?: string; message: string };
    const where = e.mark ? `line ${e.mark.line + 1}, column ${e.mark.column + 1}` : '';
    throw new ConfigError(file, where, `malformed ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${e.reason ?? e.message}`);
  }
}

/**
 * Replaces `${NAME}` in every string with the environment variable NAME.
 * Throws ConfigError naming the key when a variable is unset: a silently empty token
 * would turn into a confusing 401 later.
 */
export function expandEnv(value: unknown, file: string, env: NodeJS.ProcessEnv, path: string[] = []): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined) throw new ConfigError(file, path.join('.'), `environment variable ${name} is not set`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, file, env, [...path, String(i)]));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandEnv(v, file, env, [...path, k])]));
  }
  return value;
}

function parseWith<S extends z.ZodType>(schema: S, data: unknown, file: string): z.infer<S> {
  const result = schema.safeParse(data ?? {});
  if (result.success) return result.data;
  const { path, message } = explainIssue(schema, result.error.issues[0]!, data);
  throw new ConfigError(file, path.map(String).join('.') || '(top level)', message);
}

export interface LoadedConfig {
  /** Absolute path of gateway.config.yaml. */
  file: string;
  /** Folder relative paths in the config resolve against. */
  baseDir: string;
  config: GatewayConfig;
  personas: Personas;
  dependencies: Record<string, string[]>;
  synonyms: Record<string, string>;
  exemplars: Record<string, string[]>;
  /**
   * Why the `http` block could not be read (an unset `${ENV}` in a token), if so. Only
   * `serve --http` needs that block: every other command runs without it, and serveHttp
   * throws this error.
   */
  httpError?: ConfigError;
  /**
   * Settings the command line put over the file's (`serve --exposure`): a live reload of
   * the file keeps them, and does not report them as changes that need a restart.
   */
  overrides?: { exposure?: GatewayConfig['exposure']['mode'] };
}

/**
 * Expands `${ENV}` in the document; in the `http` block an unset variable does not fail
 * the load but leaves the block out, with the error kept for `serve --http`.
 */
function expandDocument(doc: unknown, file: string, env: NodeJS.ProcessEnv): { doc: unknown; httpError?: ConfigError } {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc) || !('http' in doc)) return { doc: expandEnv(doc, file, env) };
  const { http, ...rest } = doc as Record<string, unknown>;
  const expanded = expandEnv(rest, file, env) as Record<string, unknown>;
  try {
    return { doc: { ...expanded, http: expandEnv(http, file, env, ['http']) } };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return { doc: expanded, httpError: err };
  }
}

/**
 * Loads gateway.config.yaml and the policy files it names.
 * @throws ConfigError for a missing file, malformed YAML/JSON, an unset `${ENV}` (outside
 *   the `http` block, see `httpError`), a value that does not fit the schema, a personas
 *   file that defines no persona, a persona pattern naming an upstream the config lacks, or
 *   an `http` secret that is also another's (credentials.ts).
 */
export function loadConfig(configPath: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const file = resolve(configPath);
  const baseDir = dirname(file);
  const { doc, httpError } = expandDocument(readDocument(file), configPath, env);
  const config = parseWith(gatewayConfigSchema, doc, configPath);
  const shared = sharedCredential(config.http);
  if (shared) throw new ConfigError(configPath, shared.key, shared.message);
  /** A policy file named by `policy.<key>`; a missing one is reported against that key of the config. */
  const load = <S extends z.ZodType>(key: keyof GatewayConfig['policy'], schema: S, empty: z.infer<S>): z.infer<S> => {
    const p = config.policy[key];
    if (!p) return empty;
    return parseWith(schema, readDocument(resolveFrom(baseDir, p), { file: configPath, key: `policy.${key}` }), p);
  };
  const personas = load('personas', personasSchema, {});
  if (config.policy.personas && Object.keys(personas).length === 0) {
    // An empty record is what "no personas file" means (an open policy): never let a file say it.
    throw new ConfigError(
      config.policy.personas,
      '(top level)',
      'defines no persona; an empty personas file would let every session use every tool with no identity injected. ' +
        `Define at least one persona (or remove policy.personas from ${configPath} for a gateway without personas)`,
    );
  }
  const unknown = unknownServerPatterns(personas, Object.keys(config.upstreams))[0];
  if (unknown) throw new ConfigError(config.policy.personas!, unknown.key, `${unknown.message}; a pattern naming no upstream matches nothing`);
  return {
    file,
    baseDir,
    config,
    personas,
    dependencies: load('dependencies', dependenciesSchema, {}),
    synonyms: load('synonyms', synonymsSchema, {}),
    exemplars: load('exemplars', exemplarsSchema, {}),
    ...(httpError && { httpError }),
  };
}
