/**
 * Confirmation of a 2026-07-28 host's call through `input_required` (confirmation.ts
 * decides whether a call needs it and through which channel). The first round answers
 * the host with an elicitation form and a sealed `requestState` naming this very call
 * (kind `confirm`, tool, argument digest, definition digest; guards/sealed.ts). The
 * host asks its user and retries the call with the answer and the state; the state opens
 * only for the same authorization, once (the SDK's verify hook spent it), so:
 *
 *   - an answer without the gateway's state, or with a state for another call (other
 *     arguments, another tool, a changed definition), is no answer: the user is asked anew;
 *   - a state echoed a second time is refused by the SDK before the call path runs;
 *   - accepted: the call runs once; declined or cancelled: it does not run.
 */
import { inputRequired, inputResponse, type InputRequiredResult } from '@modelcontextprotocol/server';
import type { ToolRecord } from '../catalog/types.js';
import { digestOf } from './canonical.js';
import { definitionDigest } from './definition.js';
import { matches, type SealedContent } from './sealed.js';
import type { CallContext } from './types.js';

/** The key of the gateway's confirmation in `inputRequests` / `inputResponses`. */
export const CONFIRM_KEY = 'tool-curator/confirm';

/** How long a host has to retry with its user's answer: 10 minutes. */
export const CONFIRM_STATE_TTL_MS = 10 * 60_000;

const SCHEMA = { type: 'object' as const, properties: { confirm: { type: 'boolean' as const, title: 'Run this tool call?' } }, required: ['confirm'] };

/** What a confirmation state says about the call it confirms. */
export function confirmContent(ctx: CallContext, tool: ToolRecord): SealedContent {
  return { kind: 'confirm', tool: tool.name, argsDigest: digestOf(ctx.args), definitionDigest: definitionDigest(tool) };
}

/** The user's answer this retry carries for this very call: `accept`, `decline`, `cancel`; undefined when there is none that counts. */
export function answerOf(ctx: CallContext, tool: ToolRecord): 'accept' | 'decline' | 'cancel' | undefined {
  const state = ctx.input?.state;
  if (!state || !matches(state, confirmContent(ctx, tool))) return undefined;
  const view = inputResponse(ctx.input?.responses, CONFIRM_KEY);
  if (view.kind !== 'elicit') return undefined;
  if (view.action === 'accept') return view.content?.confirm === true ? 'accept' : 'decline';
  return view.action;
}

/**
 * The `input_required` answer that asks the host's user to confirm `tool` with the shown arguments.
 * @throws Error when the session cannot seal (`ctx.seal` unset: not a host's request).
 */
export async function askToConfirm(ctx: CallContext, tool: ToolRecord, message: string): Promise<InputRequiredResult> {
  if (!ctx.seal) throw new Error('a confirmation through input_required needs ctx.seal (the host face sets it)');
  return inputRequired({
    inputRequests: { [CONFIRM_KEY]: inputRequired.elicit({ message, requestedSchema: SCHEMA }) },
    requestState: await ctx.seal(confirmContent(ctx, tool), CONFIRM_STATE_TTL_MS),
  });
}
