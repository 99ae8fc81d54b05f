/**
 * In-process mutual exclusion by name: callers of one name run one at a time, in the
 * order they came. The first step of `Store.lock` on both backends, so a process holds
 * at most one database lock per name and its other callers queue here, not there.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(name) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    this.tails.set(name, tail);
    await before;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(name) === tail) this.tails.delete(name);
    }
  }
}
