/**
 * Sealed `requestState`: what the gateway hands a 2026-07-28 host inside an
 * `input_required` result (a confirmation it asks for, an upstream's question it relays)
 * and reads back on the host's retry. The host can neither read it, nor forge it, nor
 * use it twice:
 *
 *   - AES-256-GCM (node:crypto) with the store's sealing key (store/sealing.ts), the same
 *     for every replica, so whichever replica gets the retry opens it;
 *   - the payload names the authorization it was made for (persona and the user's account
 *     key), the tool (or the prompt or resource a relayed question continues), a digest
 *     of the arguments and of the tool's definition, an expiry, and a random nonce;
 *   - `verifier(who)` (the `ServerOptions.requestState.verify` hook) opens it, refuses a
 *     state made for another authorization or past its expiry, and spends the nonce in the
 *     store: a replayed state, on any replica, is refused.
 *
 * Tool or request, arguments and definition are the caller's to compare (`matches`): the SDK's hook
 * runs before the handler and does not see the request's params.
 *
 * Wire form: `tcs1.` + base64url(iv ‖ ciphertext ‖ tag). Base64url with no `eyJ` JSON
 * head, so secret patterns for JWTs do not mistake it for one; the host face exempts it
 * from redaction anyway (`isSealed`).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealingPart } from '../store/types.js';

/** Prefix of every sealed state (format version 1). */
export const SEALED_PREFIX = 'tcs1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Additional authenticated data: binds a ciphertext to this use of the key. */
const AAD = Buffer.from('tool-curator requestState v1');
/** Largest sealed state opened, in characters: what the host echoes is bounded before it is decoded. */
export const MAX_SEALED_CHARS = 64 * 1024;

/** Who a state was made for: the authorization of the request that got it. */
export interface SealedBinding {
  /** Undefined when no personas.yaml is configured. */
  persona?: string;
  /** The user's account key (gateway/accounts.ts accountOf); undefined for a session without a user. */
  account?: string;
  /** Without a user: the fingerprint of the static token the session came with (SessionIdentity.credential). */
  credential?: string;
}

/** What a sealed state says, besides its binding. `data` is the sealer's own (JSON). */
export interface SealedContent<T = unknown> {
  /** What kind of continuation it is: `confirm` (confirmation.ts), or a relay's own kind. */
  kind: string;
  /** The tool the continued call runs (exposed name). */
  tool?: string;
  /** A continued request other than tools/call: its method and what it names (`prompts/get <name>`, `resources/read <uri>`). */
  request?: string;
  /** digestOf(arguments) of the call, as it will be forwarded. */
  argsDigest?: string;
  /** definitionDigest(tool) when the state was made: a changed definition voids it. */
  definitionDigest?: string;
  data?: T;
}

/** An opened state: its content, binding, expiry (epoch ms) and nonce. */
export interface SealedState<T = unknown> extends SealedContent<T>, SealedBinding {
  expiresAt: number;
  nonce: string;
}

/** A sealed state that does not open, is not this authorization's, is past its time or spent. The message is for logs; the host sees the SDK's fixed `-32602`. */
export class SealedStateError extends Error {
  constructor(readonly reason: 'malformed' | 'forged' | 'expired' | 'other-authorization' | 'replayed') {
    super(`requestState refused: ${reason}`);
    this.name = 'SealedStateError';
  }
}

/** Whether `state` looks like one the gateway sealed (it may still fail to open). */
export const isSealed = (state: unknown): state is string => typeof state === 'string' && state.startsWith(SEALED_PREFIX);

const sameBinding = (a: SealedBinding, b: SealedBinding): boolean =>
  (a.persona ?? null) === (b.persona ?? null) && (a.account ?? null) === (b.account ?? null) && (a.credential ?? null) === (b.credential ?? null);

/**
 * Seals and opens request states with the store's key (loaded once, on first use).
 *
 * ### Usage
 * ```ts
 * const sealer = new RequestStateSealer(store.sealing);
 * const state = await sealer.seal({ kind: 'confirm', tool: 'make_payment', argsDigest }, { persona: 'student', account: 'u:s1' }, 600_000);
 * const server = new Server(info, { requestState: { verify: sealer.verifier({ persona: 'student', account: 'u:s1' }) } });
 * ```
 */
export class RequestStateSealer {
  private key: Promise<Buffer> | undefined;

  constructor(
    private readonly store: SealingPart,
    private readonly now: () => number = Date.now,
  ) {}

  private keyOnce(): Promise<Buffer> {
    this.key ??= this.store.key().catch((err: unknown) => {
      this.key = undefined;
      throw err;
    });
    return this.key;
  }

  /** Seals `content` for `who`, valid `ttlMs` from now. */
  async seal<T>(content: SealedContent<T>, who: SealedBinding, ttlMs: number): Promise<string> {
    const state: SealedState<T> = { ...content, ...who, expiresAt: this.now() + ttlMs, nonce: randomBytes(16).toString('base64url') };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', await this.keyOnce(), iv);
    cipher.setAAD(AAD);
    const body = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * Opens a state without spending it: its content if the gateway sealed it and it is not past its expiry.
   * @throws SealedStateError (`malformed`, `forged`, `expired`).
   */
  async open<T = unknown>(token: unknown): Promise<SealedState<T>> {
    if (!isSealed(token) || token.length > MAX_SEALED_CHARS) throw new SealedStateError('malformed');
    const raw = Buffer.from(token.slice(SEALED_PREFIX.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES + 2) throw new SealedStateError('malformed');
    let state: SealedState<T>;
    try {
      const decipher = createDecipheriv('aes-256-gcm', await this.keyOnce(), raw.subarray(0, IV_BYTES));
      decipher.setAAD(AAD);
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      state = JSON.parse(text) as SealedState<T>;
    } catch {
      throw new SealedStateError('forged');
    }
    if (typeof state.expiresAt !== 'number' || state.expiresAt <= this.now()) throw new SealedStateError('expired');
    return state;
  }

  /**
   * Opens a state for `who` and spends its nonce: the content once, for that authorization only.
   * @throws SealedStateError (`malformed`, `forged`, `expired`, `other-authorization`, `replayed`).
   */
  async take<T = unknown>(token: unknown, who: SealedBinding): Promise<SealedState<T>> {
    const state = await this.open<T>(token);
    if (!sameBinding(state, who)) throw new SealedStateError('other-authorization');
    if (!(await this.store.spend(state.nonce, state.expiresAt))) throw new SealedStateError('replayed');
    return state;
  }

  /** `take` for one authorization, in the shape of `ServerOptions.requestState.verify`: `ctx.mcpReq.requestState()` then reads the opened state. */
  verifier(who: SealedBinding): (token: string) => Promise<SealedState> {
    return (token) => this.take(token, who);
  }
}

/** Whether an opened state continues this very call: same kind, tool or request, arguments and (when it names one) definition. */
export function matches(state: SealedState, expected: SealedContent): boolean {
  return (
    state.kind === expected.kind &&
    state.tool === expected.tool &&
    state.request === expected.request &&
    state.argsDigest === expected.argsDigest &&
    (state.definitionDigest === undefined || state.definitionDigest === expected.definitionDigest)
  );
}

const sealers = new WeakMap<SealingPart, RequestStateSealer>();

/** The one sealer of a store (its key is read from the store once per process, not per request). */
export function sealerFor(part: SealingPart): RequestStateSealer {
  let sealer = sealers.get(part);
  if (!sealer) sealers.set(part, (sealer = new RequestStateSealer(part)));
  return sealer;
}
