/**
 * What a new set of personas allows that the one in force did not, so that a live reload
 * that widens access says so in the log instead of a bare "configuration reloaded": a new
 * persona; tools a persona may now use (from the current catalog); allow patterns added
 * and deny patterns removed, for resources and prompts, and for tools when they match no
 * tool known now (their upstream is not connected); identity fields no longer
 * injected or injected from another template; withheld arguments given back; a weaker
 * confirmation policy or channel.
 */
import type { ToolRecord } from '../catalog/types.js';
import type { Persona, Personas } from '../config/schema.js';
import { patternMatches, Policy } from './policy.js';

/** Tool names listed in one widening, at most; the rest are counted. */
const NAMES_SHOWN = 10;

const CONFIRM_STRENGTH: Record<Persona['confirm'], number> = { none: 0, actions: 1, all: 2 };
/** `elicitation` and the per-transport default (elicitation over stdio) ask the host's user; `approvals` a person apart; `both` both. */
const CHANNEL_STRENGTH = (via: Persona['confirm_via']): number => (via === 'both' ? 3 : via === 'approvals' ? 2 : 1);

const quoted = (xs: string[]) => xs.map((x) => JSON.stringify(x)).join(', ');

function patternChanges(what: string, before: { allow: string[]; deny: string[] }, after: { allow: string[]; deny: string[] }, known = (_p: string) => false): string[] {
  const added = after.allow.filter((p) => !before.allow.includes(p) && !known(p));
  const removed = before.deny.filter((p) => !after.deny.includes(p) && !known(p));
  return [...(added.length ? [`${what} allow pattern added: ${quoted(added)}`] : []), ...(removed.length ? [`${what} deny pattern removed: ${quoted(removed)}`] : [])];
}

function listed(names: string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).join(', ');
  return names.length > NAMES_SHOWN ? `${shown} and ${names.length - NAMES_SHOWN} more` : shown;
}

/**
 * Every way `after` gives more than `before`, one sentence each, persona first.
 *
 * ### Usage
 * ```ts
 * widenings({ student: { ...s, allow: ['academics.get_*'] } }, { student: { ...s, allow: ['academics.*'] } }, catalog);
 * // ['student may now use 4 more tools: drop_course, enroll_in_course, …']
 * ```
 * @param catalog the tools known now; tool gains are counted over it.
 * @returns [] when nothing widens (narrowing and unchanged personas say nothing).
 */
export function widenings(before: Personas, after: Personas, catalog: readonly ToolRecord[]): string[] {
  const [was, is] = [new Policy(before), new Policy(after)];
  const out: string[] = [];
  for (const [name, p] of Object.entries(after)) {
    const old = before[name];
    const gained = catalog.filter((t) => is.isAllowed(name, t) && !(old && was.isAllowed(name, t))).map((t) => t.name);
    if (!old) {
      out.push(`${name} is a new persona${gained.length ? ` that may use ${gained.length} tool${gained.length === 1 ? '' : 's'}: ${listed(gained)}` : ''}`);
      continue;
    }
    if (gained.length) out.push(`${name} may now use ${gained.length} more tool${gained.length === 1 ? '' : 's'}: ${listed(gained)}`);
    const changes = [
      // A tool pattern matching tools known now is told by the tools it gains; one matching none may widen once its upstream connects.
      ...patternChanges('tools (matching no tool known now)', old, p, (pattern) => catalog.some((t) => patternMatches(pattern, t))),
      ...patternChanges('resources', old.resources, p.resources),
      ...patternChanges('prompts', old.prompts, p.prompts),
      ...Object.keys(old.identity).filter((f) => !(f in p.identity)).map((f) => `no longer injects ${f}`),
      ...Object.keys(old.identity).filter((f) => f in p.identity && p.identity[f] !== old.identity[f]).map((f) => `injects ${f} from "${p.identity[f]}" (was "${old.identity[f]}")`),
      ...old.withhold.filter((f) => !p.withhold.includes(f)).map((f) => `no longer withholds ${f}`),
      ...(CONFIRM_STRENGTH[p.confirm] < CONFIRM_STRENGTH[old.confirm] ? [`confirms ${p.confirm} (was ${old.confirm})`] : []),
      ...(CHANNEL_STRENGTH(p.confirm_via) < CHANNEL_STRENGTH(old.confirm_via) ? [`confirm_via ${p.confirm_via ?? 'default'} (was ${old.confirm_via})`] : []),
    ];
    out.push(...changes.map((c) => `${name}: ${c}`));
  }
  return out;
}
