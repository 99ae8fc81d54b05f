/**
 * What the commands share: the config a command line names, the persona and user id of
 * a session, the checks that refuse a session that could not make a single call, and
 * `--strict`'s refusal of persona patterns and pinned names that match nothing.
 */
import type { ToolRecord } from '../catalog/types.js';
import { ConfigError, loadConfig, type LoadedConfig } from '../config/load.js';
import { unmatchedPatterns, unmatchedPinned, type PatternIssue } from '../policy/patterns.js';
import { MissingIdentityError, Policy, UnknownPersonaError } from '../policy/policy.js';
import { UsageError } from './parse.js';

/** The config `--config` names, else $TOOL_CURATOR_CONFIG, else ./gateway.config.yaml. */
export function configPath(flags: { config?: string }): string {
  return flags.config ?? (process.env.TOOL_CURATOR_CONFIG || 'gateway.config.yaml');
}

export function config(flags: { config?: string }): LoadedConfig {
  return loadConfig(configPath(flags));
}

/**
 * The persona and user id for this process: --persona / --user-id, else config `session`.
 * The config's user id belongs to the config's persona: with --persona naming another
 * one it is not used (a faculty session must not act as student S0001), so such a
 * persona needs --user-id when its identity takes one (checkSession says so).
 */
export function identity(flags: { persona?: string; 'user-id'?: string }, loaded: LoadedConfig) {
  const { session } = loaded.config;
  const persona = flags.persona ?? session.persona;
  const ownId = flags.persona === undefined || flags.persona === session.persona;
  const userId = flags['user-id'] ?? (ownId ? session.user_id : undefined);
  return { persona, userId, borrowed: !ownId && flags['user-id'] === undefined && session.user_id !== undefined };
}

/** Refuses a persona that personas.yaml does not define (any persona passes when there is none). */
export function checkPersona(loaded: LoadedConfig, persona: string | undefined): void {
  if (new Policy(loaded.personas).open || (persona !== undefined && persona in loaded.personas)) return;
  const known = Object.keys(loaded.personas).join(', ');
  const fromConfig = persona !== undefined && persona === loaded.config.session.persona;
  throw new UsageError(
    persona === undefined
      ? `no persona given: pass --persona with one of ${known} (or set session.persona in ${loaded.file})`
      : fromConfig
        ? `${loaded.file}: session.persona: ${new UnknownPersonaError(persona, Object.keys(loaded.personas)).message}; set it to one of them or pass --persona`
        : `${new UnknownPersonaError(persona, Object.keys(loaded.personas)).message}; pass --persona with one of them`,
  );
}

/** Refuses to start a session that could not make a single call: a persona whose identity needs a user id it lacks. */
export function checkSession(loaded: LoadedConfig, persona: string | undefined, userId: string | undefined, borrowed = false): void {
  checkPersona(loaded, persona);
  try {
    new Policy(loaded.personas).identityValues(persona, userId);
  } catch (err) {
    if (!(err instanceof MissingIdentityError)) throw err;
    const { session } = loaded.config;
    throw new UsageError(
      borrowed
        ? `${err.message}; session.user_id ${session.user_id} in ${loaded.file} is for session.persona ${session.persona}, so --persona ${persona} needs its own --user-id`
        : `${err.message}; or set session.user_id in ${loaded.file}`,
    );
  }
}

/** `--strict`: the first persona pattern or pinned name matching no tool, as a ConfigError; undefined when every one matches. */
export function strictError(loaded: LoadedConfig, issues: readonly PatternIssue[]): ConfigError | undefined {
  const issue = issues[0];
  if (!issue) return undefined;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more, logged above)` : '';
  if (issue.file === 'config') return new ConfigError(loaded.file, issue.key, `${issue.message}${more}; --strict refuses pinned names that match no tool`);
  return new ConfigError(loaded.config.policy.personas ?? 'personas', issue.key, `${issue.message}${more}; --strict refuses patterns that match nothing`);
}

/** The pattern and pinned-name issues of a catalog read from a snapshot, where every upstream counts as connected. */
export function snapshotPatternIssues(loaded: LoadedConfig, tools: readonly ToolRecord[]): PatternIssue[] {
  return [...unmatchedPatterns(loaded.personas, tools, new Set(Object.keys(loaded.config.upstreams))), ...unmatchedPinned(loaded.config.exposure.pinned, tools)];
}
