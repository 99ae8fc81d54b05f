/**
 * Server-level evidence (hierarchical retrieval, as in MCP-Zero, Fei et al. 2025, and
 * ScaleMCP, Lumer et al. 2025): a multi-step request ("make a Word report with a table
 * and give me a PDF") is usually served by several tools of one or two servers, and no
 * single tool's text holds all of its words: `convert_to_pdf` says nothing of tables,
 * `add_table` nothing of PDFs. The server, taken as one document (its name, title and
 * instructions, and its tools' names and descriptions), does. Servers are ranked by BM25
 * over those documents (length-normalised, so a server of forty tools does not win by
 * holding more words), and every tool of a server is lifted by its server's score scaled
 * to [0, 1], so the siblings of a strong hit move up past tools of servers that explain
 * less of the request. A catalog of one server has no server index: nothing changes.
 */
import type { ToolRecord } from '../catalog/types.js';
import { splitName, type RetrievalFields } from '../catalog/retrievalText.js';
import { Bm25Index } from './bm25.js';

/**
 * Weight of a server's score, scaled to [0, 1], added to its tools' score-fusion scores
 * (each in [0, 1]). Chosen on the development suites (eval/dev-multistep.yaml,
 * eval/dev-robust.yaml, the university suite; docs/CURATOR.md "Issue 22, second round").
 */
export const SERVER_LIFT = 0.2;

/** The first characters of a server's instructions that describe it (as retrievalText.ts's bare descriptions). */
const MAX_INSTRUCTIONS = 500;

export class ServerMap {
  private constructor(
    /** Per catalog index: its server's number. */
    private readonly serverOf: Int32Array,
    /** One document per server. */
    private readonly index: Bm25Index,
  ) {}

  /** The servers of a catalog; undefined when it has fewer than two (the lift would be even). */
  static build(tools: readonly ToolRecord[], fields: readonly RetrievalFields[]): ServerMap | undefined {
    const numbers = new Map<string, number>();
    const docs: { name: string[]; description: string[]; parameters: string[] }[] = [];
    const serverOf = new Int32Array(tools.length);
    tools.forEach((t, i) => {
      let n = numbers.get(t.server);
      if (n === undefined) {
        n = docs.length;
        numbers.set(t.server, n);
        docs.push({ name: [splitName(t.server).join(' '), t.serverTitle ?? ''], description: [t.serverInstructions?.slice(0, MAX_INSTRUCTIONS) ?? ''], parameters: [] });
      }
      serverOf[i] = n;
      docs[n]!.description.push(fields[i]!.description);
      docs[n]!.parameters.push(fields[i]!.name);
    });
    if (docs.length < 2) return undefined;
    const index = new Bm25Index(docs.map((d) => ({ name: d.name.join('. '), description: d.description.join('. '), parameters: d.parameters.join('. ') })), { spelling: false });
    return new ServerMap(serverOf, index);
  }

  /**
   * The lift of each catalog index: `weight` × the BM25 score of the tool's server for
   * `text`, scaled by the best server's (0 for a server that matches no word of it);
   * undefined when no server matches. A lookup, not an array: the work is per server.
   *
   * ### Usage
   * ```ts
   * const lift = servers.lift('make a Word report with a table and a PDF copy', 0.2);
   * lift?.(indexOfAddTable)  // 0.2 when the word processor is the best server
   * ```
   */
  lift(text: string, weight: number): ((index: number) => number) | undefined {
    const hits = this.index.query(text);
    const top = hits[0]?.score ?? 0;
    if (top <= 0) return undefined;
    const byServer = new Float64Array(this.index.size);
    for (const h of hits) byServer[h.index] = (weight * h.score) / top;
    return (index) => byServer[this.serverOf[index]!]!;
  }
}
