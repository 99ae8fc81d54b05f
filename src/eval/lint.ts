/**
 * `tool-curator lint`: the catalog as the curator sees it (overrides applied, synonyms and
 * exemplars attached), checked per tool and per persona. Per tool: empty or very short
 * descriptions, texts that are documentation rather than a contract, parameters without a
 * description, over-long definitions; look-alike families (names sharing an object word)
 * with what separates their members. Per persona: confusable pairs, tools the curator
 * itself cannot tell apart (asked with a tool's own name phrase, first sentence or one of
 * its exemplars, another tool ranks above it or within NEAR_TIE of its score), with the
 * words that separate them; and the prompt cost of the persona's full tool list against
 * the curated list.
 */
import { bareDescription, passageParts, retrievalText, splitName } from '../catalog/retrievalText.js';
import { toolDefinitionTokens } from '../catalog/tokens.js';
import type { ToolRecord } from '../catalog/types.js';
import { buildBm25 } from '../curator/build.js';
import type { ExtraContext, ToolCurator } from '../curator/types.js';
import { contentTerms, STOPWORDS, tokenize } from '../curator/tokenize.js';

/** A description shorter than this (characters) says too little to be told apart. */
export const SHORT_DESCRIPTION = 40;
/** A definition (name, description, schemas, annotations as tools/list sends it) over this many tokens costs every call. */
export const LONG_DEFINITION_TOKENS = 600;
/** A description over this many characters with a documentation mark, or over DOC_LENGTH × 3 with none, reads as documentation. */
export const DOC_LENGTH = 500;
/** Separating words shown per side of a confusable pair. */
const SEPARATING_WORDS = 4;

/** Marks of documentation in a description: code, headings, lists, links, worked examples. */
const DOC_MARKS: readonly [string, RegExp][] = [
  ['code block', /```/],
  ['heading', /^#{1,6}\s/m],
  ['list', /(?:^\s*(?:[-*•]|\d+\.)\s.*\n){3,}/m],
  ['link', /https?:\/\//],
  ['examples', /\b(?:example|e\.g\.|usage)\b[^]*\b(?:example|e\.g\.|usage)\b/i],
];

export interface ToolIssue {
  tool: string;
  server: string;
  kind: 'empty-description' | 'short-description' | 'documentation' | 'undescribed-parameters' | 'long-definition';
  detail: string;
}

export interface ConfusablePair {
  tool: string;
  /** The tool ranked above it for its own text (or right below it, within NEAR_TIE of its score: rank 1). */
  rival: string;
  /** The text asked (the tool's name phrase, first description sentence, or an exemplar). */
  probe: string;
  /** The tool's rank for it (1-based; 0: not in the list). */
  rank: number;
  /** Words of the tool's text its rival's lacks, and the reverse: rarest in the catalog first. */
  separatedBy: { tool: string[]; rival: string[] };
}

export interface PersonaLint {
  persona: string;
  tools: number;
  /** Prompt tokens of the persona's whole tool list, and of the curated lists (mean over the probes). */
  fullTokens: number;
  curatedTokens: number;
  confusable: ConfusablePair[];
}

/** Tools whose names share an object word: what the curator must tell apart by the rest of their text. */
export interface LookAlikeFamily {
  /** The shared name word (tokenizer form). */
  word: string;
  /** Each member and the words of its text no other member has, rarest in the catalog first. */
  members: { tool: string; separatedBy: string[] }[];
}

export interface LintReport {
  tools: number;
  issues: ToolIssue[];
  /** Look-alike families by name, largest first. */
  families: LookAlikeFamily[];
  personas: PersonaLint[];
}

/** A name word shared by more tools than this is a domain word (the catalog's subject), not a family. */
const MAX_FAMILY = 16;

/** The per-tool checks, persona-independent. */
export function toolIssues(tool: ToolRecord): ToolIssue[] {
  const out: ToolIssue[] = [];
  const issue = (kind: ToolIssue['kind'], detail: string) => out.push({ tool: tool.name, server: tool.server, kind, detail });
  const d = tool.description.trim();
  if (d === '') issue('empty-description', 'no description: found only by its name and parameters');
  else if (d.length < SHORT_DESCRIPTION || bareDescription(tool)) issue('short-description', `"${d}" (${d.length} characters) says little beyond the name`);
  const marks = DOC_MARKS.filter(([, re]) => re.test(d)).map(([m]) => m);
  if ((d.length > DOC_LENGTH && marks.length > 0) || d.length > 3 * DOC_LENGTH) {
    issue('documentation', `${d.length} characters${marks.length > 0 ? ` with ${marks.join(', ')}` : ''}: write what it does, takes and returns; usage notes belong in the server's instructions`);
  }
  const props = (tool.inputSchema as { properties?: Record<string, { description?: unknown }> }).properties ?? {};
  const bare = Object.entries(props).filter(([, p]) => typeof p?.description !== 'string' || p.description.trim() === '').map(([n]) => n);
  if (bare.length > 0) issue('undescribed-parameters', bare.join(', '));
  const tokens = toolDefinitionTokens([tool]);
  if (tokens > LONG_DEFINITION_TOKENS) issue('long-definition', `${tokens} tokens on every call that lists it`);
  return out;
}

/**
 * A tool that ranks first for its own text is still confusable when the runner-up's fused
 * score is within this share of its own: a rephrasing away from changing places.
 */
export const NEAR_TIE = 0.1;

/** The texts a tool is asked with: its name phrase, its first description sentence and its exemplars. */
function probes(tool: ToolRecord, extra: ExtraContext): string[] {
  const parts = passageParts(tool, extra.synonyms?.[tool.name]);
  return [...new Set([...(parts.name ? [parts.name] : []), ...parts.sentences.slice(0, 1), ...(extra.exemplars?.[tool.name] ?? []), ...(tool.examples ?? [])])];
}

export interface LintOptions {
  /** The curator to probe with, already indexed over `catalog` with `extra`. */
  curator: ToolCurator;
  catalog: readonly ToolRecord[];
  extra: ExtraContext;
  /** Persona → its allowed tools as its host sees them (identity fields removed); one entry for a catalog without personas. */
  personas: ReadonlyMap<string, ToolRecord[]>;
  /** The limit the curator is asked for (config curator.top_k). */
  topK: number;
}

/**
 * Lints a catalog. Each tool is asked with its own text within each persona's pool; a tool
 * outranked by another becomes a confusable pair (one per tool and rival, the probe that
 * ranked it lowest), with the words that separate them by BM25 IDF over the catalog.
 *
 * ### Usage
 * ```ts
 * const report = await lintCatalog({ curator, catalog, extra, personas: new Map([['student', allowed]]), topK: 17 });
 * report.personas[0].confusable  // [{ tool: 'get_fee_structure', rival: 'get_fee_dues', separatedBy: { … } }, …]
 * ```
 */
export async function lintCatalog(options: LintOptions): Promise<LintReport> {
  const { curator, catalog, extra, topK } = options;
  const bm25 = await buildBm25(catalog, extra);
  const terms = new Map(catalog.map((t) => [t.name, new Set(contentTerms(retrievalText(t, extra.synonyms?.[t.name])))]));
  const separating = (a: string, b: string): string[] =>
    [...terms.get(a)!].filter((w) => !terms.get(b)!.has(w) && !/\d/.test(w)).sort((x, y) => bm25.idf(y) - bm25.idf(x)).slice(0, SEPARATING_WORDS);
  const personas: PersonaLint[] = [];
  for (const [persona, allowed] of options.personas) {
    const pairs = new Map<string, ConfusablePair>();
    let curated = 0;
    let asked = 0;
    for (const tool of allowed) {
      for (const probe of probes(tool, extra)) {
        const s = await curator.select(probe, allowed, { topK, explain: true });
        curated += toolDefinitionTokens(s.tools);
        asked++;
        const rank = s.tools.findIndex((t) => t.name === tool.name) + 1;
        const [first, second] = s.explanations ?? [];
        const tied = rank === 1 && second?.fusedScore !== undefined && first?.fusedScore !== undefined && second.fusedScore >= (1 - NEAR_TIE) * first.fusedScore;
        if (rank === 1 && !tied) continue;
        const rival = s.tools[rank === 1 ? 1 : 0];
        if (!rival) continue;
        const key = `${tool.name}\0${rival.name}`;
        const known = pairs.get(key);
        if (known && (known.rank === 0 || (rank !== 0 && known.rank >= rank))) continue;
        pairs.set(key, { tool: tool.name, rival: rival.name, probe, rank, separatedBy: { tool: separating(tool.name, rival.name), rival: separating(rival.name, tool.name) } });
      }
    }
    personas.push({ persona, tools: allowed.length, fullTokens: toolDefinitionTokens(allowed), curatedTokens: asked > 0 ? Math.round(curated / asked) : 0, confusable: [...pairs.values()] });
  }
  return { tools: catalog.length, issues: catalog.flatMap(toolIssues), families: lookAlikes(catalog, terms, (w) => bm25.idf(w)), personas };
}

/**
 * Look-alike families: tools whose names share a word of 3+ letters, not a stopword,
 * other than their first (the verb: get, list, mark, update), held by 2 to MAX_FAMILY
 * names, each member with the words of its retrieval text no other member has.
 */
function lookAlikes(catalog: readonly ToolRecord[], terms: ReadonlyMap<string, ReadonlySet<string>>, idf: (w: string) => number): LookAlikeFamily[] {
  const byWord = new Map<string, string[]>();
  for (const t of catalog) {
    const words = splitName(t.name).slice(1).flatMap((x) => tokenize(x)).filter((x) => x.length >= 3 && !STOPWORDS.has(x));
    for (const w of new Set(words)) byWord.set(w, [...(byWord.get(w) ?? []), t.name]);
  }
  return [...byWord]
    .filter(([, names]) => names.length >= 2 && names.length <= MAX_FAMILY)
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .map(([word, names]) => ({
      word,
      members: names.map((tool) => {
        const others = names.filter((n) => n !== tool).map((n) => terms.get(n)!);
        const own = [...terms.get(tool)!].filter((w) => !/\d/.test(w) && others.every((o) => !o.has(w)));
        return { tool, separatedBy: own.sort((x, y) => idf(y) - idf(x)).slice(0, SEPARATING_WORDS) };
      }),
    }));
}

/** Confusable pairs grouped into families: tools linked by a pair, each family's tools sorted. */
export function families(pairs: readonly ConfusablePair[]): string[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    const p = parent.get(x) ?? x;
    if (p === x) return x;
    const root = find(p);
    parent.set(x, root);
    return root;
  };
  for (const { tool, rival } of pairs) parent.set(find(tool), find(rival));
  const groups = new Map<string, string[]>();
  for (const name of new Set(pairs.flatMap((p) => [p.tool, p.rival]))) {
    const root = find(name);
    groups.set(root, [...(groups.get(root) ?? []), name]);
  }
  return [...groups.values()].map((g) => g.sort()).sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}
