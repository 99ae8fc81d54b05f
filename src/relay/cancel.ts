/**
 * Cancellation, host → upstream. The host's `notifications/cancelled` for a tools/call
 * aborts the call's signal (the SDK Server does that); the upstream call takes the same
 * signal, so the SDK client sends `notifications/cancelled` upstream. This guard, the
 * last before forwarding, makes sure a call cancelled while it waited (for a person's
 * approval, say) is never sent upstream at all.
 */
import { errorResult, type CallContext, type Guard } from '../guards/types.js';

/** Whether the host cancelled the call. */
export function cancelled(ctx: CallContext): boolean {
  return ctx.host?.signal.aborted === true;
}

/** The result recorded for a call cancelled before it ran (the host never reads it: the SDK sends no response to a cancelled request). */
export function cancelledResult(ctx: CallContext): ReturnType<typeof errorResult> {
  ctx.decisions.push('refused');
  ctx.notes.push('cancelled by the host before it ran');
  return errorResult(`the host cancelled ${ctx.tool?.name ?? ctx.requestedName}; it has not run`);
}

export const cancellationGuard: Guard = async (ctx, next) => (cancelled(ctx) ? cancelledResult(ctx) : next(ctx));
