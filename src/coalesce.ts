/**
 * Coalescing of repeated work: any number of requests that arrive within `delayMs` of the
 * first cause one run, and runs never overlap — a request during a run causes one more
 * run after it. What a burst of notifications (an upstream's 2,000 list_changed, several
 * upstreams arriving together) costs is then one re-list, one catalog rebuild.
 *
 * ### Usage
 * ```ts
 * const relist = new Coalescer(() => refreshTools(), 100);
 * client.setNotificationHandler(ToolListChangedNotificationSchema, () => relist.request());
 * await relist.settled(); // nothing scheduled or running any more
 * ```
 */
export class Coalescer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private requested = false;
  private stopped = false;
  private waiters: (() => void)[] = [];
  /** Runs so far (for logs and tests). */
  runs = 0;

  /**
   * @param task the work; its errors are passed to `onError` (default: ignored), never thrown.
   * @param delayMs how long after the first request of a burst the run starts.
   */
  constructor(
    private readonly task: () => Promise<void>,
    private readonly delayMs: number,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Asks for a run; returns at once. */
  request(): void {
    if (this.stopped || this.requested) return;
    this.requested = true;
    if (!this.running) this.schedule();
  }

  /** Resolves once no run is scheduled or in progress (at once when idle). */
  settled(): Promise<void> {
    if (!this.requested && !this.running) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** No more runs: a scheduled one is dropped, a running one finishes. */
  stop(): void {
    this.stopped = true;
    this.requested = false;
    clearTimeout(this.timer);
    if (!this.running) this.release();
  }

  private schedule(): void {
    // Not unref'd: a scheduled run is work the process must still do (stop() clears it).
    this.timer = setTimeout(() => void this.run(), this.delayMs);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.requested = false;
    this.runs++;
    this.running = this.task().catch(this.onError);
    await this.running;
    this.running = undefined;
    if (this.requested) this.schedule();
    else this.release();
  }

  private release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
