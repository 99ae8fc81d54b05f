/**
 * The audit of calls. `AuditWriter` is the one way rows reach the store's audit log:
 * every value is redacted and bounded on the way (so no writer can forget to), names and
 * details clipped. `auditGuards` records every call that reached the gateway with the
 * decisions the inner guards took: `around`, the outermost guard, finishes each row;
 * `beforeForward`, the innermost, commits a `running` row before the upstream is called,
 * so a crash during the call leaves it in the log; the row's completion is written after
 * the answer has gone out (the store's `complete`). A call never forwarded gets one row.
 * An action whose row cannot be written is refused rather than run unaudited.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { log } from '../log.js';
import type { AuditCompletion, AuditEntry, AuditPart, Outcome } from '../store/types.js';
import { boundValue, clipName, DEFAULT_MAX_VALUE_BYTES } from './bound.js';
import { redact, redactedValues, redactText } from './redact.js';
import type { SecretRedactor } from './secrets/redactor.js';
import { errorResult, isToolResult, type CallContext, type CallOutcome, type Guard } from './types.js';

const DETAIL_MAX = 500;
/** How much of an error text is searched for secrets before the stored detail is cut to DETAIL_MAX (a secret is never cut in two before it is redacted). */
const DETAIL_SCAN = DETAIL_MAX * 8;

export class AuditWriter {
  /**
   * @param redactFields field names whose values never reach the log (config
   *   `audit.redact`; matching rules in redact.ts). Default: none.
   * @param maxValueBytes longest value stored (config `audit.max_value_bytes`); longer
   *   ones are cut with a marker (bound.ts). Default 4096.
   * @param secrets removes the credentials the gateway holds (and well-known secret formats,
   *   per `guards.secrets`) from everything stored, before it is bounded (guards/secrets).
   */
  constructor(
    private readonly part: AuditPart,
    private readonly redactFields: string[] = [],
    private readonly maxValueBytes: number = DEFAULT_MAX_VALUE_BYTES,
    private readonly secrets?: SecretRedactor,
  ) {}

  private held<T>(value: T): T {
    return this.secrets ? this.secrets.redact(value) : value;
  }

  /** Error text as stored: secrets redacted (held ones, the call's redacted argument values wherever echoed, named pairs, credentials), then clipped. */
  private detail(text: string | undefined, args: unknown): string | undefined {
    if (text === undefined) return undefined;
    return redactText(this.held(text.slice(0, DETAIL_SCAN)), this.redactFields, redactedValues(args, this.redactFields)).slice(0, Math.min(DETAIL_MAX, this.maxValueBytes));
  }

  private storable<E extends Omit<AuditEntry, 'outcome'>>(e: E): E {
    return {
      ...e,
      tool: clipName(e.tool),
      requestedName: clipName(e.requestedName),
      args: boundValue(redact(this.held(e.args), this.redactFields), this.maxValueBytes),
      notes: boundValue(this.held(e.notes), this.maxValueBytes),
      ...(e.detail !== undefined && { detail: this.detail(e.detail, e.args) }),
    };
  }

  /** Commits a `running` row; returns its id. */
  begin(entry: Omit<AuditEntry, 'outcome'>): Promise<number> {
    return this.part.begin(this.storable(entry));
  }

  /** Completes row `id`; `args` are the call's arguments, whose secrets the detail must not echo. */
  complete(id: number, c: AuditCompletion, args: unknown): Promise<boolean> {
    return this.part.complete(id, { ...c, notes: boundValue(this.held(c.notes), this.maxValueBytes), ...(c.detail !== undefined && { detail: this.detail(c.detail, args) }) });
  }

  /** One finished row. */
  record(entry: AuditEntry): Promise<number> {
    return this.part.record(this.storable(entry));
  }
}

/** The text of an error result, bounded (redaction and the final clip come in AuditWriter). */
function resultText(result: CallToolResult): string {
  return result.content
    .map((c) => (c.type === 'text' ? c.text : `[${c.type}]`))
    .join(' ')
    .slice(0, DETAIL_SCAN);
}

/** A call ran iff it reached the upstream, which is when the upstream handler set its latency. */
function outcomeOf(ctx: CallContext, result: CallOutcome): Exclude<Outcome, 'running'> {
  if (ctx.upstreamMs === undefined) return 'not_run';
  return isToolResult(result) && result.isError ? 'error' : 'ok';
}

/**
 * The two ends of the audit: compose `around` outermost and `beforeForward` right
 * before the upstream call (guards/pipeline.ts).
 * @param now clock in epoch ms; default `Date.now`.
 */
export function auditGuards(audit: AuditWriter, now: () => number = Date.now): { around: Guard; beforeForward: Guard } {
  const calls = new WeakMap<CallContext, { time: number; id?: number }>();

  const entryOf = (ctx: CallContext, time: number): Omit<AuditEntry, 'outcome'> => ({
    time,
    sessionId: ctx.session.sessionId,
    tool: ctx.tool?.name ?? ctx.requestedName,
    requestedName: ctx.requestedName,
    args: ctx.args,
    decision: ctx.decisions.at(-1) ?? 'allowed',
    decisions: [...ctx.decisions],
    notes: [...ctx.notes],
    ...(ctx.session.persona !== undefined && { persona: ctx.session.persona }),
    ...(ctx.session.userId !== undefined && { userId: ctx.session.userId }),
  });

  const failed = (ctx: CallContext, id: number | undefined) => (err: unknown) =>
    // The call has been decided (perhaps run) already; losing the row must not lose the answer.
    log.error({ err: (err as Error).message, tool: ctx.tool?.name ?? ctx.requestedName, id }, 'audit record failed');

  /**
   * A call never forwarded gets its one row before the answer. A forwarded one's row was
   * committed before the upstream ran; its completion is queued, not awaited: the store
   * writes it behind the answer (store/audit.ts).
   */
  const finish = async (ctx: CallContext, time: number, id: number | undefined, outcome: Exclude<Outcome, 'running'>, detail?: string) => {
    const done = {
      decision: ctx.decisions.at(-1) ?? 'allowed',
      decisions: [...ctx.decisions],
      notes: [...ctx.notes],
      outcome,
      ...(ctx.upstreamMs !== undefined && { upstreamMs: ctx.upstreamMs }),
      ...(detail !== undefined && { detail }),
    };
    try {
      if (id === undefined) await audit.record({ ...entryOf(ctx, time), ...done });
      else
        void audit.complete(id, done, ctx.args).then((found) => {
          if (!found) log.error({ id }, 'audit row to complete was not found running');
        }, failed(ctx, id));
    } catch (err) {
      failed(ctx, id)(err);
    }
  };

  const around: Guard = async (ctx, next) => {
    const call: { time: number; id?: number } = { time: now() };
    calls.set(ctx, call);
    let result: CallOutcome;
    try {
      result = await next(ctx);
    } catch (err) {
      await finish(ctx, call.time, call.id, 'error', String((err as Error).message ?? err).slice(0, DETAIL_SCAN));
      throw err;
    }
    await finish(ctx, call.time, call.id, outcomeOf(ctx, result), isToolResult(result) && result.isError ? resultText(result) : undefined);
    return result;
  };

  const beforeForward: Guard = async (ctx, next) => {
    const call = calls.get(ctx);
    if (!call) throw new Error('auditGuards: compose `around` outermost and `beforeForward` before the upstream call');
    try {
      call.id = await audit.begin(entryOf(ctx, call.time));
    } catch (err) {
      const reason = (err as Error).message;
      log.error({ err: reason, tool: ctx.tool?.name }, 'audit row could not be written before forwarding');
      if (ctx.tool?.isAction) {
        ctx.decisions.push('refused');
        ctx.notes.push('audit log unavailable');
        return errorResult(`${ctx.tool.name} has not run: the gateway's audit log cannot be written (${reason}), and actions never run unaudited. Try again later.`);
      }
      ctx.notes.push('audit row could not be written before the call');
    }
    return next(ctx);
  };

  return { around, beforeForward };
}
