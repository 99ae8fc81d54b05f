/**
 * LangChain.js: bind only the curated tools to the chat model for each message. Runs with
 * LangChain's own fake chat model; a callback records the tools each call received:
 * `node dist/examples/langchain.js`.
 */
import { pathToFileURL } from 'node:url';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { curateLangChainTools } from 'tool-curator/langchain';
import { EXAMPLE_MESSAGES, EXAMPLE_TOOLS, EXAMPLE_TOP_K, exampleCachePath } from './tools.js';

/** Records the names of the tools a chat model call was given. */
class ToolRecorder extends BaseCallbackHandler {
  name = 'tool-recorder';
  readonly calls: string[][] = [];
  override handleChatModelStart(_llm: unknown, _messages: unknown, _runId: string, _parent?: string, extra?: Record<string, unknown>): void {
    const tools = ((extra?.options as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? []).map((t) => t.function.name);
    this.calls.push(tools);
  }
}

export async function runLangChainExample(): Promise<{ message: string; tools: string[] }[]> {
  const tools = EXAMPLE_TOOLS.map((t) => tool(async (args: unknown) => JSON.stringify({ ok: true, tool: t.name, args }), { name: t.name, description: t.description, schema: t.parameters }));
  const curation = await curateLangChainTools(tools, { embedder: { provider: 'use' }, cachePath: exampleCachePath(), topK: EXAMPLE_TOP_K });
  const model = new FakeListChatModel({ responses: ['ok'] });
  const recorder = new ToolRecorder();
  const out: { message: string; tools: string[] }[] = [];
  try {
    for (const { text } of EXAMPLE_MESSAGES) {
      const messages = [new HumanMessage(text)];
      const { tools: chosen } = await curation.select(messages);
      await model.bindTools(chosen).invoke(messages, { callbacks: [recorder] });
      out.push({ message: text, tools: recorder.calls.at(-1) ?? [] });
    }
  } finally {
    await curation.selector.close();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const { message, tools } of await runLangChainExample()) process.stdout.write(`${message}\n  tools: ${tools.join(', ')}\n`);
}
