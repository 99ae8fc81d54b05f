/**
 * The SentencePiece-style tokenizer of Universal Sentence Encoder Lite: the `Tokenizer`
 * and `Trie` of @tensorflow-models/universal-sentence-encoder 1.3.3
 * (src/tokenizer/index.ts, trie.ts; Copyright 2019 Google LLC, Apache License 2.0),
 * carried over line for line in TypeScript. That package declares TF.js 3 as a peer
 * dependency, so installing tool-curator with it put a second TF.js (3.21, 60 MB) beside
 * ours (4.22) in every user's node_modules, and loading it registered a second TF.js
 * platform; the tokenizer itself is plain string code and needs neither.
 * test/embedding/useTokenizer.test.ts checks that it encodes exactly as the package does.
 */

/** A vocabulary entry: the piece and its score (vocab.json of the USE weights). */
export type Vocabulary = [string, number][];

/** Lower one eighth block: SentencePiece's word-boundary marker. */
const SEPARATOR = '\u2581';
/** The first ids are reserved for unk, control and user-defined symbols. */
const RESERVED_SYMBOLS_COUNT = 6;

/** Unicode-aware characters of `input` (code points, not UTF-16 units). */
function stringToChars(input: string): string[] {
  return [...input];
}

function processInput(str: string): string {
  const normalized = str.normalize('NFKC');
  return normalized.length > 0 ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : normalized;
}

/** [piece characters, score, vocabulary index]. */
type Piece = [string[], number, number];

class TrieNode {
  parent: TrieNode | null = null;
  children: Record<string, TrieNode> = {};
  end = false;
  word: Piece = [[], 0, 0];
}

class Trie {
  private readonly root = new TrieNode();

  insert(word: string, score: number, index: number): void {
    let node = this.root;
    const symbols = stringToChars(word);
    for (let i = 0; i < symbols.length; i++) {
      if (!node.children[symbols[i]!]) {
        const child = new TrieNode();
        child.parent = node;
        child.word[0] = node.word[0].concat(symbols[i]!);
        node.children[symbols[i]!] = child;
      }
      node = node.children[symbols[i]!]!;
      if (i === symbols.length - 1) {
        node.end = true;
        node.word[1] = score;
        node.word[2] = index;
      }
    }
  }

  /** Every piece `ss` starts with; the first character alone (as unk) when none. */
  commonPrefixSearch(ss: string[]): Piece[] {
    const output: Piece[] = [];
    let node = this.root.children[ss[0]!];
    for (let i = 0; i < ss.length && node; i++) {
      if (node.end) output.push(node.word);
      node = node.children[ss[i + 1]!];
    }
    if (!output.length) output.push([[ss[0]!], 0, 0]);
    return output;
  }
}

export class Tokenizer {
  private readonly trie = new Trie();

  constructor(
    private readonly vocabulary: Vocabulary,
    reservedSymbolsCount = RESERVED_SYMBOLS_COUNT,
  ) {
    for (let i = reservedSymbolsCount; i < vocabulary.length; i++) this.trie.insert(vocabulary[i]![0], vocabulary[i]![1], i);
  }

  /** The vocabulary ids of `input`: the best-scoring segmentation, consecutive unknowns merged. */
  encode(input: string): number[] {
    const nodes: Record<number, { key: string[]; score: number; index: number }[]>[] = [];
    const words: number[] = [];
    const best: number[] = [];
    const symbols = stringToChars(processInput(input));
    for (let i = 0; i <= symbols.length; i++) {
      nodes.push({});
      words.push(0);
      best.push(0);
    }
    // Construct the lattice.
    for (let i = 0; i < symbols.length; i++) {
      for (const piece of this.trie.commonPrefixSearch(symbols.slice(i))) {
        const endPos = piece[0].length;
        (nodes[i + endPos]![i] ??= []).push({ key: piece[0], score: piece[1], index: piece[2] });
      }
    }
    for (let endPos = 0; endPos <= symbols.length; endPos++) {
      // Integer keys iterate in ascending order, as in the original's for…in.
      for (const startPos in nodes[endPos]) {
        for (const word of nodes[endPos]![Number(startPos)]!) {
          const score = word.score + best[endPos - word.key.length]!;
          if (best[endPos] === 0 || score >= best[endPos]!) {
            best[endPos] = score;
            words[endPos] = word.index;
          }
        }
      }
    }
    // Backward pass.
    const results: number[] = [];
    let iter = words.length - 1;
    while (iter > 0) {
      results.push(words[iter]!);
      iter -= this.vocabulary[words[iter]!]![0].length;
    }
    // Merge consecutive unks.
    const merged: number[] = [];
    let isPreviousUnk = false;
    for (const id of results) {
      if (!(isPreviousUnk && id === 0)) merged.push(id);
      isPreviousUnk = id === 0;
    }
    return merged.reverse();
  }
}
