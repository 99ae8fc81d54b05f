/**
 * The tools the 2026-07-28 server scenarios of @modelcontextprotocol/conformance call
 * beyond the 2025 ones in upstreamTools.ts: the multi-round-trip (`input_required`,
 * SEP-2322) tools, each answering the way the scenario's description asks, and the
 * diagnostic tools of `server-stateless` (SEP-2575). upstream2026.ts serves them next to
 * the 2025 table; on a 2025-era connection the SDK's legacy shim turns each
 * `input_required` return into real elicitation/sampling/roots requests.
 *
 * Written with the SDK's builders only (`inputRequired`, `acceptedContent`,
 * `inputResponse`, `createRequestStateCodec`): no hand-built result shapes.
 */
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  inputResponse,
  MissingRequiredClientCapabilityError,
  type ClientCapabilities,
  type RequestStateCodec,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { TestTool } from './upstreamTools.js';

/** What a multi-round tool keeps in its sealed `requestState` between rounds. */
export interface RoundState {
  tool: string;
  round: number;
  name?: string;
}

/** What the serving layer gives these tools: the shared state codec and a way to announce a list change. */
export interface Hooks2026 {
  codec: RequestStateCodec<RoundState>;
  /** Publishes a tools or prompts list change to open `subscriptions/listen` streams (2025: list_changed). */
  listChanged(kind: 'tools' | 'prompts'): void;
}

const NO_ARGS: Tool['inputSchema'] = { type: 'object', properties: {} };
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const NAME = z.object({ name: z.string() });
const COLOR = z.object({ color: z.string() });
const OK = z.object({ ok: z.boolean() });
const askName = (message = 'What is your name?') => inputRequired.elicit({ message, requestedSchema: NAME });
const askOk = () => inputRequired.elicit({ message: 'Please confirm', requestedSchema: OK });

/** The client's capabilities: the request's own envelope (2026), else what it declared at initialize (2025). */
function clientCapabilities(ctx: ServerContext, declared: () => ClientCapabilities | undefined): ClientCapabilities {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? declared() ?? {};
}

/** The state a tool minted for itself in an earlier round, or undefined (first round, or another tool's state). */
function stateOf(ctx: ServerContext, tool: string): RoundState | undefined {
  const state = ctx.mcpReq.requestState<RoundState>();
  return state?.tool === tool ? state : undefined;
}

function tool(name: string, description: string, run: TestTool['run']): TestTool {
  return { definition: { name, description, inputSchema: NO_ARGS }, run };
}

/** Every tool a 2026-07-28 server scenario calls that the 2025 table lacks, by name. */
export function tools2026(hooks: Hooks2026): TestTool[] {
  const { codec } = hooks;
  return [
    tool('test_input_required_result_elicitation', 'Asks for a name (input_required, elicitation), then greets.', async (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name', NAME);
      return answer ? text(`Hello, ${answer.name}!`) : inputRequired({ inputRequests: { user_name: askName() } });
    }),
    tool('test_input_required_result_sampling', 'Asks the client to sample (input_required), then returns its answer.', async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'capital_question');
      if (answer.kind === 'sampling') {
        const content = answer.result.content;
        return text(`Sampling result: ${!Array.isArray(content) && content.type === 'text' ? content.text : '(no text)'}`);
      }
      return inputRequired({
        inputRequests: {
          capital_question: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
            maxTokens: 100,
          }),
        },
      });
    }),
    tool('test_input_required_result_list_roots', "Asks for the client's roots (input_required), then counts them.", async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'client_roots');
      if (answer.kind === 'roots') return text(`Found ${answer.roots.length} root(s)`);
      return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    }),
    tool('test_input_required_result_request_state', 'Asks for a confirmation with sealed requestState; completes once both come back.', async (_args, ctx) => {
      const state = stateOf(ctx, 'request_state');
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', OK);
      if (state && answer?.ok === true) return text('state-ok: requestState validated');
      return inputRequired({ inputRequests: { confirm: askOk() }, requestState: await codec.mint({ tool: 'request_state', round: 1 }) });
    }),
    tool('test_input_required_result_multiple_inputs', 'Asks for an elicitation, a sampling and the roots in one round.', async (_args, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const name = acceptedContent(responses, 'user_name', NAME);
      const greeting = inputResponse(responses, 'greeting');
      const roots = inputResponse(responses, 'client_roots');
      if (stateOf(ctx, 'multiple_inputs') && name && greeting.kind === 'sampling' && roots.kind === 'roots') {
        const said = !Array.isArray(greeting.result.content) && greeting.result.content.type === 'text' ? greeting.result.content.text : '';
        return text(`Name: ${name.name}; Greeting: ${said}; Roots: ${roots.roots.length}`);
      }
      return inputRequired({
        inputRequests: {
          user_name: askName(),
          greeting: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await codec.mint({ tool: 'multiple_inputs', round: 1 }),
      });
    }),
    tool('test_input_required_result_multi_round', 'Three rounds: a name, then a colour (each with new sealed state), then the result.', async (_args, ctx) => {
      const state = stateOf(ctx, 'multi_round');
      const responses = ctx.mcpReq.inputResponses;
      const name = state?.round === 1 ? acceptedContent(responses, 'step1', NAME)?.name : state?.name;
      if (state?.round === 2 && name) {
        const color = acceptedContent(responses, 'step2', COLOR);
        if (color) return text(`Multi-round complete for ${name} who likes ${color.color}`);
      }
      if (!name) {
        return inputRequired({ inputRequests: { step1: askName('Step 1: What is your name?') }, requestState: await codec.mint({ tool: 'multi_round', round: 1 }) });
      }
      return inputRequired({
        inputRequests: { step2: inputRequired.elicit({ message: 'Step 2: What is your favorite color?', requestedSchema: COLOR }) },
        requestState: await codec.mint({ tool: 'multi_round', round: 2, name }),
      });
    }),
    tool('test_input_required_result_tampered_state', 'Seals its requestState; a changed one is refused (-32602) before this runs.', async (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', OK);
      if (stateOf(ctx, 'tampered_state') && answer) return text('integrity-ok: state verified');
      return inputRequired({ inputRequests: { confirm: askOk() }, requestState: await codec.mint({ tool: 'tampered_state', round: 1 }) });
    }),
    tool('test_input_required_result_capabilities', 'Asks only for what the client declared it can answer (elicitation, sampling).', async (_args, ctx, upstream) => {
      const responses = ctx.mcpReq.inputResponses ?? {};
      if (Object.keys(responses).length > 0) return text(`capabilities-ok: received ${Object.keys(responses).sort().join(',')}`);
      const caps = clientCapabilities(ctx, () => upstream.server.server.getClientCapabilities());
      const inputRequests = {
        ...(caps.elicitation && { elicit_input: inputRequired.elicit({ message: 'Elicitation input', requestedSchema: z.object({ value: z.string() }) }) }),
        ...(caps.sampling && {
          sample_input: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Sample request' } }], maxTokens: 50 }),
        }),
      };
      return Object.keys(inputRequests).length > 0 ? inputRequired({ inputRequests }) : text('No supported capabilities declared');
    }),
    tool('test_missing_capability', 'Needs the sampling capability: refused with -32021 when the client did not declare it.', async (_args, ctx, upstream) => {
      if (!clientCapabilities(ctx, () => upstream.server.server.getClientCapabilities()).sampling) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } });
      return text('Success');
    }),
    tool('test_streaming_elicitation', 'Answers on its request stream with an input_required result until confirmed.', async (_args, ctx) => {
      return acceptedContent(ctx.mcpReq.inputResponses, 'confirm', OK) ? text('Streaming complete') : inputRequired({ inputRequests: { confirm: askOk() } });
    }),
    tool('test_logging_tool', 'Logs one info message (sent only when the request asked for logs).', async (_args, ctx) => {
      await ctx.mcpReq.log('info', 'Diagnostic trace logging activated', 'conformance-upstream');
      return text('Logging evaluated');
    }),
    tool('test_trigger_tool_change', 'Announces a tools list change to open subscriptions.', async () => {
      hooks.listChanged('tools');
      return text('Mutation triggered');
    }),
    tool('test_trigger_prompt_change', 'Announces a prompts list change to open subscriptions.', async () => {
      hooks.listChanged('prompts');
      return text('Mutation triggered');
    }),
  ];
}
