/**
 * LangChain.js adapter (`@langchain/core`, v1): curate a list of tools for one model call,
 * e.g. `model.bindTools(await curation.select(messages))`.
 */
import type { StructuredToolInterface } from '@langchain/core/tools';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import type { ToolRecord } from '../catalog/types.js';
import { lastUserText } from '../library/query.js';
import { ToolSelector, type CuratedSelection, type SelectRequest, type ToolSelectorOptions } from '../library/selector.js';
import { toolRecord } from '../library/tools.js';

/** LangChain tools as ToolRecords (JSON Schema from each tool's zod or JSON schema). */
export function fromLangChainTools(tools: readonly StructuredToolInterface[], server?: string): ToolRecord[] {
  return tools.map((t) =>
    toolRecord({ name: t.name, description: t.description, inputSchema: toJsonSchema(t.schema as Parameters<typeof toJsonSchema>[0]) as Record<string, unknown>, server }),
  );
}

export interface LangChainCuration<T extends StructuredToolInterface> {
  selector: ToolSelector;
  /** The tools for these messages (a string, or messages whose last human message is the query), in the order of `all`. */
  select(messages: string | readonly unknown[], request?: SelectRequest): Promise<{ tools: T[]; selection: CuratedSelection }>;
}

/**
 * ### Usage
 * ```ts
 * const curation = await curateLangChainTools(tools, { embedder: { provider: 'use' } });
 * const { tools: chosen } = await curation.select(messages);
 * const reply = await model.bindTools(chosen).invoke(messages);
 * ```
 */
export async function curateLangChainTools<T extends StructuredToolInterface>(tools: readonly T[], options: ToolSelectorOptions = {}): Promise<LangChainCuration<T>> {
  const selector = await ToolSelector.create(fromLangChainTools(tools), options);
  const byName = new Map(tools.map((t) => [t.name, t]));
  return {
    selector,
    async select(messages, request) {
      const selection = await selector.select(lastUserText(messages), request);
      return { tools: selection.names.map((n) => byName.get(n)!), selection };
    },
  };
}
