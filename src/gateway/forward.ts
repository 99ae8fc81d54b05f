/**
 * The last step of the call path: forwards the call to its upstream, timing it. The
 * guards before it have resolved the tool, checked the persona, injected identity,
 * validated the arguments and obtained any approval.
 */
import { errorResult, type CallHandler } from '../guards/types.js';
import type { UpstreamPool } from '../upstream/pool.js';

export function forwardTo(pool: UpstreamPool): CallHandler {
  return async (ctx) => {
    const tool = ctx.tool;
    if (!tool) return errorResult(`unknown tool ${ctx.requestedName}; use find_tools to search the catalog`);
    const started = performance.now();
    const result = await pool.call(tool.server, tool.upstreamName, ctx.args);
    ctx.upstreamMs = Math.round(performance.now() - started);
    return result;
  };
}
