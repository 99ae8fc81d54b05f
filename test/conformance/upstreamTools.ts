/**
 * The conformance upstream's tools (upstream.ts serves them): one entry per tool a
 * 2025-11-25 server scenario of @modelcontextprotocol/conformance calls or lists, each a
 * definition with a raw JSON Schema and what it does. The content each returns is what
 * the scenario's description in the suite asks for.
 */
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { CallToolResult, ClientCapabilities, ElicitRequestFormParams, InputRequiredResult, LoggingLevel, McpServer, ServerContext, Tool } from '@modelcontextprotocol/server';

/** A 1×1 red PNG. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** A WAV file of one silent 16-bit sample at 8 kHz, mono. */
function silentWav(): string {
  const data = Buffer.alloc(2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(16000, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]).toString('base64');
}
export const WAV_BASE64 = silentWav();


const NO_ARGS: Tool['inputSchema'] = { type: 'object', properties: {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

export interface TestTool {
  definition: Tool;
  /** A tool of the 2026 upstream may answer `input_required` (upstream2026Tools.ts). */
  run(args: Record<string, unknown>, ctx: ServerContext, upstream: UpstreamState): Promise<CallToolResult | InputRequiredResult>;
}

export interface UpstreamState {
  server: McpServer;
  /** Sends a log message unless the host's logging/setLevel filters it out. */
  log(ctx: ServerContext, level: LoggingLevel, data: string): Promise<void>;
}

/** The per-request envelope of a 2026-07-28 request (`_meta`); undefined on a 2025 connection. */
function envelopeOf(ctx: ServerContext): Record<string, unknown> | undefined {
  const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
  return envelope?.[PROTOCOL_VERSION_META_KEY] === undefined ? undefined : envelope;
}

/** What the client declared: per request at 2026-07-28 (serveStdio does not backfill the accessor), at initialize before. */
function clientCapabilities(upstream: UpstreamState, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = envelopeOf(ctx);
  return envelope ? (envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) : upstream.server.server.getClientCapabilities();
}

/**
 * Asks the client for input the way its era allows: a request of its own to a 2025
 * client, `input_required` (the question, answered on the retry) to a 2026 one, which
 * has no server-to-client requests.
 */
async function elicit(upstream: UpstreamState, ctx: ServerContext, params: Omit<ElicitRequestFormParams, 'mode'>): Promise<CallToolResult | InputRequiredResult> {
  if (!clientCapabilities(upstream, ctx)?.elicitation) return { isError: true, content: [{ type: 'text', text: 'the client does not support elicitation' }] };
  const completed = (action: string, content: unknown) => text(`Elicitation completed: action=${action}, content=${JSON.stringify(content ?? {})}`);
  if (envelopeOf(ctx)) {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'elicitation');
    if (view.kind === 'elicit') return completed(view.action, view.content);
    return inputRequired({ inputRequests: { elicitation: inputRequired.elicit(params) } });
  }
  const answer = await ctx.mcpReq.send({ method: 'elicitation/create', params: { mode: 'form', ...params } });
  return completed(answer.action, answer.content);
}

/** Every tool a 2025-11-25 server scenario calls or lists, by name. */
export const TOOLS: TestTool[] = [
  {
    definition: {
      name: 'test_simple_text',
      title: 'Simple text',
      description: 'Returns a simple text response.',
      inputSchema: NO_ARGS,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run: async () => text('This is a simple text response for testing.'),
  },
  {
    definition: { name: 'test_image_content', description: 'Returns an image (a 1x1 PNG).', inputSchema: NO_ARGS },
    run: async () => ({ content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] }),
  },
  {
    definition: { name: 'test_audio_content', description: 'Returns audio (a one-sample WAV).', inputSchema: NO_ARGS },
    run: async () => ({ content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] }),
  },
  {
    definition: { name: 'test_embedded_resource', description: 'Returns an embedded text resource.', inputSchema: NO_ARGS },
    run: async () => ({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    }),
  },
  {
    definition: { name: 'test_multiple_content_types', description: 'Returns text, an image and an embedded resource.', inputSchema: NO_ARGS },
    run: async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
      ],
    }),
  },
  {
    definition: { name: 'test_tool_with_logging', description: 'Sends three info log messages while it runs.', inputSchema: NO_ARGS },
    run: async (_args, ctx, upstream) => {
      await upstream.log(ctx, 'info', 'Tool execution started');
      await sleep(50);
      await upstream.log(ctx, 'info', 'Tool processing data');
      await sleep(50);
      await upstream.log(ctx, 'info', 'Tool execution completed');
      return text('Tool with logging executed successfully');
    },
  },
  {
    definition: { name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100 when given a progressToken.', inputSchema: NO_ARGS },
    run: async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100, message: `step ${progress} of 100` } });
        }
        if (progress < 100) await sleep(50);
      }
      return text(`Progress reported${progressToken === undefined ? ' to nobody (no progressToken)' : ` for token ${String(progressToken)}`}`);
    },
  },
  {
    definition: { name: 'test_error_handling', description: 'Always fails with a tool error.', inputSchema: NO_ARGS },
    run: async () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }),
  },
  {
    definition: {
      name: 'test_reconnection',
      description: 'Closes the request\'s SSE stream mid-call (SEP-1699); the result reaches the client after it reconnects.',
      inputSchema: NO_ARGS,
    },
    run: async (_args, ctx) => {
      ctx.http?.closeSSE?.();
      await sleep(100);
      return text('Reconnection test completed successfully');
    },
  },
  {
    definition: {
      name: 'test_sampling',
      description: 'Asks the client for an LLM completion of the prompt (sampling/createMessage).',
      inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
    },
    run: async (args, ctx, upstream) => {
      if (typeof args.prompt !== 'string') return { isError: true, content: [{ type: 'text', text: 'test_sampling needs "prompt" as a string' }] };
      if (!clientCapabilities(upstream, ctx)?.sampling) return { isError: true, content: [{ type: 'text', text: 'the client does not support sampling' }] };
      const params = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: args.prompt } }], maxTokens: 100 };
      let answer;
      if (envelopeOf(ctx)) {
        // 2026-07-28: the question as input_required, its answer on the retry.
        const view = inputResponse(ctx.mcpReq.inputResponses, 'sampling');
        if (view.kind !== 'sampling') return inputRequired({ inputRequests: { sampling: inputRequired.createMessage(params) } });
        answer = view.result;
      } else {
        answer = await ctx.mcpReq.send({ method: 'sampling/createMessage', params });
      }
      const reply = !Array.isArray(answer.content) && answer.content.type === 'text' ? answer.content.text : JSON.stringify(answer.content);
      return text(`LLM response: ${reply}`);
    },
  },
  {
    definition: {
      name: 'test_elicitation',
      description: 'Asks the user for a username and an email address (elicitation/create).',
      inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
    },
    run: async (args, ctx, upstream) => {
      if (typeof args.message !== 'string') return { isError: true, content: [{ type: 'text', text: 'test_elicitation needs "message" as a string' }] };
      return elicit(upstream, ctx, {
        message: args.message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
    },
  },
  {
    definition: { name: 'test_elicitation_sep1034_defaults', description: 'Elicitation whose fields carry defaults of every primitive type (SEP-1034).', inputSchema: NO_ARGS },
    run: async (_args, ctx, upstream) =>
      elicit(upstream, ctx, {
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      }),
  },
  {
    definition: { name: 'test_elicitation_sep1330_enums', description: 'Elicitation with the five enum shapes of SEP-1330.', inputSchema: NO_ARGS },
    run: async (_args, ctx, upstream) =>
      elicit(upstream, ctx, {
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: { type: 'string', description: 'Select one option (legacy)', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
            untitledMulti: { type: 'array', description: 'Select several options', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: {
              type: 'array',
              description: 'Select several options with titles',
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        },
      }),
  },
  {
    definition: {
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features ($schema, $defs, $anchor, $ref, allOf/anyOf, if/then/else, additionalProperties).',
      // SEP-1613 (2025) asks for $schema, $defs and additionalProperties as written; SEP-2106 (2026) adds $anchor,
      // composition and conditional keywords, which a client or gateway must not strip either.
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    },
    run: async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  },
];
