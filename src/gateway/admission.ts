/**
 * Bounded admission for find_tools: at most `lanes` searches run at once, the others wait
 * in a queue of at most `maxQueued`, and past that a search is refused at once with
 * BusyError ("busy, retry"). A lane is given back one turn of the event loop after its
 * search ends (setImmediate), so the caller's own work on the result (the session's
 * answer, its audit row) still counts against the lane and the requests that arrived
 * meanwhile — tools/list, tools/call, initialize, discovery — are served before the
 * next search starts. Cheap requests then wait behind at most `lanes` searches, not
 * behind a burst of them.
 *
 * ### Usage
 * ```ts
 * const finds = new Admission(2, 256);
 * const selection = await finds.run(() => curator.select(query, allowed)); // may throw BusyError
 * ```
 */

/** A search refused because `maxQueued` searches are already waiting; nothing ran. */
export class BusyError extends Error {
  constructor(queued: number) {
    super(`the gateway is busy: ${queued} find_tools requests are already waiting; retry in a second`);
    this.name = 'BusyError';
  }
}

export class Admission {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  /**
   * @param lanes searches at once (≥ 1).
   * @param maxQueued searches that may wait for a lane; one more is refused with BusyError.
   */
  constructor(
    readonly lanes: number,
    readonly maxQueued: number,
  ) {}

  /** Searches running and waiting now (for the metrics and tests). */
  get load(): { active: number; queued: number } {
    return { active: this.active, queued: this.waiting.length };
  }

  /** Runs `work` in a lane, after the searches queued before it. @throws BusyError when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.lanes) {
      if (this.waiting.length >= this.maxQueued) throw new BusyError(this.waiting.length);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await work();
    } finally {
      setImmediate(() => this.release());
    }
  }

  /** The lane goes to the next search waiting (still counted active), or back to the pool. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}
