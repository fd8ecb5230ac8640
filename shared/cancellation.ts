// Many waits ended early by one abort signal, through one listener, keeping nothing of a wait once it is over.
//
// The obvious way, `Promise.race([work, aborted])` with one `aborted` promise for the whole batch, adds a reaction to
// `aborted` per race that holds the race's outcome for as long as `aborted` is pending: a runner collecting 10,000
// live plans kept every reply message (its bytes included) until the collection ended, not just the 1,000 in flight.
// A listener per wait instead trips MaxListenersExceededWarning past ten and lingers until each wait ends.

export class Cancellation {
  private readonly waiting = new Set<() => void>();
  private readonly onAbort = (): void => {
    for (const cancel of this.waiting) cancel();
    this.waiting.clear();
  };

  constructor(private readonly signal: AbortSignal) {
    if (!signal.aborted) signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** `work`'s outcome, or null once the signal aborts first (work's later outcome is then ignored). */
  race<T>(work: Promise<T>): Promise<T | null> {
    if (this.signal.aborted) {
      work.catch(() => {}); // nobody waits for it any more: its failure is not an unhandled rejection
      return Promise.resolve(null);
    }
    return new Promise<T | null>((resolve, reject) => {
      const cancel = (): void => resolve(null);
      this.waiting.add(cancel);
      work.then(
        (value) => {
          this.waiting.delete(cancel);
          resolve(value);
        },
        (err: unknown) => {
          this.waiting.delete(cancel);
          reject(err);
        },
      );
    });
  }

  /** Waits still open (tests). */
  get open(): number {
    return this.waiting.size;
  }

  /** Removes the listener (the batch is over); a wait still open is no longer cancelled. */
  release(): void {
    this.signal.removeEventListener("abort", this.onAbort);
    this.waiting.clear();
  }
}
