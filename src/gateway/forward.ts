/**
 * The last step of the call path: forwards the call to its upstream, timing it. The
 * guards before it have resolved the tool, checked the persona, injected identity,
 * validated the arguments and obtained any approval.
 */
import { errorResult, type CallHandler } from '../guards/types.js';
import type { CallRelay } from '../relay/calls.js';
import type { UpstreamPool } from '../upstream/pool.js';
import type { PerUserCalls } from './consent.js';

/**
 * `relay` passes progress, log messages, questions and cancellation between the call's host
 * and upstream; `perUser` takes the calls of per-user upstreams (each user's own account).
 */
export function forwardTo(pool: UpstreamPool, relay: CallRelay, perUser?: PerUserCalls): CallHandler {
  return async (ctx) => {
    const tool = ctx.tool;
    if (!tool) return errorResult(`unknown tool ${ctx.requestedName}; use find_tools to search the catalog`);
    const started = performance.now();
    const result = perUser?.handles(tool.server)
      ? await perUser.call(ctx, tool)
      : await relay.during(ctx.host, tool.server, (relayed) => pool.call(tool.server, tool.upstreamName, ctx.args, relayed));
    ctx.upstreamMs = Math.round(performance.now() - started);
    return result;
  };
}
