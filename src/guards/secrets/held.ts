/**
 * The secrets the gateway holds, by source: the configuration's (config.ts) and the OAuth
 * state in the store (store.ts), each source replaced as a whole when it changes (a token
 * refreshed, the `auth` command storing new ones, a reload). The matcher over every
 * spelling of every value is rebuilt once after a burst of changes, when next needed.
 */
import { credentialValues, MIN_SECRET_CHARS, spellingsOf } from './forms.js';
import { LiteralMatcher } from './matcher.js';

/** One held value and what it is, as a marker may say without revealing it: `OAuth access token of upstream tracker`. */
export interface HeldValue {
  value: string;
  label: string;
}

export class HeldSecrets {
  private readonly sources = new Map<string, HeldValue[]>();
  private matcher: LiteralMatcher | undefined;
  private readonly updates = new Set<Promise<unknown>>();

  /** Replaces the values of `source` (an empty list removes it). */
  set(source: string, values: HeldValue[]): void {
    const before = this.sources.get(source);
    if (before && before.length === values.length && before.every((v, i) => v.value === values[i]!.value && v.label === values[i]!.label)) return;
    if (values.length === 0) this.sources.delete(source);
    else this.sources.set(source, values);
    this.matcher = undefined;
  }

  /** The values of `source`, as last set. */
  get(source: string): readonly HeldValue[] {
    return this.sources.get(source) ?? [];
  }

  /** Labels of held values too short to be searched for (MIN_SECRET_CHARS), for a warning at start. */
  tooShort(): string[] {
    return [...this.sources.values()].flat().filter((v) => v.value.length < MIN_SECRET_CHARS).map((v) => v.label);
  }

  /** The matcher over every spelling of every held value (forms.ts), built after the last change. */
  current(): LiteralMatcher {
    this.matcher ??= new LiteralMatcher(this.entries());
    return this.matcher;
  }

  private *entries(): Generator<{ spelling: string; label: string }> {
    for (const values of this.sources.values()) {
      for (const { value, label } of values) {
        for (const part of credentialValues(value)) for (const spelling of spellingsOf(part)) yield { spelling, label };
      }
    }
  }

  /**
   * Notes an update in flight (a re-read of rotated tokens): until it settles, redaction
   * waits for it (`settled`), so an answer carrying a token stored a moment ago is not sent
   * before the token is known.
   */
  track(update: Promise<unknown>): void {
    const done = update.then(
      () => undefined,
      () => undefined,
    );
    this.updates.add(done);
    void done.then(() => this.updates.delete(done));
  }

  /** Resolves when every tracked update has settled; `undefined` (nothing to wait for) on the usual path. */
  settled(): Promise<void> | undefined {
    return this.updates.size === 0 ? undefined : Promise.all(this.updates).then(() => undefined);
  }
}
