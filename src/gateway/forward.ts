/**
 * The last step of the call path: forwards the call to its upstream, timing it. The
 * guards before it have resolved the tool, checked the persona, injected identity,
 * validated the arguments and obtained any approval.
 */
import { errorResult, type CallHandler } from '../guards/types.js';
import type { CallRelay } from '../relay/calls.js';
import type { UpstreamPool } from '../upstream/pool.js';

/** `relay` passes progress, log messages, questions and cancellation between the call's host and upstream. */
export function forwardTo(pool: UpstreamPool, relay: CallRelay): CallHandler {
  return async (ctx) => {
    const tool = ctx.tool;
    if (!tool) return errorResult(`unknown tool ${ctx.requestedName}; use find_tools to search the catalog`);
    const started = performance.now();
    const result = await relay.during(ctx.host, tool.server, (relayed) => pool.call(tool.server, tool.upstreamName, ctx.args, relayed));
    ctx.upstreamMs = Math.round(performance.now() - started);
    return result;
  };
}
