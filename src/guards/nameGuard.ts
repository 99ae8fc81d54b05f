/**
 * Name guard: resolves the name the host sent to a catalog tool. An exact exposed name
 * resolves to its tool whatever the persona (the policy guard refuses it later, so a
 * forbidden call is refused and audited under its real name); so does a name equal but
 * for case. Any other name is compared with the persona's allowed names only, so a
 * correction never lands outside the persona, and is corrected silently only when it is
 * a typo of that name (nameMatch.ts) at a ratio of CORRECT_AT or more between their words:
 * a token more or less, a reversing affix, another verb or another word gets "did you
 * mean" and nothing runs. A name that says its upstream (`a__whoami`),
 * or that was the name of an upstream's tool, is compared with that upstream's tools
 * only — never corrected onto another server's look-alike — and when that upstream is
 * down, unauthorized or still starting the answer says so. While any upstream is still
 * starting, a name no ready upstream has and none ever listed is answered at once as
 * unknown for now, naming the upstreams still starting — neither corrected nor answered
 * with another server's look-alike, since a starting upstream may hold it. A correction
 * is told to the model in the result and to the person confirming the call.
 */
import { SERVER_SEPARATOR } from '../catalog/names.js';
import type { ToolRecord } from '../catalog/types.js';
import { log } from '../log.js';
import type { Policy } from '../policy/policy.js';
import { clipName } from './bound.js';
import { nameIndexOf, nameRatio, type Candidate } from './nameIndex.js';
import { classifyPair, nameTokens } from './nameMatch.js';
import { errorResult, isToolResult, type CallOutcome, type Guard } from './types.js';

export { nameRatio } from './nameIndex.js';

/**
 * At or above this ratio a typo (nameMatch.ts) is corrected silently, the ratio taken
 * between the two names' words (lower-case, `_`-joined: case and separators do not count).
 * 0.82 is the reference system's setting: it lets through one-letter slips in names of 15+
 * characters (`get_attendence_summary` → `get_attendance_summary` is 0.955) while a missing
 * word (`get_attendance` vs `get_attendance_summary`, 0.778) is only suggested; nameMatch.ts
 * refuses the missing word whatever the ratio (`get_attendance` vs `get_attendance_trend` is 0.823).
 */
export const CORRECT_AT = 0.82;
/** From this ratio the nearest names are offered as "did you mean"; below it, find_tools is suggested. 0.6 is Python's get_close_matches default cutoff. */
export const SUGGEST_AT = 0.6;
/** Longest tool name looked up. MCP sets no limit, hosts and model APIs allow 64; 128 leaves room for prefixed names. Longer is refused before any matching. */
export const MAX_NAME_LENGTH = 128;
/** How many names a "did you mean" offers. */
const SUGGESTIONS = 3;
/** `_meta` key of the correction note on a corrected call's result. */
export const CORRECTED_META = 'tool-curator/corrected';

/** The closest of `candidates` to `requested`; the first in catalog order wins a tie. Undefined for no candidates. */
export function closestTool(requested: string, candidates: ToolRecord[]): Candidate | undefined {
  let best: Candidate | undefined;
  for (const tool of candidates) {
    const ratio = nameRatio(tool.name, requested);
    if (!best || ratio > best.ratio) best = { tool, ratio };
  }
  return best;
}

/** The correction a call went through, if any: the name asked for and the tool that ran. */
export function correctionOf(ctx: { requestedName: string; tool?: ToolRecord; decisions: string[] }): { requested: string; called: string } | undefined {
  return ctx.tool && ctx.decisions.includes('corrected') ? { requested: ctx.requestedName, called: ctx.tool.name } : undefined;
}

/** The result with a leading note, and `_meta`, saying which tool the name asked for was resolved to (it ran, or awaits approval). */
function tellCorrection(result: CallOutcome, requested: string, called: string): CallOutcome {
  // A question back to the host (input_required) is told on the retry's result instead.
  if (!isToolResult(result)) return result;
  const note = { type: 'text' as const, text: `[tool-curator] ${requested} does not exist; resolved to ${called}` };
  return { ...result, content: [note, ...result.content], _meta: { ...result._meta, [CORRECTED_META]: { requested, called } } };
}

/**
 * A name as its lower-case words joined by `_`: the form a correction's ratio compares, so
 * that case and separators (`GetAttendanceSummary`, `get-attendance-summary`) cost nothing
 * and only the letters inside the words count.
 */
function wordsOf(name: string): string {
  return nameTokens(name).join('_');
}

function orList(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** What the name guard knows of the upstreams beyond their tools: who they are and whether they can be reached. */
export interface UpstreamView {
  /** Every configured upstream, reachable or not. */
  names(): readonly string[];
  /** Why an upstream's tools cannot be called now ("still starting since …", "not connected"), or undefined when it is ready. */
  unavailable(server: string): string | undefined;
  /** The upstreams still starting (never connected yet, or reconnecting), each with why, as `unavailable` says it. */
  starting(): { server: string; why: string }[];
  /** The upstream whose tool was last exposed as `name` (the remembered name map), if any. */
  formerOwner(name: string): string | undefined;
  /** Every remembered exposed name with its upstream; default none. */
  remembered?(): Iterable<[name: string, server: string]>;
}

const NO_UPSTREAMS: UpstreamView = { names: () => [], unavailable: () => undefined, starting: () => [], formerOwner: () => undefined };

/**
 * The remembered tool of an upstream that is unavailable now that `requested` is a typo
 * of (nameMatch.ts, at CORRECT_AT or more), if any: a slip on the name of a tool whose
 * upstream is down is not corrected onto a ready upstream's look-alike (`serch_repo` with
 * gh down must not run bb's `search_repos`). Only looked for while an upstream is down.
 */
function nearUnavailable(requested: string, upstreams: UpstreamView, inCatalog: (name: string) => boolean): { name: string; server: string; why: string; ratio: number } | undefined {
  const down = new Map<string, string>();
  for (const server of upstreams.names()) {
    const why = upstreams.unavailable(server);
    if (why !== undefined) down.set(server, why);
  }
  if (down.size === 0 || !upstreams.remembered) return undefined;
  const words = wordsOf(requested);
  let best: { name: string; server: string; why: string; ratio: number } | undefined;
  for (const [name, server] of upstreams.remembered()) {
    const why = down.get(server);
    if (why === undefined || inCatalog(name) || Math.abs(name.length - requested.length) > name.length / 2) continue;
    if (classifyPair(requested, name) !== 'typo') continue;
    const ratio = nameRatio(wordsOf(name), words);
    if (ratio >= CORRECT_AT && (!best || ratio > best.ratio)) best = { name, server, why, ratio };
  }
  return best;
}

/** The upstream a name asked for belongs to: its `<upstream>__` prefix (any case, the longest), else the upstream that held it. */
function ownerOf(requested: string, upstreams: UpstreamView): string | undefined {
  const lower = requested.toLowerCase();
  const prefixed = upstreams
    .names()
    .filter((u) => lower.startsWith(`${u.toLowerCase()}${SERVER_SEPARATOR}`))
    .sort((a, b) => b.length - a.length)[0];
  return prefixed ?? upstreams.formerOwner(requested);
}

/**
 * ### Usage
 * ```ts
 * const guard = nameGuard(() => catalog, policy, upstreams);
 * // "get_attendence_summary" reaches the next guard as get_attendance_summary, with
 * // ctx.decisions ['corrected']; the result starts with "[tool-curator] … resolved to …".
 * // "unenroll_in_course" gets "did you mean enroll_in_course?" and reaches nothing;
 * // "a__whoami" is compared with upstream a's tools only, or told that a is unavailable.
 * ```
 * @param upstreams the configured upstreams and their state; default none known.
 */
export function nameGuard(tools: () => ToolRecord[], policy: Policy, upstreams: UpstreamView = NO_UPSTREAMS): Guard {
  return async (ctx, next) => {
    const requested = ctx.requestedName;
    const shown = clipName(requested, 64);
    if (requested.length > MAX_NAME_LENGTH) {
      ctx.decisions.push('refused');
      ctx.notes.push(`name of ${requested.length} characters refused`);
      return errorResult(`unknown tool ${shown}: tool names are at most ${MAX_NAME_LENGTH} characters; call find_tools to get the right tool's name`);
    }
    const index = nameIndexOf(tools());
    const exact = index.get(requested);
    const sameButCase = exact ? [] : index.caseInsensitive(requested);
    if (exact || sameButCase.length === 1) {
      ctx.tool = exact ?? sameButCase[0]!;
      if (!exact) ctx.notes.push(`resolved ${requested} to ${ctx.tool.name} (case differs)`);
      return next(ctx);
    }
    // A name that says whose it is (`a__whoami`), or that was the name of an upstream's tool,
    // is looked for among that upstream's tools only; an upstream that is unavailable is said so.
    const owner = ownerOf(requested, upstreams);
    const down = owner === undefined ? undefined : upstreams.unavailable(owner);
    const starting = upstreams.starting();
    if (owner !== undefined && down !== undefined) {
      ctx.decisions.push('refused');
      ctx.notes.push(`upstream ${owner} unavailable (${down})`);
      const advice = starting.some((u) => u.server === owner) ? 'Try again once it has started, or call find_tools for the tools available now.' : 'Try again later.';
      return errorResult(`${shown} belongs to upstream "${owner}", which is unavailable (${down}); nothing was run. ${advice}`);
    }
    // A name no upstream ever listed may be a tool of one still starting: no correction or
    // "did you mean" onto a ready upstream's tool, and no waiting for the starting ones.
    if (owner === undefined && starting.length > 0) {
      ctx.decisions.push('refused');
      ctx.notes.push(`unknown tool while ${starting.map((u) => u.server).join(', ')} still starting`);
      const which = starting.map((u) => `"${u.server}" (${u.why})`);
      return errorResult(
        `unknown tool ${shown}: no upstream that is ready has it, and ${starting.length === 1 ? 'upstream' : 'upstreams'} ${orList(which)}, not ready yet, may; nothing was run. Try again once ${starting.length === 1 ? 'it has' : 'they have'} started, or call find_tools for the tools available now.`,
      );
    }
    const allowed = (t: ToolRecord) => (owner === undefined || t.server === owner) && policy.isAllowed(ctx.session.persona, t);
    const { candidates } = index.fuzzy(requested, allowed, SUGGEST_AT);
    const typos = candidates
      .filter((c) => classifyPair(requested, c.tool.name) === 'typo')
      .map((c) => ({ tool: c.tool, ratio: nameRatio(wordsOf(c.tool.name), wordsOf(requested)) }))
      .filter((c) => c.ratio >= CORRECT_AT)
      .sort((a, b) => b.ratio - a.ratio);
    const best = typos[0];
    // A slip on the name of a tool whose upstream is down, at least as near as any ready tool, is answered with that
    // upstream's state: never corrected onto another upstream's look-alike because its own is down.
    const slip = owner === undefined ? nearUnavailable(requested, upstreams, (name) => index.get(name) !== undefined) : undefined;
    if (slip && !(typos[0] && typos[0].ratio > slip.ratio)) {
      ctx.decisions.push('refused');
      ctx.notes.push(`near ${slip.name} of upstream ${slip.server}, unavailable (${slip.why})`);
      return errorResult(
        `unknown tool ${shown}; it looks like ${slip.name} of upstream "${slip.server}", which is unavailable (${slip.why}); nothing was run, and it was not resolved to another upstream's tool. Try again later, or call find_tools for the tools available now.`,
      );
    }
    // Two typos equally near (`get_fee_due` for get_fee_dues and get_fee_due_s) are a question, not a correction.
    if (best && !(typos[1] && typos[1].ratio === best.ratio)) {
      ctx.tool = best.tool;
      ctx.decisions.push('corrected');
      ctx.notes.push(`corrected from ${requested} (ratio ${best.ratio.toFixed(3)})`);
      log.info({ session: ctx.session.sessionId, requested, tool: best.tool.name, ratio: best.ratio }, 'tool name corrected');
      return tellCorrection(await next(ctx), requested, best.tool.name);
    }
    ctx.decisions.push('refused');
    const near = [...sameButCase.filter(allowed), ...candidates.filter((c) => c.ratio >= SUGGEST_AT).map((c) => c.tool)]
      .map((t) => t.name)
      .filter((n, i, all) => all.indexOf(n) === i)
      .slice(0, SUGGESTIONS);
    if (near.length > 0) {
      ctx.notes.push(`unknown tool; suggested ${near.join(', ')}${candidates[0] ? ` (best ratio ${candidates[0].ratio.toFixed(3)})` : ''}`);
      return errorResult(`unknown tool ${shown}; did you mean ${orList(near)}? Nothing was run: call the tool you mean by its exact name.`);
    }
    ctx.notes.push(candidates[0] ? `unknown tool (best ratio ${candidates[0].ratio.toFixed(3)})` : 'unknown tool (no name near it)');
    return errorResult(`unknown tool ${shown}; call find_tools with a short description of what you want to do to get the right tool's name`);
  };
}
