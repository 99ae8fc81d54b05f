import { describe, expect, test } from 'vitest';
import { bestThreshold, distribution } from '../../src/eval/calibrate.js';
import { completeAt, MetricsAccumulator, ndcgAt, percentile, recallAt, reciprocalRank } from '../../src/eval/metrics.js';

describe('metrics', () => {
  const ranked = ['a', 'b', 'c', 'd', 'e', 'f'];
  test('Recall@k and Complete@k', () => {
    expect(recallAt(ranked, ['b', 'f', 'z'], 5)).toBeCloseTo(1 / 3, 12);
    expect(recallAt(ranked, ['b', 'f', 'z'], 10)).toBeCloseTo(2 / 3, 12);
    expect(completeAt(ranked, ['a', 'e'], 5)).toBe(1);
    expect(completeAt(ranked, ['a', 'f'], 5)).toBe(0);
  });
  test('nDCG@10, binary relevance', () => {
    expect(ndcgAt(ranked, ['a'])).toBe(1);
    expect(ndcgAt(ranked, ['c'])).toBeCloseTo(1 / Math.log2(4), 12);
    expect(ndcgAt(ranked, ['b', 'd'])).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)), 12);
    expect(ndcgAt(ranked, ['z'])).toBe(0);
    expect(ndcgAt(['x', 'g'], ['g'], 1)).toBe(0);
  });
  test('MRR of the first gold tool', () => {
    expect(reciprocalRank(ranked, ['d', 'b'])).toBe(0.5);
    expect(reciprocalRank(ranked, ['z'])).toBe(0);
  });
  test('empty gold: nothing to find, every metric 1', () => {
    expect([recallAt(ranked, [], 5), completeAt(ranked, [], 5), ndcgAt(ranked, []), reciprocalRank(ranked, [])]).toEqual([1, 1, 1, 1]);
  });
  test('accumulator averages', () => {
    const acc = new MetricsAccumulator();
    acc.add(ranked, ['a']);
    acc.add(ranked, ['z']);
    expect(acc.result()).toEqual({ queries: 2, recall5: 0.5, recall10: 0.5, complete10: 0.5, ndcg10: 0.5, mrr: 0.5 });
  });
});

describe('calibration helpers', () => {
  test('threshold separating on-topic from off-topic similarities', () => {
    expect(bestThreshold([0.5, 0.6, 0.7], [0.1, 0.2, 0.3])).toEqual({ threshold: 0.4, accuracy: 1 });
    const overlap = bestThreshold([0.35, 0.6, 0.7], [0.1, 0.2, 0.4]);
    expect(overlap.accuracy).toBeCloseTo(5 / 6, 12);
  });
  test('distribution quantiles', () => {
    expect(distribution([0.4, 0.1, 0.3, 0.2])).toEqual({ n: 4, min: 0.1, p10: 0.1, p50: 0.3, p90: 0.4, max: 0.4 });
  });
});

describe('percentile', () => {
  test('nearest rank below, clamped to the last value; 0 for no values', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(3);
    expect(percentile([1, 2, 3, 4], 0.99)).toBe(4);
    expect(percentile([1, 2, 3, 4], 1)).toBe(4);
    expect(percentile([], 0.5)).toBe(0);
  });
});
