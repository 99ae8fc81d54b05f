/**
 * Name-token anchor: a query that spells out most of a tool's name ("click inside the
 * iframe" → `playwright_iframe_click`) has named the tool, whatever the retrievers think.
 * Retrieval ranks such a tool high most of the time; the anchor covers the cases where an
 * embedding blurs look-alike tools or BM25's IDF underrates a common word.
 */
import { splitName } from '../catalog/retrievalText.js';
import { tokenize } from './tokenize.js';

/** Name tokens of 3 characters or fewer (`get`, `set`, `id`, `v1`) say nothing. */
export const ANCHOR_MIN_TOKEN_LENGTH = 4;
/** Share of a name's long tokens that must occur in the query: 2 of 3, 3 of 4, 1 of 1. */
export const ANCHOR_COVERAGE = 0.6;

/** A tool the query names: catalog index and the share of its name tokens in the query. */
export interface Anchored {
  index: number;
  coverage: number;
}

/** Anchor-relevant tokens of a tool name (length counted before stemming), in the tokenizer's form, distinct. */
export function nameTokens(name: string): string[] {
  const words = splitName(name).filter((w) => w.length >= ANCHOR_MIN_TOKEN_LENGTH);
  return [...new Set(words.flatMap((w) => tokenize(w)))];
}

export class NameAnchor {
  /** token → catalog indices of the tools whose name has it. */
  private readonly postings = new Map<string, number[]>();
  private readonly tokenCount: number[] = [];

  constructor(names: readonly string[] = []) {
    this.add(names, 0);
  }

  /** Adds `names` as catalog indices `first`, `first + 1`, … (the next ones), so a large catalog can be indexed in chunks. */
  add(names: readonly string[], first: number): void {
    if (first !== this.tokenCount.length) throw new Error(`NameAnchor.add: names must follow on; expected first index ${this.tokenCount.length}, got ${first}.`);
    names.forEach((name, k) => {
      const i = first + k;
      const tokens = nameTokens(name);
      this.tokenCount.push(tokens.length);
      for (const t of tokens) {
        const list = this.postings.get(t);
        if (list) list.push(i);
        else this.postings.set(t, [i]);
      }
    });
  }

  /**
   * Allowed tools whose name tokens are ≥ 60 % present in `query`, most covered first
   * (ties: catalog order). Tools with no token of 4+ characters are never anchored.
   *
   * ### Usage
   * ```ts
   * new NameAnchor(['playwright_iframe_click', 'puppeteer_click']).match('Click in the iframe')
   * // [{ index: 0, coverage: 2/3 }]   (puppeteer_click: 1 of 2 tokens, not anchored)
   * ```
   */
  match(query: string, allowed?: Uint8Array): Anchored[] {
    const hits = new Map<number, number>();
    for (const term of new Set(tokenize(query))) {
      for (const i of this.postings.get(term) ?? []) hits.set(i, (hits.get(i) ?? 0) + 1);
    }
    const out: Anchored[] = [];
    for (const [index, n] of hits) {
      const coverage = n / this.tokenCount[index]!;
      if (coverage >= ANCHOR_COVERAGE && (!allowed || allowed[index] === 1)) out.push({ index, coverage });
    }
    return out.sort((a, b) => b.coverage - a.coverage || a.index - b.index);
  }
}
