/**
 * Exact tool names in a query: a user or a host's model that writes `get_fee_dues`,
 * `finance.make_payment` or `finance__make_payment` has chosen the tool, and no ranking
 * may lose it. The name-token anchor (anchor.ts) forgives paraphrase but loses between
 * look-alikes that share most name tokens (`get_exam_results` vs `get_exam_result_statistics`);
 * an exact name is not a ranking signal but a choice, so it is placed first.
 */
import type { ToolRecord } from '../catalog/types.js';

/**
 * Characters of a spelled-out tool name: MCP tool names are `[A-Za-z0-9_.-]`, plus `/`
 * and `:` that some servers use. A query candidate is a maximal run of them.
 */
const NAME_RUN = /[\p{L}\p{N}_.\-/:]+/gu;

/**
 * Whether a name, seen in running text, can only be a name: it has a separator (`_ . - /
 * :`) or an inner capital (camelCase). A one-word name (`search`, `echo`) is an ordinary
 * word in a sentence, so it counts only when the whole query is that word.
 */
function identifierLike(name: string): boolean {
  return /[_.\-/:]/.test(name) || /\p{Ll}\p{Lu}/u.test(name);
}

/** A tool the query names, and where in the query the name starts (named order). */
export interface NamedTool {
  index: number;
  position: number;
}

export class ExactNames {
  /** Lower-cased spelling → catalog indices (a bare upstream name may belong to several servers). */
  private readonly spellings = new Map<string, number[]>();

  /**
   * Every spelling of each tool: its exposed name, its upstream name, and the
   * server-qualified forms `server.tool` and `server__tool` of both.
   */
  constructor(tools: readonly Pick<ToolRecord, 'name' | 'upstreamName' | 'server'>[] = []) {
    this.add(tools, 0);
  }

  /** Adds `tools` as catalog indices `first`, `first + 1`, …, so a large catalog can be indexed in chunks. */
  add(tools: readonly Pick<ToolRecord, 'name' | 'upstreamName' | 'server'>[], first: number): void {
    tools.forEach((t, k) => {
      const i = first + k;
      const forms = new Set<string>();
      for (const n of new Set([t.name, t.upstreamName])) {
        forms.add(n);
        forms.add(`${t.server}.${n}`);
        forms.add(`${t.server}__${n}`);
      }
      for (const f of forms) {
        const key = f.toLowerCase();
        const list = this.spellings.get(key);
        if (!list) this.spellings.set(key, [i]);
        else if (!list.includes(i)) list.push(i);
      }
    });
  }

  /**
   * Allowed tools whose exact name occurs in `query`, in the order the query names them,
   * each once. A name counts when a maximal run of name characters equals one of its
   * spellings, case-insensitively, ignoring trailing `.`/`:`/`-` (sentence punctuation).
   * One-word names count only when the query is that one word.
   *
   * ### Usage
   * ```ts
   * const names = new ExactNames([{ name: 'get_fee_dues', upstreamName: 'get_fee_dues', server: 'finance' },
   *                               { name: 'search', upstreamName: 'search', server: 'web' }]);
   * names.match('call finance.get_fee_dues, then search')  // [{ index: 0, position: 5 }]
   * names.match('search')                                   // [{ index: 1, position: 0 }]
   * ```
   */
  match(query: string, allowed?: Uint8Array): NamedTool[] {
    const out: NamedTool[] = [];
    const seen = new Set<number>();
    const whole = query.trim().replace(/^[`'"]+|[`'".:!?]+$/gu, '');
    for (const m of query.matchAll(NAME_RUN)) {
      const word = m[0].replace(/[.:\-/]+$/u, '').replace(/^[.:\-/]+/u, '');
      if (!word) continue;
      const found = this.spellings.get(word.toLowerCase());
      if (!found) continue;
      if (!identifierLike(word) && word !== whole) continue;
      for (const index of found) {
        if (seen.has(index) || (allowed && allowed[index] !== 1)) continue;
        seen.add(index);
        out.push({ index, position: m.index });
      }
    }
    return out;
  }
}
