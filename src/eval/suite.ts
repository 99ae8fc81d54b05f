/**
 * Suite runner: end-to-end shortlist quality on a suite of {query, persona, expected,
 * category} cases (the university suite plugs in here once its mock servers exist; the
 * dev suite in dev/ already does). Scores each case Correct / Partial / Missed and counts
 * the prompt tokens the shortlist costs against the persona's full tool list.
 */
import { toolDefinitionTokens } from '../catalog/tokens.js';
import type { ToolRecord } from '../catalog/types.js';
import type { CuratorMode, Selection, ToolCurator } from '../curator/types.js';

export interface SuiteCase {
  query: string;
  persona: string;
  /** Tools (exposed names) the query needs; [] for a query no tool answers. */
  expected: string[];
  category: string;
}

/**
 * correct: every expected tool shortlisted; partial: some; missed: none. For expected []
 * (nothing answers the query) correct means the curator said so (`Selection.noMatch`)
 * with no state-changing tool in its first three, else missed.
 */
export type Outcome = 'correct' | 'partial' | 'missed';

export interface CaseResult {
  case: SuiteCase;
  outcome: Outcome;
  /** Pinned tools, then the curator's shortlist. */
  shortlist: string[];
  /** The retrievers that answered (Selection.mode). */
  mode: CuratorMode;
  /** o200k_base tokens of the shortlist's definitions and of the persona's full list. */
  tokens: number;
  fullTokens: number;
}

export interface Tally {
  total: number;
  correct: number;
  partial: number;
  missed: number;
  /** (correct + 0.5 × partial) / total, in [0, 1]. */
  accuracy: number;
}

export interface SuiteReport extends Tally {
  byCategory: Record<string, Tally>;
  avgShortlist: number;
  avgTokens: number;
  avgFullTokens: number;
  /** 1 − avgTokens / avgFullTokens: the share of tool-definition prompt tokens saved. */
  tokenReduction: number;
  cases: CaseResult[];
}

export interface SuiteOptions {
  /** Shortlist size asked of the curator. Default the curator's (12). */
  topK?: number;
  /** Pinned tools (always visible to the host): count as shortlisted and as prompt cost. */
  pinned?: readonly string[];
  /** The learned scope of a persona's queries (SelectOptions.learnedScope); default none. */
  learnedScope?: (persona: string) => string;
}

export function outcomeOf(shortlist: readonly string[], expected: readonly string[]): Outcome {
  const have = new Set(shortlist);
  const found = expected.filter((e) => have.has(e)).length;
  if (found === expected.length) return 'correct';
  return found > 0 ? 'partial' : 'missed';
}

/** A query nothing answers was answered honestly: flagged as no match, no action among the first three tools. */
export function honestNoMatch(selection: Selection): boolean {
  return selection.noMatch !== undefined && !selection.tools.slice(0, 3).some((t) => t.isAction);
}

function tally(results: readonly CaseResult[]): Tally {
  const count = (o: Outcome): number => results.filter((r) => r.outcome === o).length;
  const total = results.length;
  const correct = count('correct');
  const partial = count('partial');
  return { total, correct, partial, missed: count('missed'), accuracy: total ? (correct + 0.5 * partial) / total : 0 };
}

/**
 * Runs every case through `curator.select` with the persona's allowed tools.
 *
 * ### Usage
 * ```ts
 * const report = await runSuite(curator, DEV_CASES, () => DEV_TOOLS, { topK: 12 });
 * const { accuracy, tokenReduction } = report;
 * ```
 */
export async function runSuite(
  curator: ToolCurator,
  cases: readonly SuiteCase[],
  allowedFor: (persona: string) => ToolRecord[],
  options: SuiteOptions = {},
): Promise<SuiteReport> {
  const fullTokens = new Map<string, number>();
  const results: CaseResult[] = [];
  for (const c of cases) {
    const allowed = allowedFor(c.persona);
    if (!fullTokens.has(c.persona)) fullTokens.set(c.persona, toolDefinitionTokens(allowed));
    const scope = options.learnedScope ? { learnedScope: options.learnedScope(c.persona) } : {};
    const selection = await curator.select(c.query, allowed, { topK: options.topK, ...scope });
    const pinned = allowed.filter((t) => options.pinned?.includes(t.name));
    const visible = [...pinned, ...selection.tools];
    const shortlist = visible.map((t) => t.name);
    const outcome = c.expected.length > 0 ? outcomeOf(shortlist, c.expected) : honestNoMatch(selection) ? 'correct' : 'missed';
    results.push({ case: c, outcome, shortlist, mode: selection.mode, tokens: toolDefinitionTokens(visible), fullTokens: fullTokens.get(c.persona)! });
  }
  const categories = [...new Set(cases.map((c) => c.category))];
  const n = results.length || 1;
  const avgTokens = results.reduce((s, r) => s + r.tokens, 0) / n;
  const avgFullTokens = results.reduce((s, r) => s + r.fullTokens, 0) / n;
  return {
    ...tally(results),
    byCategory: Object.fromEntries(categories.map((cat) => [cat, tally(results.filter((r) => r.case.category === cat))])),
    avgShortlist: results.reduce((s, r) => s + r.shortlist.length, 0) / n,
    avgTokens,
    avgFullTokens,
    tokenReduction: avgFullTokens > 0 ? 1 - avgTokens / avgFullTokens : 0,
    cases: results,
  };
}
