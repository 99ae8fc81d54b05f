/**
 * A 2026-07-28 upstream's `input_required` answer to a 2026-07-28 host's tools/call,
 * prompts/get or resources/read, relayed (the 2026 → 2026 leg of "relays across eras").
 * The upstream's questions go to the host as the gateway's own `input_required` result,
 * with the keys the upstream gave them (the host answers them by those keys); the
 * `requestState` the host gets is sealed (guards/sealed.ts) and names the upstream, the
 * request (tool and argument digest; or `prompts/get <name>` and argument digest, or
 * `resources/read <uri>`) and the upstream's own state. On the host's retry the seal is
 * opened (by the host face's verify hook: tampered, replayed or another authorization's
 * state never reaches this far), checked against the request, and the upstream is asked
 * again with the host's answers and its own state, byte for byte: a new seal each round.
 * Nothing is kept between rounds, so any replica continues the request.
 *
 * A 2025 upstream asks by request instead (elicitation/create, sampling/createMessage,
 * roots/list sent during the call): for a 2026 host the relay holds those questions and
 * the upstream's call (bridge.ts); the state then names that bridge, and the retry's
 * answers go to the questions held. That continuation lives in the process that asked.
 *
 * The state's kind (`upstream-input`) marks the answers as the upstream's: they never
 * count as the gateway's confirmation of an action (guards/confirmation.ts reads only its
 * own kind). A 2025 host meets a 2026 upstream's questions the other way: the upstream
 * client fulfils them through its request handlers, which relay each to the host's
 * session as an elicitation, sampling or roots request (calls.ts).
 */
import { CLIENT_CAPABILITIES_META_KEY, isInputRequiredResult, ProtocolErrorCode, type ClientCapabilities, type InputRequiredResult } from '@modelcontextprotocol/server';
import { digestOf } from '../guards/canonical.js';
import { matches, type RequestStateSealer, type SealedBinding, type SealedContent } from '../guards/sealed.js';
import type { CallContext, CallOutcome } from '../guards/types.js';
import type { UpstreamOutcome } from '../upstream/call.js';
import type { CallOptions } from '../upstream/types.js';
import { bridgeOf } from './bridge.js';
import { UPSTREAM_CAPABILITIES, type Bridging } from './calls.js';
import { marked } from './elicitation.js';
import { RelayError } from './errors.js';
import type { RequestFields } from './types.js';

/** The sealed state's kind for a relayed upstream question. */
export const UPSTREAM_INPUT = 'upstream-input';

/**
 * How long a host may take to answer a relayed question: 10 minutes, as long as a
 * person filling a form plausibly takes; the upstream keeps nothing meanwhile.
 */
export const UPSTREAM_INPUT_TTL_MS = 10 * 60_000;

/**
 * What the gateway seals besides the request: which upstream asked, and its own state — or,
 * for a 2025 upstream's questions held for the host, the bridge holding its call (bridge.ts).
 */
interface UpstreamInputData {
  server: string;
  state?: string;
  bridge?: string;
}

export interface InputRelay {
  sealer: RequestStateSealer;
  /** The authorization of the host's request (host/era.ts bindingOf). */
  binding: SealedBinding;
  /**
   * Ends a held call (bridge.ts) whose state was spent on a retry it does not continue:
   * nobody can continue it any more (CallRelay.abandon).
   */
  abandon?: (bridge: string) => void;
}

/** The capabilities a 2026 upstream may ask of this host: what the host declared, of what the gateway relays. */
export function relayableCapabilities(host: ClientCapabilities | undefined, relayed: ClientCapabilities): ClientCapabilities {
  const out: ClientCapabilities = {};
  for (const key of ['elicitation', 'sampling', 'roots'] as const) if (host?.[key] && relayed[key]) Object.assign(out, { [key]: host[key] });
  return out;
}

/**
 * The host's declared capabilities go to the upstream in the request's `_meta` (of those the
 * gateway relays), so a 2026 upstream asks only for what this host can answer: a 2026
 * host's from its request, a 2025 host's from its initialize (its questions then reach
 * the host's session as requests, calls.ts). A 2025 upstream ignores the key.
 */
export function withHostCapabilities(fields: RequestFields, relayed: CallOptions): CallOptions {
  // A 2026 host that declared nothing declared no capability: never the gateway's own in its place.
  const declared = fields.hostCapabilities ?? (fields.era === 'modern' ? {} : undefined);
  if (!declared) return relayed;
  return { ...relayed, meta: { ...relayed.meta, [CLIENT_CAPABILITIES_META_KEY]: relayableCapabilities(declared, UPSTREAM_CAPABILITIES) } };
}

/**
 * What the upstream leg of a relayed request gets besides the host's own options: the
 * input_required handling and, on a retry, the host's answers (`upstream`: the options
 * for the upstream request), and for a 2026 host what the relay needs to hold a 2025
 * upstream's questions for it (`bridging`: CallRelay.during's last argument).
 */
export interface InputExtra {
  upstream: Pick<CallOptions, 'allowInputRequired' | 'retry'>;
  bridging?: Bridging;
}

/**
 * Runs `call` (the request forwarded to `server`) for a host's request whose upstream may
 * answer `input_required`. A 2025 host's request runs as before. A 2026 host's gets the
 * upstream's `input_required` back, relayed as described above; its retry carries the
 * host's answers to the upstream.
 * @param names what a state continuing this request names besides its kind; called only when a state is checked or sealed.
 * @throws RelayError (-32602) for a state sealed for another upstream or another request.
 */
async function relayQuestions<R extends object>(
  fields: RequestFields,
  names: () => Omit<SealedContent, 'kind' | 'data'>,
  server: string,
  relay: InputRelay | undefined,
  call: (extra: InputExtra) => Promise<R | InputRequiredResult>,
): Promise<R | InputRequiredResult> {
  if (fields.era !== 'modern' || !relay) return call({ upstream: {} });
  const expected = (): SealedContent => ({ kind: UPSTREAM_INPUT, ...names() });
  const state = fields.input?.state;
  const capabilities = fields.hostCapabilities ?? {};
  let extra: InputExtra = { upstream: { allowInputRequired: true }, bridging: { capabilities } };
  if (state?.kind === UPSTREAM_INPUT) {
    const data = state.data as UpstreamInputData | undefined;
    if (!matches(state, expected()) || data?.server !== server) {
      // The state is spent (single use): a call held for it could never be continued.
      if (data?.bridge !== undefined) relay.abandon?.(data.bridge);
      throw new RelayError(ProtocolErrorCode.InvalidParams, 'requestState does not continue this request: retry with the arguments of the request that asked');
    }
    const responses = fields.input?.responses ?? {};
    extra = data.bridge !== undefined
      ? { upstream: { allowInputRequired: true }, bridging: { capabilities, resume: { bridge: data.bridge, responses } } }
      : { ...extra, upstream: { allowInputRequired: true, retry: { inputResponses: responses, ...(data.state !== undefined && { requestState: data.state }) } } };
  }
  const outcome = await call(extra);
  if (!isInputRequiredResult(outcome)) return outcome;
  // A 2025 upstream's questions held by the relay (already marked, elicitation.ts), or a 2026 upstream's own.
  const bridge = bridgeOf(outcome);
  const data: UpstreamInputData = bridge !== undefined ? { server, bridge } : { server, ...(outcome.requestState !== undefined && { state: outcome.requestState }) };
  const sealed = await relay.sealer.seal({ ...expected(), data }, relay.binding, UPSTREAM_INPUT_TTL_MS);
  const requests = outcome.inputRequests && (bridge !== undefined ? outcome.inputRequests : markedRequests(server, outcome.inputRequests));
  return { resultType: 'input_required', ...(requests && { inputRequests: requests }), requestState: sealed };
}

/**
 * relayQuestions for a forwarded tools/call: a state continues the same tool with the same
 * arguments. A state of another kind (the gateway's own confirmation) is not this relay's.
 */
export function withUpstreamInput(
  ctx: CallContext,
  server: string,
  relay: InputRelay | undefined,
  call: (extra: InputExtra) => Promise<UpstreamOutcome>,
): Promise<CallOutcome> {
  const tool = ctx.tool?.name;
  if (tool === undefined) return call({ upstream: {} });
  // The digest is taken only when a state is checked or sealed: most calls need neither.
  return relayQuestions(ctx, () => ({ tool, argsDigest: digestOf(ctx.args) }), server, relay, call);
}

/**
 * relayQuestions for prompts/get and resources/read: a state continues the same `request`
 * (`prompts/get <name>`, `resources/read <uri>`) with the same `args`. Only this relay seals
 * states for them, so a state of another kind is refused.
 */
export function withUpstreamInputFor<R extends object>(
  fields: RequestFields,
  request: string,
  args: Record<string, unknown> | undefined,
  server: string,
  relay: InputRelay | undefined,
  call: (extra: InputExtra) => Promise<R | InputRequiredResult>,
): Promise<R | InputRequiredResult> {
  const kind = fields.input?.state?.kind;
  if (kind !== undefined && kind !== UPSTREAM_INPUT) throw new RelayError(ProtocolErrorCode.InvalidParams, `requestState does not continue this request: it was made for a tools/call`);
  return relayQuestions(fields, () => ({ request, ...(args && { argsDigest: digestOf(args) }) }), server, relay, call);
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
