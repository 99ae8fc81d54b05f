/**
 * Step-up authorization, unattended: a tool answers 403 `insufficient_scope` naming a
 * scope the stored tokens lack. Only a person can grant more, so `serve` neither
 * refreshes (a refresh keeps the old scope, and a second refresh racing it can lose the
 * tokens) nor forgets anything: the tokens stay, the upstream's other tools keep working,
 * the scope asked for is remembered with the granted ones, and the call fails with
 * "needs authorization (more scope: …)". The next `tool-curator auth <upstream>` asks for
 * the union of the old and new scopes.
 */
import type { AuthChallenge } from './errors.js';
import { NeedsAuthorizationError } from './errors.js';
import type { StoreOAuthProvider } from './provider.js';

/** A space-separated OAuth scope as a set of its tokens. */
function scopes(scope: string | undefined): Set<string> {
  return new Set((scope ?? '').split(' ').filter(Boolean));
}

/** Every scope of `sets`, each once, in first-seen order, space-separated. */
function union(...sets: Set<string>[]): string {
  return [...new Set(sets.flatMap((s) => [...s]))].join(' ');
}

/**
 * What the challenge watcher (challenge.ts) does with a refusal of `upstream`: a 403
 * `insufficient_scope` beyond the granted scope becomes a NeedsAuthorizationError
 * (reason `step_up`, the missing scopes) that ends the request before the SDK tries to
 * re-authorize; anything else is left to the SDK (undefined).
 */
export function stepUpRefusal(upstream: string, provider: StoreOAuthProvider): (challenge: AuthChallenge) => Promise<NeedsAuthorizationError | undefined> {
  return async (challenge) => {
    if (challenge.status !== 403 || challenge.error !== 'insufficient_scope' || !challenge.scope) return undefined;
    const granted = scopes((await provider.tokens())?.scope);
    const asked = scopes(challenge.scope);
    const missing = [...asked].filter((s) => !granted.has(s));
    // Granted already: the server refuses for another reason, which the SDK's retry reports.
    if (missing.length === 0) return undefined;
    await provider.requestScope(union(granted, scopes(await provider.pendingScope()), asked));
    return new NeedsAuthorizationError(upstream, 'step_up', missing.join(' '));
  };
}

/** Scopes asked for by a step-up and not granted yet (space-separated), or undefined; as the provider last read or wrote them. */
export function moreScope(provider: StoreOAuthProvider): string | undefined {
  const known = provider.knownScopes();
  const granted = scopes(known.granted);
  const missing = [...scopes(known.pending)].filter((s) => !granted.has(s));
  return missing.length > 0 ? missing.join(' ') : undefined;
}

/** moreScope as the store has it now. */
export async function storedMoreScope(provider: StoreOAuthProvider): Promise<string | undefined> {
  await Promise.all([provider.tokens(), provider.pendingScope()]);
  return moreScope(provider);
}
