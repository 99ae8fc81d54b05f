/**
 * The last step of the call path: forwards the call to its upstream, timing it, and hands
 * the host its answer without the resources the persona may not receive (relay/withheld.ts).
 * The guards before it have resolved the tool, checked the persona, injected identity,
 * validated the arguments and obtained any approval.
 */
import { errorResult, type CallHandler } from '../guards/types.js';
import { resourceUriOf, type MayReceive } from '../policy/contents.js';
import type { CallRelay } from '../relay/calls.js';
import { withholdBlocks } from '../relay/withheld.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { PerUserCalls } from './consent.js';

const namesResource = (block: unknown) => resourceUriOf(block) !== undefined;

/**
 * `relay` passes progress, log messages, questions and cancellation between the call's host
 * and upstream; `mayReceive` decides the resources a result embeds or links (Relay.mayReceive);
 * `perUser` takes the calls of per-user upstreams (each user's own account).
 */
export function forwardTo(
  pool: UpstreamPool,
  relay: CallRelay,
  mayReceive: (persona: string | undefined, server: string) => MayReceive | undefined,
  perUser?: PerUserCalls,
): CallHandler {
  return async (ctx) => {
    const tool = ctx.tool;
    if (!tool) return errorResult(`unknown tool ${ctx.requestedName}; use find_tools to search the catalog`);
    const started = performance.now();
    const result = perUser?.handles(tool.server)
      ? await perUser.call(ctx, tool)
      : await relay.during(ctx.host, tool.server, (relayed) => pool.call(tool.server, tool.upstreamName, ctx.args, relayed));
    ctx.upstreamMs = Math.round(performance.now() - started);
    // Most answers name no resource: nothing to decide, and no decision built for them.
    if (!Array.isArray(result.content) || !result.content.some(namesResource)) return result;
    const decide = mayReceive(ctx.session.persona, tool.server);
    if (!decide) return result;
    const content = withholdBlocks(result.content, decide);
    return content === result.content ? result : { ...result, content };
  };
}
