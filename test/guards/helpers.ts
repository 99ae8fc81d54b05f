/** A call context and a recording upstream for guard tests. */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallContext, CallHandler, SessionIdentity } from '../../src/guards/types.js';

export function context(requestedName: string, args: Record<string, unknown> = {}, session: Partial<SessionIdentity> = {}): CallContext {
  return {
    session: { sessionId: 'sess-1', persona: 'student', userId: 'S0001', ...session },
    requestedName,
    args,
    decisions: [],
    notes: [],
  };
}

/** A fake upstream: records what it received, answers "ran <tool>", takes 7 ms. */
export function recordingUpstream(): { forward: CallHandler; calls: { tool: string; args: Record<string, unknown> }[] } {
  const calls: { tool: string; args: Record<string, unknown> }[] = [];
  const forward: CallHandler = async (ctx): Promise<CallToolResult> => {
    calls.push({ tool: ctx.tool!.name, args: ctx.args });
    ctx.upstreamMs = 7;
    return { content: [{ type: 'text', text: `ran ${ctx.tool!.name}` }] };
  };
  return { forward, calls };
}

export function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}
