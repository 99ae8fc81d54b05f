import { classifyPair } from '../dist/src/guards/nameMatch.js';
import { nameRatio } from '../dist/src/guards/nameIndex.js';
const pairs = process.argv.slice(2).map((p) => p.split(':'));
for (const [a, b] of pairs) console.log(a, '->', b, classifyPair(a, b), nameRatio(b, a).toFixed(3));
