/**
 * The examples/ programs, one per adapter, run with each framework's own mock model (the AI
 * SDK's MockLanguageModelV4, LangChain's FakeListChatModel, an Agents SDK Model) and the
 * real USE embedder, asserting which tools reached the model for each message. Requires
 * the build (dist/examples).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAiSdkExample, WIDEN_QUERY } from '../../dist/examples/ai-sdk.js';
import { runLangChainExample } from '../../dist/examples/langchain.js';
import { MCP_QUERIES, runMcpClientsExample } from '../../dist/examples/mcp-clients.js';
import { runOpenAIAgentsExample } from '../../dist/examples/openai-agents.js';
import { EXAMPLE_MESSAGES, EXAMPLE_TOOLS, EXAMPLE_TOP_K } from '../../dist/examples/tools.js';

// Cold USE embedding of 20 tools plus TF.js start-up; a loaded machine is slower.
const SLOW = 300_000;

beforeAll(() => {
  // One cache for all four examples: the first embeds the 20 tools, the others read them.
  process.env.TOOL_CURATOR_EXAMPLE_CACHE = join(mkdtempSync(join(tmpdir(), 'tc-examples-')), 'cache.db');
});

function expectCurated(tools: string[], needs: string): void {
  expect(tools).toContain(needs);
  expect(tools.length).toBeLessThanOrEqual(EXAMPLE_TOP_K);
  expect(new Set(tools).size).toBe(tools.length);
}

describe('examples', () => {
  it('AI SDK: each step gets the curated tools plus find_tools; find_tools widens the next step', { timeout: SLOW }, async () => {
    const runs = await runAiSdkExample();
    expect(runs.map((r) => r.message)).toEqual(EXAMPLE_MESSAGES.map((m) => m.text));
    for (const [i, { steps }] of runs.entries()) {
      expect(steps).toHaveLength(2);
      const [first, second] = steps as [string[], string[]];
      expect(first).toContain('find_tools');
      expectCurated(first.filter((n) => n !== 'find_tools'), EXAMPLE_MESSAGES[i]!.needs);
      // The model searched for WIDEN_QUERY in step 1: what it found is callable in step 2.
      expect(first, WIDEN_QUERY).not.toContain('convert_currency');
      expect(second).toContain('convert_currency');
      expect(second.length).toBeLessThan(EXAMPLE_TOOLS.length + 1);
    }
  });

  it('LangChain.js: bindTools gets only the curated tools for each message', { timeout: SLOW }, async () => {
    const runs = await runLangChainExample();
    expect(runs).toHaveLength(EXAMPLE_MESSAGES.length);
    runs.forEach(({ tools }, i) => expectCurated(tools, EXAMPLE_MESSAGES[i]!.needs));
    // Rank order: the needed tool is among the first two for these plain requests.
    runs.forEach(({ tools }, i) => expect(tools.slice(0, 2)).toContain(EXAMPLE_MESSAGES[i]!.needs));
  });

  it('OpenAI Agents: each turn the model request carries only the curated tools', { timeout: SLOW }, async () => {
    const runs = await runOpenAIAgentsExample();
    expect(runs).toHaveLength(EXAMPLE_MESSAGES.length);
    runs.forEach(({ tools }, i) => expectCurated(tools, EXAMPLE_MESSAGES[i]!.needs));
  });

  it('MCP clients: tools of two real stdio servers curated per query; calls go through the guards', { timeout: SLOW }, async () => {
    const r = await runMcpClientsExample();
    expect(r.selected).toHaveLength(MCP_QUERIES.length);
    expect(r.selected[0]!.some((n) => n === 'add_observations' || n === 'create_entities')).toBe(true);
    expect(r.selected[1]).toContain('list_directory');
    expect(r.selected[2]).toContain('write_file');
    // A misspelled name reaches list_directory through the name guard, which says so.
    expect(r.corrected).toContain('todo.txt');
    expect(r.corrected).toContain('[tool-curator] list_directroy does not exist; resolved to list_directory');
    // write_file is an action: the confirm callback's "decline" stops it, "accept" runs it.
    expect(r.refusedText).toMatch(/did not approve write_file.*has not run/);
    expect(r.approvedText).toMatch(/Successfully wrote/);
    expect(r.confirmations).toHaveLength(2);
    expect(r.confirmations[0]).toContain('write_file');
  });
});
