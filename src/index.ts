/**
 * Tool Curator as a library: `import { ToolSelector, fromFunctionSpecs } from 'tool-curator'`.
 * The curator, its embedders and cache, personas/policy and the name guard, each usable on
 * its own; framework adapters live at `tool-curator/ai`, `/langchain`, `/openai-agents`
 * and `/mcp`. Importing this module loads no embedder: TF.js and ONNX load when an
 * embedder is created. docs/LIBRARY.md has the guide.
 */

// Tools from any source.
export type { ToolRecord } from './catalog/types.js';
export { APP_SERVER, assertUniqueNames, fromFunctionSpecs, fromMcpTools, toolRecord, type FunctionSpec, type ToolSpec } from './library/tools.js';
export { toolDefinitionTokens } from './catalog/tokens.js';

// Per-request curation.
export { createToolSelector, ToolSelector, type CuratedSelection, type SelectRequest, type ToolSelectorOptions } from './library/selector.js';
export { lastUserText } from './library/query.js';

// The curator itself (what the gateway runs).
export { createCurator, DEFAULT_TOP_K, type CuratorOptions } from './curator/curator.js';
export { DEFAULT_FUSION, FUSIONS, type Fusion } from './curator/fusion.js';
export type { CatalogTrust } from './curator/trust.js';
export type { ApproximateOptions, CuratorMode, ExtraContext, Explanation, Quantization, Selection, SelectOptions, ToolCurator } from './curator/types.js';

// Embedders (loaded on first use: importing the package stays cheap) and the store: the
// whole store (`openStore`: SQLite file or PostgreSQL URL), or the SQLite embedding cache alone.
export { createEmbedder, parsePersonas } from './library/lazy.js';
export type { EmbedderConfig } from './embedding/index.js';
export type { Embedder } from './embedding/types.js';
export { openStore, StoreUnavailableError, type Store, type StoreOptions, type EmbeddingCache } from './store/index.js';
export { EmbeddingStore } from './store/embeddings.js';
export { openDb, type Db } from './store/db.js';

// Personas and policy.
export { Policy, UnknownPersonaError, MissingIdentityError } from './policy/policy.js';
export type { Persona, Personas } from './config/schema.js';

// Logging: the library writes nothing unless the application gives it a pino logger.
export { setLogger, type Logger } from './log.js';

// The call path's guards.
export { closestTool, nameRatio, CORRECT_AT, SUGGEST_AT, MAX_NAME_LENGTH } from './guards/nameGuard.js';
export { classifyPair, type PairKind } from './guards/nameMatch.js';
export { NameIndex } from './guards/nameIndex.js';
export { createCallPath, visibleSchema, type CallPathDeps } from './guards/pipeline.js';
export type { CallContext, CallHandler, Decision, Guard, SessionIdentity } from './guards/types.js';
