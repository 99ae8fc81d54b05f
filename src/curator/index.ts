/**
 * The curator's public face: `createCurator` and the ToolCurator types. Everything else
 * in this folder is a pipeline stage (see docs/CURATOR.md).
 */
export { createCurator, DEFAULT_TOP_K, type CuratorOptions } from './curator.js';
export { DEFAULT_FUSION, FUSIONS, type Fusion } from './fusion.js';
export type { CatalogTrust } from './trust.js';
export { learnedScope, type LearnedExemplar, type LearnedExemplars } from './learned.js';
export type { BuildProgress, ProgressListener } from './progress.js';
export { MECHANISMS, type CuratorMode, type ExtraContext, type Explanation, type Mechanism, type Selection, type SelectOptions, type ToolCurator } from './types.js';
