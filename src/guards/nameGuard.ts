/**
 * Name guard: resolves the name the host sent to a catalog tool. An exact exposed name
 * resolves to its tool whatever the persona (the policy guard refuses it later, so a
 * forbidden call is refused and audited under its real name). Any other name is compared
 * with the persona's allowed names only, so a correction never lands outside the persona.
 */
import difflib from 'difflib';
import type { ToolRecord } from '../catalog/types.js';
import { log } from '../log.js';
import type { Policy } from '../policy/policy.js';
import { errorResult, type Guard } from './types.js';

/**
 * At or above this ratio an unknown name is corrected silently (and logged). 0.82 is the
 * reference system's setting: it lets through one-letter slips in names of 15+ characters
 * (`get_attendence_summary` → `get_attendance_summary` is 0.955) while a missing word
 * (`get_attendance` vs `get_attendance_summary`, 0.778) is only suggested.
 */
export const CORRECT_AT = 0.82;
/** From this ratio up to CORRECT_AT the call is refused with "did you mean"; below it, find_tools is suggested. 0.6 is Python's get_close_matches default cutoff. */
export const SUGGEST_AT = 0.6;

/**
 * difflib's SequenceMatcher ratio, with the argument order of Python's
 * `get_close_matches(word, possibilities)`: `a` is the candidate, `b` the word asked for
 * (the ratio is not always symmetric).
 */
export function nameRatio(candidate: string, requested: string): number {
  return new difflib.SequenceMatcher(null, candidate, requested).ratio();
}

/** The closest of `candidates` to `requested`; the first in catalog order wins a tie. Undefined for no candidates. */
export function closestTool(requested: string, candidates: ToolRecord[]): { tool: ToolRecord; ratio: number } | undefined {
  let best: { tool: ToolRecord; ratio: number } | undefined;
  for (const tool of candidates) {
    const ratio = nameRatio(tool.name, requested);
    if (!best || ratio > best.ratio) best = { tool, ratio };
  }
  return best;
}

/**
 * ### Usage
 * ```ts
 * const guard = nameGuard(() => catalog, policy);
 * // "get_attendence_summary" reaches the next guard as get_attendance_summary,
 * // with ctx.decisions ['corrected'] and a note naming the original.
 * ```
 */
export function nameGuard(tools: () => ToolRecord[], policy: Policy): Guard {
  return async (ctx, next) => {
    const catalog = tools();
    const exact = catalog.find((t) => t.name === ctx.requestedName);
    if (exact) {
      ctx.tool = exact;
      return next(ctx);
    }
    const best = closestTool(ctx.requestedName, policy.allowed(ctx.session.persona, catalog));
    const ratio = best ? best.ratio.toFixed(3) : '0';
    if (best && best.ratio >= CORRECT_AT) {
      ctx.tool = best.tool;
      ctx.decisions.push('corrected');
      ctx.notes.push(`corrected from ${ctx.requestedName} (ratio ${ratio})`);
      log.info({ session: ctx.session.sessionId, requested: ctx.requestedName, tool: best.tool.name, ratio: best.ratio }, 'tool name corrected');
      return next(ctx);
    }
    ctx.decisions.push('refused');
    if (best && best.ratio >= SUGGEST_AT) {
      ctx.notes.push(`unknown tool; suggested ${best.tool.name} (ratio ${ratio})`);
      return errorResult(`unknown tool ${ctx.requestedName}; did you mean ${best.tool.name}?`);
    }
    ctx.notes.push(`unknown tool (best ratio ${ratio})`);
    return errorResult(
      `unknown tool ${ctx.requestedName}; call find_tools with a short description of what you want to do to get the right tool's name`,
    );
  };
}
