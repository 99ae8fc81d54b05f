/**
 * Vercel AI SDK: curated tools per step, and find_tools to widen inside the loop.
 * Runs with the AI SDK's own mock language model, which records the tools each step
 * received: `node dist/examples/ai-sdk.js`.
 */
import { pathToFileURL } from 'node:url';
import { generateText, jsonSchema, stepCountIs, tool, type ToolSet } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { curateAiSdkTools } from 'tool-curator/ai';
import { EXAMPLE_MESSAGES, EXAMPLE_TOOLS, EXAMPLE_TOP_K, exampleCachePath } from './tools.js';

/** What the model asks find_tools for in its first step, to show the set widening. */
export const WIDEN_QUERY = 'convert an amount of money into another currency';

export interface StepTools {
  message: string;
  /** Tool names the model received, per step. */
  steps: string[][];
}

export async function runAiSdkExample(): Promise<StepTools[]> {
  const tools: ToolSet = Object.fromEntries(
    EXAMPLE_TOOLS.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.parameters), execute: async (args: unknown) => ({ ok: true, tool: t.name, args }) })]),
  );
  const curation = await curateAiSdkTools(tools, { embedder: { provider: 'use' }, cachePath: exampleCachePath(), topK: EXAMPLE_TOP_K });
  const out: StepTools[] = [];
  try {
    for (const { text } of EXAMPLE_MESSAGES) {
      const steps: string[][] = [];
      const model = new MockLanguageModelV4({
        doGenerate: async (options) => {
          steps.push((options.tools ?? []).map((t) => t.name));
          const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
          if (steps.length === 1) {
            return {
              content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'find_tools', input: JSON.stringify({ query: WIDEN_QUERY, limit: 3 }) }],
              finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
              usage,
              warnings: [],
            };
          }
          return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
        },
      });
      await generateText({ model, tools: curation.tools, prepareStep: curation.prepareStep, messages: [{ role: 'user', content: text }], stopWhen: stepCountIs(3) });
      out.push({ message: text, steps });
    }
  } finally {
    await curation.selector.close();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const { message, steps } of await runAiSdkExample()) {
    process.stdout.write(`${message}\n${steps.map((s, i) => `  step ${i + 1}: ${s.join(', ')}`).join('\n')}\n`);
  }
}
