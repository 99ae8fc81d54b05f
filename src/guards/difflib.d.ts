/** The part of difflib (a port of Python's difflib) the name guard uses. */
declare module 'difflib' {
  export class SequenceMatcher {
    /** Same arguments as Python's `SequenceMatcher(isjunk, a, b, autojunk=True)`. */
    constructor(isjunk: ((element: string) => boolean) | null, a: string, b: string, autojunk?: boolean);
    /** 2·M / T, where M is the number of matching characters and T the total of both lengths; in [0, 1]. */
    ratio(): number;
  }
  const difflib: { SequenceMatcher: typeof SequenceMatcher };
  export default difflib;
}
