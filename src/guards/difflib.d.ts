/** The part of difflib (a port of Python's difflib) the name guard and the definitions diff use. */
declare module 'difflib' {
  export class SequenceMatcher {
    /** Same arguments as Python's `SequenceMatcher(isjunk, a, b, autojunk=True)`. */
    constructor(isjunk: ((element: string) => boolean) | null, a: string, b: string, autojunk?: boolean);
    /** 2·M / T, where M is the number of matching characters and T the total of both lengths; in [0, 1]. */
    ratio(): number;
  }
  /** Python's `unified_diff(a, b, fromfile, tofile, n=3, lineterm)`: the lines of a unified diff of two line lists. */
  export function unifiedDiff(a: string[], b: string[], options?: { fromfile?: string; tofile?: string; n?: number; lineterm?: string }): string[];
  const difflib: { SequenceMatcher: typeof SequenceMatcher; unifiedDiff: typeof unifiedDiff };
  export default difflib;
}
