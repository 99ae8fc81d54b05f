/**
 * Checks of persona patterns against the configuration, so that a typo cannot silently
 * change who may do what:
 *
 * - a pattern naming an upstream that gateway.config.yaml does not define
 *   (`finanse.get_fee_dues`) is an error, always: it can never match anything;
 * - a pattern naming a tool that no connected upstream lists (`attendance.get_attendence_*`)
 *   is a warning at start, and an error under `--strict`; so is a pinned tool name
 *   (`exposure.pinned` of gateway.config.yaml) that no tool has, since a misspelt pin is
 *   silently never shown.
 *
 * Patterns are parsed exactly as policy.ts parses them.
 */
import type { ToolRecord } from '../catalog/types.js';
import type { Personas } from '../config/schema.js';
import { editDistance } from '../guards/nameMatch.js';
import { matchesPattern, parsePattern } from './policy.js';

export interface PatternIssue {
  /** The file the key is in: personas.yaml (`policy.personas`), or gateway.config.yaml for a pinned name. */
  file: 'personas' | 'config';
  /** The persona of a pattern; undefined for a pinned name. */
  persona?: string;
  /** Key path in its file: `student.allow.3`, `exposure.pinned.0`. */
  key: string;
  pattern: string;
  message: string;
}

/** The option nearest to `name` by edit distance, if near enough to be a typo of it (case-insensitive). */
export function closest(name: string, options: readonly string[]): string | undefined {
  let best: { o: string; d: number } | undefined;
  for (const o of options) {
    const d = editDistance(name.toLowerCase(), o.toLowerCase());
    if (!best || d < best.d) best = { o, d };
  }
  return best && best.d <= Math.max(2, Math.floor(name.length / 3)) ? best.o : undefined;
}

function* patternsOf(personas: Personas): Generator<{ persona: string; key: string; pattern: string }> {
  for (const [persona, p] of Object.entries(personas)) {
    for (const list of ['allow', 'deny'] as const) {
      for (const [i, pattern] of p[list].entries()) yield { persona, key: `${persona}.${list}.${i}`, pattern };
    }
  }
}

/** Patterns whose `<server>.` part is not a configured upstream (nor `*`). */
export function unknownServerPatterns(personas: Personas, upstreams: string[]): PatternIssue[] {
  const issues: PatternIssue[] = [];
  for (const { persona, key, pattern } of patternsOf(personas)) {
    const { server } = parsePattern(pattern);
    if (server === undefined || server === '*' || upstreams.includes(server)) continue;
    const near = closest(server, upstreams);
    issues.push({
      file: 'personas',
      persona,
      key,
      pattern,
      message:
        `pattern "${pattern}" names upstream "${server}", which is not in the config's upstreams` +
        `${near ? `; did you mean "${near}"?` : ''} (upstreams: ${upstreams.join(', ') || 'none'})`,
    });
  }
  return issues;
}

/**
 * Patterns that match no tool of the catalog. Patterns naming an upstream that is not
 * connected (`connected` lacks it) are skipped: their tools are unknown, not absent.
 */
export function unmatchedPatterns(personas: Personas, catalog: readonly ToolRecord[], connected: ReadonlySet<string>): PatternIssue[] {
  const issues: PatternIssue[] = [];
  for (const { persona, key, pattern } of patternsOf(personas)) {
    const p = parsePattern(pattern);
    if (p.server !== undefined && p.server !== '*' && !connected.has(p.server)) continue;
    if (catalog.some((t) => matchesPattern(p, t))) continue;
    const pool = catalog.filter((t) => p.server === undefined || p.server === '*' || t.server === p.server).map((t) => t.upstreamName);
    const glob = p.server === undefined ? pattern : pattern.slice(pattern.indexOf('.') + 1);
    const near = glob.includes('*') ? undefined : closest(glob, pool);
    issues.push({
      file: 'personas',
      persona,
      key,
      pattern,
      message: `pattern "${pattern}" matches no tool${p.server && p.server !== '*' ? ` of upstream ${p.server}` : ''}${near ? `; did you mean "${near}"?` : ''}`,
    });
  }
  return issues;
}

/**
 * Pinned tool names (`exposure.pinned`, exposed names) that no tool of the catalog has.
 * Judge them only with every upstream connected: a pin may name a tool of one still starting.
 * @param held exposed names of tools held back for a changed definition: they exist, out of the catalog for now.
 */
export function unmatchedPinned(pinned: readonly string[], catalog: readonly ToolRecord[], held: ReadonlySet<string> = new Set()): PatternIssue[] {
  const names = catalog.map((t) => t.name);
  const known = new Set(names);
  return pinned.flatMap((name, i) => {
    if (held.has(name) || known.has(name)) return [];
    const near = closest(name, names);
    return [{ file: 'config' as const, key: `exposure.pinned.${i}`, pattern: name, message: `pinned tool "${name}" is the name of no tool${near ? `; did you mean "${near}"?` : ''}` }];
  });
}
