/**
 * OpenAI Agents JS adapter (`@openai/agents`): curate an agent's tools per turn. The
 * agent keeps every tool; `agentFor(input)` returns a clone that carries only the curated
 * function tools for this turn's input (hosted, computer and shell tools are not ranked
 * and always stay).
 */
import type { Agent, AgentInputItem, FunctionTool, Tool } from '@openai/agents';
import type { ToolRecord } from '../catalog/types.js';
import { lastUserText } from '../library/query.js';
import { ToolSelector, type CuratedSelection, type SelectRequest, type ToolSelectorOptions } from '../library/selector.js';
import { toolRecord } from '../library/tools.js';

function isFunctionTool<C>(t: Tool<C>): t is FunctionTool<C, any, any> {
  return t.type === 'function';
}

/** An agent's function tools as ToolRecords. */
export function fromAgentTools(tools: readonly Tool<any>[], server?: string): ToolRecord[] {
  return tools.filter(isFunctionTool).map((t) => toolRecord({ name: t.name, description: t.description, inputSchema: t.parameters as Record<string, unknown>, server }));
}

export interface AgentCuration<TContext, TOutput> {
  selector: ToolSelector;
  /** A clone of the agent with the tools curated for `input` (a string, or input items whose last user message is the query). */
  agentFor(input: string | readonly AgentInputItem[], request?: SelectRequest): Promise<{ agent: Agent<TContext, any>; selection: CuratedSelection }>;
  /** The agent as given, with every tool. */
  readonly agent: Agent<TContext, TOutput extends never ? never : any>;
}

/**
 * ### Usage
 * ```ts
 * const curation = await curateAgentTools(agent, { embedder: { provider: 'use' } });
 * const { agent: turnAgent } = await curation.agentFor(input);
 * const result = await run(turnAgent, input);
 * ```
 */
export async function curateAgentTools<TContext, TOutput>(
  agent: Agent<TContext, any>,
  options: ToolSelectorOptions = {},
): Promise<AgentCuration<TContext, TOutput>> {
  const selector = await ToolSelector.create(fromAgentTools(agent.tools), options);
  const functions = new Map(agent.tools.filter(isFunctionTool).map((t) => [t.name, t]));
  const others = agent.tools.filter((t) => !isFunctionTool(t));
  return {
    selector,
    agent,
    async agentFor(input, request) {
      const selection = await selector.select(lastUserText(input as string | readonly unknown[]), request);
      const tools = [...others, ...selection.names.map((n) => functions.get(n)!)];
      return { agent: agent.clone({ tools }), selection };
    },
  };
}
