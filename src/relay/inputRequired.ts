/**
 * A 2026-07-28 upstream's `input_required` answer to a 2026-07-28 host's tools/call,
 * relayed (the 2026 → 2026 leg of "relays across eras"). The upstream's questions go to
 * the host as the gateway's own `input_required` result, with the keys the upstream gave
 * them (the host answers them by those keys); the `requestState` the host gets is sealed
 * (guards/sealed.ts) and names the upstream, the call (tool, argument digest) and the
 * upstream's own state. On the host's retry the seal is opened (by the host face's verify
 * hook: tampered, replayed or another authorization's state never reaches this far),
 * checked against the call, and the upstream is called again with the host's answers and
 * its own state, byte for byte: a new seal each round. Nothing is kept between rounds, so
 * any replica continues the call.
 *
 * The state's kind (`upstream-input`) marks the answers as the upstream's: they never
 * count as the gateway's confirmation of an action (guards/confirmation.ts reads only its
 * own kind). A 2025 host meets a 2026 upstream's questions the other way: the upstream
 * client fulfils them through its request handlers, which relay each to the host's
 * session as an elicitation, sampling or roots request (calls.ts).
 */
import { isInputRequiredResult, ProtocolErrorCode, type ClientCapabilities, type InputRequiredResult } from '@modelcontextprotocol/server';
import { digestOf } from '../guards/canonical.js';
import { matches, type RequestStateSealer, type SealedBinding, type SealedContent } from '../guards/sealed.js';
import type { CallContext, CallOutcome } from '../guards/types.js';
import type { UpstreamOutcome } from '../upstream/call.js';
import type { CallOptions } from '../upstream/types.js';
import { marked } from './elicitation.js';
import { RelayError } from './errors.js';

/** The sealed state's kind for a relayed upstream question. */
export const UPSTREAM_INPUT = 'upstream-input';

/**
 * How long a host may take to answer a relayed question: 10 minutes, as long as a
 * person filling a form plausibly takes; the upstream keeps nothing meanwhile.
 */
export const UPSTREAM_INPUT_TTL_MS = 10 * 60_000;

/** What the gateway seals besides the call: which upstream asked, and its own state. */
interface UpstreamInputData {
  server: string;
  state?: string;
}

export interface InputRelay {
  sealer: RequestStateSealer;
  /** The authorization of the host's request (host/era.ts bindingOf). */
  binding: SealedBinding;
}

/** The capabilities a 2026 upstream may ask of this host: what the host declared, of what the gateway relays. */
export function relayableCapabilities(host: ClientCapabilities | undefined, relayed: ClientCapabilities): ClientCapabilities {
  const out: ClientCapabilities = {};
  for (const key of ['elicitation', 'sampling', 'roots'] as const) if (host?.[key] && relayed[key]) Object.assign(out, { [key]: host[key] });
  return out;
}

/**
 * Runs `call` (the forwarded tools/call to `server`) for `ctx`. A 2025 host's call runs
 * as before. A 2026 host's call gets the upstream's `input_required` back, relayed as
 * described above; its retry carries the host's answers to the upstream.
 * @throws RelayError (-32602) for a state sealed for another upstream or another call.
 */
export async function withUpstreamInput(
  ctx: CallContext,
  server: string,
  relay: InputRelay | undefined,
  call: (extra: Pick<CallOptions, 'allowInputRequired' | 'retry'>) => Promise<UpstreamOutcome>,
): Promise<CallOutcome> {
  if (ctx.era !== 'modern' || !relay || !ctx.tool) return call({});
  // The digest is taken only when a state is checked or sealed: most calls need neither.
  const tool = ctx.tool.name;
  const expected = (): SealedContent => ({ kind: UPSTREAM_INPUT, tool, argsDigest: digestOf(ctx.args) });
  const state = ctx.input?.state;
  let retry: CallOptions['retry'];
  if (state?.kind === UPSTREAM_INPUT) {
    const data = state.data as UpstreamInputData | undefined;
    if (!matches(state, expected()) || data?.server !== server) throw new RelayError(ProtocolErrorCode.InvalidParams, 'requestState does not continue this call: retry with the arguments of the call that asked');
    retry = { inputResponses: ctx.input?.responses ?? {}, ...(data.state !== undefined && { requestState: data.state }) };
  }
  const outcome = await call({ allowInputRequired: true, ...(retry && { retry }) });
  if (!isInputRequiredResult(outcome)) return outcome;
  const data: UpstreamInputData = { server, ...(outcome.requestState !== undefined && { state: outcome.requestState }) };
  const sealed = await relay.sealer.seal({ ...expected(), data }, relay.binding, UPSTREAM_INPUT_TTL_MS);
  return { resultType: 'input_required', ...(outcome.inputRequests && { inputRequests: markedRequests(server, outcome.inputRequests) }), requestState: sealed };
}

/**
 * The upstream's questions as the host's user sees them: each elicitation's message marked
 * as that upstream's (`[<upstream> asks]`, elicitation.ts), as a 2025 host sees it, so it
 * never reads as the gateway's own confirmation. Other requests pass as they are.
 */
function markedRequests(server: string, requests: NonNullable<InputRequiredResult['inputRequests']>): NonNullable<InputRequiredResult['inputRequests']> {
  const out: NonNullable<InputRequiredResult['inputRequests']> = {};
  for (const [key, request] of Object.entries(requests)) {
    const params = (request as { method?: string; params?: { message?: unknown } }).params;
    const elicits = (request as { method?: string }).method === 'elicitation/create' && typeof params?.message === 'string';
    out[key] = elicits ? ({ ...request, params: { ...params, message: marked(server, params.message as string) } } as typeof request) : request;
  }
  return out;
}
