/**
 * Questions from an upstream that asks by request — a 2025-11-25 upstream's
 * `elicitation/create`, `sampling/createMessage` or `roots/list` sent to the gateway's
 * client during a call — for a 2026-07-28 host, which can only be asked inside an
 * `input_required` result (the 2025 → 2026 leg of "relays across eras").
 *
 * While a 2026 host's request waits on its upstream, the relay's question handlers see a
 * stand-in for the host (`Bridge.request`): a question they send to it is held, and the
 * host's request is answered `input_required` with the questions held so far (keys `q1`,
 * `q2`, … unique within the request). The upstream's call is still running, waiting for
 * its answers: the bridge keeps it, in this process, under a random id that the gateway
 * seals into the `requestState` (relay/inputRequired.ts; bound to the authorization and
 * to the request, spent once). The host's retry opens the seal, hands each held question
 * its answer from `inputResponses`, and waits again — for the call's result or the next
 * questions. So one tools/call, prompts/get or resources/read of a 2026 host can be asked
 * as many questions as a 2025 host would be, each round a new seal.
 *
 * Unlike a 2026 upstream's own `input_required`, this continuation lives in one process:
 * a retry that reaches another replica of a fleet, or comes after BRIDGE_TTL_MS, finds
 * nothing and is told to call again; the upstream's waiting questions are then refused and
 * its call cancelled. At most MAX_OPEN_BRIDGES wait at once.
 *
 * ### Usage
 * ```ts
 * const bridge = new Bridge(host, 'files', capabilities);
 * const end = inFlight.begin('files', bridge.request); // questions now reach the bridge
 * bridge.start((signal) => pool.call('files', 'write', args, { signal }), end);
 * const first = await bridge.run(host); // the result, or input_required with the questions
 * // … the host's retry, with its answers:
 * bridge.answer(responses);
 * const next = await bridge.run(retryHost);
 * ```
 */
import { randomUUID } from 'node:crypto';
import { ProtocolErrorCode, type ClientCapabilities, type InputRequiredResult, type RequestOptions } from '@modelcontextprotocol/server';
import { RelayError } from './errors.js';
import type { HostRequest } from './types.js';

/** How long held questions wait for the host's retry: 10 minutes, as for a 2026 upstream's own questions. */
export const BRIDGE_TTL_MS = 10 * 60_000;

/** Bridges waiting for a retry at once, over all hosts; a question past that is refused at once. */
export const MAX_OPEN_BRIDGES = 256;

/** A question the upstream sent, held for the host. */
interface Held {
  key: string;
  request: { method: string; params?: unknown };
  /** Whether the host has been given it (in an `input_required`). */
  asked: boolean;
  resolve(result: unknown): void;
  reject(err: Error): void;
}

/** The upstream call's end: its value, or why it failed. */
type Settled<T> = { value: T } | { error: unknown };

/** The input_required results a bridge made, with its id: only these continue through a bridge. */
const made = new WeakMap<object, string>();

/** The bridge id of an `input_required` a Bridge made; undefined for any other (a 2026 upstream's own). */
export function bridgeOf(result: object): string | undefined {
  return made.get(result);
}

export class Bridge<T> {
  readonly id = randomUUID();
  /** The stand-in for the host in the relay's in-flight registry: questions sent to it are held. */
  readonly request: HostRequest;
  private readonly controller = new AbortController();
  private readonly held = new Map<string, Held>();
  private count = 0;
  /** Wakes the current round when a question arrives. */
  private wake: (() => void) | undefined;
  /** The host request of the round being answered; undefined between rounds. */
  private current: HostRequest | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private settled: Promise<Settled<T>> | undefined;
  private closed = false;

  /**
   * @param first the host's request that starts the call.
   * @param upstream the upstream (or per-user connection key) the call goes to.
   * @param capabilities what the host declared (its request's `_meta`): the questions it can answer.
   * @param onEnded told when the bridge ends: no retry came in time, or the upstream call
   *   ended between rounds (the caller forgets the bridge; a later retry is told to call again).
   */
  constructor(
    first: HostRequest,
    readonly upstream: string,
    capabilities: ClientCapabilities,
    private readonly onEnded: () => void = () => undefined,
  ) {
    const current = () => this.current;
    this.request = {
      session: first.session,
      requestId: first.requestId,
      signal: this.controller.signal,
      // The token of the round being answered: each retry is a request of its own, with its own token.
      get progressToken() {
        return (current() ?? first).progressToken;
      },
      ...(first.meta && { meta: first.meta }),
      capabilities,
      sendRequest: ((request: Held['request'], options?: RequestOptions) => this.hold(request, options)) as HostRequest['sendRequest'],
      // Progress and log messages reach the host while one of its requests is open; between rounds there is no one to tell.
      sendNotification: (notification) => this.current?.sendNotification(notification) ?? Promise.resolve(),
    };
  }

  /** Starts the upstream call; `end` runs once it has ended (the in-flight record). */
  start(call: (signal: AbortSignal) => Promise<T>, end: () => void): void {
    this.settled = call(this.controller.signal)
      .then((value): Settled<T> => ({ value }), (error: unknown): Settled<T> => ({ error }))
      .finally(() => {
        end();
        this.close();
        this.onEnded();
      });
  }

  /**
   * Waits, for the host request `host`, until the call ends (its result, or its error
   * thrown) or the upstream has asked something: then `input_required` with the questions
   * not yet given to the host, whose `requestState` is this bridge's id (to be sealed).
   * The host cancelling `host` cancels the call.
   */
  async run(host: HostRequest): Promise<T | InputRequiredResult> {
    if (!this.settled) throw new Error('Bridge.run before start');
    clearTimeout(this.expiry);
    this.current = host;
    const cancel = () => this.controller.abort(host.signal.reason);
    if (host.signal.aborted) cancel();
    host.signal.addEventListener('abort', cancel, { once: true });
    try {
      const asked = new Promise<undefined>((resolve) => {
        this.wake = () => resolve(undefined);
        if (this.unasked().length > 0) resolve(undefined);
      });
      let ended = await Promise.race([this.settled, asked]);
      // Questions sent together (an elicitation and a sampling request at once) go out in one round.
      if (!ended) ended = await Promise.race([this.settled, new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
      if (ended) {
        if ('error' in ended) throw ended.error;
        return ended.value;
      }
      const questions = this.unasked();
      for (const q of questions) q.asked = true;
      this.expiry = setTimeout(() => this.expire(), BRIDGE_TTL_MS);
      this.expiry.unref();
      const result: InputRequiredResult = {
        resultType: 'input_required',
        inputRequests: Object.fromEntries(questions.map((q) => [q.key, q.request])) as InputRequiredResult['inputRequests'],
        requestState: this.id,
      };
      made.set(result, this.id);
      return result;
    } finally {
      host.signal.removeEventListener('abort', cancel);
      this.current = undefined;
      this.wake = undefined;
    }
  }

  /**
   * The host's answers, by key: each question given to the host gets its answer; one the
   * retry leaves out is refused to the upstream (the host's user did not answer it).
   */
  answer(responses: Record<string, unknown>): void {
    for (const q of [...this.held.values()]) {
      if (!q.asked) continue;
      this.held.delete(q.key);
      if (Object.hasOwn(responses, q.key)) q.resolve(responses[q.key]);
      else q.reject(new RelayError(ProtocolErrorCode.InvalidRequest, `the host's retry did not answer ${q.request.method} (${q.key})`));
    }
  }

  /** No retry came in time: the held questions are refused and the call cancelled. */
  private expire(): void {
    this.onEnded();
    this.controller.abort(new Error(`the host did not answer the upstream's questions within ${BRIDGE_TTL_MS / 60_000} minutes`));
    this.close();
  }

  /** No retry can continue the call any more (its state was spent elsewhere): the questions are refused and the call cancelled. */
  abandon(): void {
    this.controller.abort(new Error("the host's retry did not continue this request"));
    this.close();
  }

  /** Whether the upstream call still runs (a retry can continue it). */
  get open(): boolean {
    return !this.closed;
  }

  /** Refuses every question still held; later ones are refused at once. */
  private close(): void {
    this.closed = true;
    clearTimeout(this.expiry);
    for (const q of this.held.values()) q.reject(new RelayError(ProtocolErrorCode.InvalidRequest, `${q.request.method} refused by the gateway: the host's request ended before it was answered`));
    this.held.clear();
  }

  private unasked(): Held[] {
    return [...this.held.values()].filter((q) => !q.asked);
  }

  /** A question from the upstream, held until the host's retry answers it (or the upstream withdraws it, or it times out). */
  private hold(request: Held['request'], options?: RequestOptions): Promise<unknown> {
    if (this.closed) return Promise.reject(new RelayError(ProtocolErrorCode.InvalidRequest, `${request.method} refused by the gateway: the host's request has ended`));
    return new Promise((resolve, reject) => {
      const key = `q${++this.count}`;
      let timer: NodeJS.Timeout | undefined;
      const signal = options?.signal;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', withdrawn);
      };
      const withdrawn = () => {
        if (this.held.delete(key)) reject(signal?.reason instanceof Error ? signal.reason : new Error(`${request.method} withdrawn`));
        done();
      };
      this.held.set(key, {
        key,
        request,
        asked: false,
        resolve: (v) => {
          done();
          resolve(v);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      if (signal?.aborted) return withdrawn();
      signal?.addEventListener('abort', withdrawn, { once: true });
      if (options?.timeout !== undefined) {
        timer = setTimeout(() => {
          if (this.held.delete(key)) reject(new RelayError(ProtocolErrorCode.InternalError, `the host did not answer ${request.method} within ${Math.round(options.timeout! / 1000)} s`));
          done();
        }, options.timeout);
        timer.unref();
      }
      this.wake?.();
    });
  }
}
