/**
 * Vercel AI SDK adapter (`ai`, v5 and later): curate a ToolSet per step. `select` gives the
 * tools for one set of messages; `prepareStep` does it inside generateText/streamText's
 * multi-step loop (as `activeTools`), together with a `find_tools` tool the model can call
 * to widen the set when the shortlist lacks what it needs — the gateway's find_tools, in
 * process.
 */
import { asSchema, jsonSchema, tool, type ModelMessage, type Tool, type ToolSet } from 'ai';
import type { ToolRecord } from '../catalog/types.js';
import { findResult } from '../gateway/metaTools.js';
import { lastUserText } from '../library/query.js';
import { ToolSelector, type CuratedSelection, type SelectRequest, type ToolSelectorOptions } from '../library/selector.js';
import { toolRecord } from '../library/tools.js';

export const FIND_TOOLS = 'find_tools';

/** The tools of an AI SDK ToolSet as ToolRecords (JSON Schema from each tool's inputSchema). */
export async function fromAiSdkTools(tools: ToolSet, server?: string): Promise<ToolRecord[]> {
  return Promise.all(
    Object.entries(tools).map(async ([name, t]) =>
      toolRecord({ name, description: typeof t.description === 'string' ? t.description : undefined, inputSchema: (await asSchema(t.inputSchema).jsonSchema) as Record<string, unknown>, server }),
    ),
  );
}

export interface AiSdkCuration<TOOLS extends ToolSet> {
  selector: ToolSelector;
  /** The ToolSet to give generateText: every tool plus `find_tools`. */
  tools: TOOLS & { [FIND_TOOLS]: Tool };
  /** The curated subset for these messages (the last user message is the query). */
  select(messages: string | readonly ModelMessage[], request?: SelectRequest): Promise<{ tools: Partial<TOOLS>; selection: CuratedSelection }>;
  /**
   * For generateText/streamText's `prepareStep`: each step's `activeTools` are the
   * curated tools for the conversation's last user message, the tools `find_tools` found
   * so far in this call, and `find_tools` itself.
   */
  prepareStep(options: { messages: ModelMessage[]; stepNumber: number }): Promise<{ activeTools: Array<keyof TOOLS | typeof FIND_TOOLS> }>;
}

/**
 * ### Usage
 * ```ts
 * const curation = await curateAiSdkTools(allTools, { embedder: { provider: 'use' } });
 * const result = await generateText({ model, messages, tools: curation.tools, prepareStep: curation.prepareStep, stopWhen: stepCountIs(5) });
 * ```
 */
export async function curateAiSdkTools<TOOLS extends ToolSet>(toolSet: TOOLS, options: ToolSelectorOptions = {}): Promise<AiSdkCuration<TOOLS>> {
  if (FIND_TOOLS in toolSet) throw new Error(`the ToolSet already has a tool named ${FIND_TOOLS}`);
  const selector = await ToolSelector.create(await fromAiSdkTools(toolSet), options);
  // Tools find_tools surfaced, per conversation (keyed by its first message object, which
  // every step of one generateText call shares), so the next step can call them; released
  // with the conversation.
  const found = new WeakMap<object, Set<string>>();
  const conversationOf = (messages: readonly ModelMessage[]): object => (messages[0] as object | undefined) ?? found;

  const subset = (names: string[]) => Object.fromEntries(names.map((n) => [n, toolSet[n]])) as Partial<TOOLS>;

  const findTools = tool({
    description:
      'Search the available tools by what you want to do (action and object, in English). ' +
      'The matching tools become callable in the next step.',
    inputSchema: jsonSchema<{ query: string; limit?: number }>({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What you want to do, e.g. "refund an order"', maxLength: 2000 },
        limit: { type: 'integer', minimum: 1, maximum: 50 },
      },
      required: ['query'],
      additionalProperties: false,
    }),
    execute: async ({ query, limit }, { messages }) => {
      const selection = await selector.select(query, { topK: limit });
      // The gateway's find_tools fields: a no-match message, and what the limit cut.
      const { fields } = findResult(selection, limit ?? selection.tools.length);
      // A weak match's few tools are shown, not made callable (as the gateway keeps them out of tools/list).
      if (!selection.noMatch) {
        const conversation = conversationOf(messages);
        const set = found.get(conversation) ?? new Set<string>();
        for (const n of selection.names) set.add(n);
        found.set(conversation, set);
      }
      return {
        confidence: Number(selection.confidence.toFixed(3)),
        tools: selection.all.map((t) => ({ name: t.name, description: t.description })),
        ...fields,
      };
    },
  });

  return {
    selector,
    tools: { ...toolSet, [FIND_TOOLS]: findTools },
    async select(messages, request) {
      const selection = await selector.select(lastUserText(messages), request);
      return { tools: subset(selection.names), selection };
    },
    async prepareStep({ messages }) {
      const selection = await selector.select(lastUserText(messages));
      const names = new Set([...selection.names, ...(found.get(conversationOf(messages)) ?? [])]);
      return { activeTools: [...names, FIND_TOOLS] as Array<keyof TOOLS | typeof FIND_TOOLS> };
    },
  };
}
