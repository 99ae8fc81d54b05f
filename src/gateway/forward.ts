/**
 * The last step of the call path: forwards the call to its upstream, timing it, and hands
 * the host its answer without the resources the persona may not receive (relay/withheld.ts).
 * The guards before it have resolved the tool, checked the persona, injected identity,
 * validated the arguments and obtained any approval.
 */
import { MissingRequiredClientCapabilityError } from '@modelcontextprotocol/client';
import type { RequestStateSealer } from '../guards/sealed.js';
import { errorResult, isToolResult, type CallHandler } from '../guards/types.js';
import { bindingOf } from '../host/era.js';
import { resourceUriOf, type MayReceive } from '../policy/contents.js';
import type { CallRelay } from '../relay/calls.js';
import { RelayError } from '../relay/errors.js';
import { withHostCapabilities, withUpstreamInput } from '../relay/inputRequired.js';
import { withholdBlocks } from '../relay/withheld.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { PerUserCalls } from './consent.js';

const namesResource = (block: unknown) => resourceUriOf(block) !== undefined;

/**
 * `relay` passes progress, log messages, questions and cancellation between the call's host
 * and upstream; `mayReceive` decides the resources a result embeds or links (Relay.mayReceive);
 * `perUser` takes the calls of per-user upstreams (each user's own account); `sealer`
 * seals the state of a 2026 upstream's question relayed to a 2026 host (relay/inputRequired.ts).
 */
export function forwardTo(
  pool: UpstreamPool,
  relay: CallRelay,
  mayReceive: (persona: string | undefined, server: string) => MayReceive | undefined,
  perUser?: PerUserCalls,
  sealer?: RequestStateSealer,
): CallHandler {
  return async (ctx) => {
    const tool = ctx.tool;
    if (!tool) return errorResult(`unknown tool ${ctx.requestedName}; use find_tools to search the catalog`);
    const started = performance.now();
    const inputRelay = sealer && { sealer, binding: bindingOf(ctx.session), abandon: (bridge: string) => relay.abandon(bridge) };
    let outcome;
    try {
      outcome = perUser?.handles(tool.server)
        ? await perUser.call(ctx, tool, inputRelay)
        : await withUpstreamInput(ctx, tool.server, inputRelay, (extra) =>
            relay.during(ctx.host, tool.server, (relayed) => pool.call(tool.server, tool.upstreamName, ctx.args, { ...withHostCapabilities(ctx, relayed), ...extra.upstream }), extra.bridging),
          );
    } catch (err) {
      if (!(err instanceof MissingRequiredClientCapabilityError)) throw err;
      // A 2026 host gets the spec's -32021 with what the upstream needs; a 2025 host, whose revision has no such code, a result naming it.
      if (ctx.era === 'modern') throw new RelayError(err.code, err.message, err.data);
      const needed = Object.keys((err.data as { requiredCapabilities?: object } | undefined)?.requiredCapabilities ?? {}).join(', ');
      return errorResult(`${tool.name} needs a capability this app did not declare (${needed || 'unnamed'}); it has not run`);
    }
    ctx.upstreamMs = Math.round(performance.now() - started);
    if (!isToolResult(outcome)) return outcome;
    const result = outcome;
    // Most answers name no resource: nothing to decide, and no decision built for them.
    if (!Array.isArray(result.content) || !result.content.some(namesResource)) return result;
    const decide = mayReceive(ctx.session.persona, tool.server);
    if (!decide) return result;
    const content = withholdBlocks(result.content, decide);
    return content === result.content ? result : { ...result, content };
  };
}
