/**
 * One line of text showing an embedding build's progress, for a terminal:
 * `[########------------]  4,096 / 10,240 texts  31.2 texts/s  ETA 3m17s`.
 */
import type { BuildProgress } from '../curator/progress.js';

const WIDTH = 30;

export function progressBar(p: BuildProgress): string {
  const share = p.total > 0 ? Math.min(1, p.done / p.total) : 1;
  const filled = Math.round(share * WIDTH);
  const eta = p.etaSeconds === undefined ? '' : `  ETA ${Math.floor(p.etaSeconds / 60)}m${String(p.etaSeconds % 60).padStart(2, '0')}s`;
  return `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}]  ${p.done.toLocaleString('en')} / ${p.total.toLocaleString('en')} texts  ${p.ratePerSecond} texts/s${eta}`;
}
