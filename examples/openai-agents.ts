/**
 * OpenAI Agents JS: give each turn a clone of the agent that carries only the curated
 * tools. Runs with a recording model (the Agents SDK's `Model` interface), which answers
 * with text and keeps the tools each request carried: `node dist/examples/openai-agents.js`.
 */
import { pathToFileURL } from 'node:url';
import { Agent, run, setTracingDisabled, tool, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { curateAgentTools } from 'tool-curator/openai-agents';
import { EXAMPLE_MESSAGES, EXAMPLE_TOOLS, EXAMPLE_TOP_K, exampleCachePath } from './tools.js';

class RecordingModel implements Model {
  readonly requests: string[][] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request.tools.map((t) => t.name));
    return {
      usage: new Usage(),
      output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok' }] }],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('this example does not stream');
  }
}

export async function runOpenAIAgentsExample(): Promise<{ message: string; tools: string[] }[]> {
  setTracingDisabled(true); // no trace export: the example talks to nothing outside this process
  const model = new RecordingModel();
  const agent = new Agent({
    name: 'Help desk',
    instructions: 'Help the user with the tools you have.',
    model,
    tools: EXAMPLE_TOOLS.map((t) =>
      tool({ name: t.name, description: t.description, parameters: { ...t.parameters, additionalProperties: false } as never, strict: false, execute: async (args: unknown) => JSON.stringify({ ok: true, tool: t.name, args }) }),
    ),
  });
  const curation = await curateAgentTools(agent, { embedder: { provider: 'use' }, cachePath: exampleCachePath(), topK: EXAMPLE_TOP_K });
  const out: { message: string; tools: string[] }[] = [];
  try {
    for (const { text } of EXAMPLE_MESSAGES) {
      const { agent: turnAgent } = await curation.agentFor(text);
      await run(turnAgent, text);
      out.push({ message: text, tools: model.requests.at(-1) ?? [] });
    }
  } finally {
    await curation.selector.close();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const { message, tools } of await runOpenAIAgentsExample()) process.stdout.write(`${message}\n  tools: ${tools.join(', ')}\n`);
}
