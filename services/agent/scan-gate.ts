// One scan of the host at a time. A scan reads /proc, /etc and the package database; two at once double the
// load on the host being investigated and can outlast each other. A periodic snapshot that comes due while a
// scan runs is skipped (the next tick takes it); a plan waits for the running scan, then runs.
export class ScanGate {
  private running: Promise<unknown> | null = null;

  get busy(): boolean {
    return this.running !== null;
  }

  /** Runs `scan` unless one is running; null when skipped. */
  async tryRun<T>(scan: () => Promise<T>): Promise<T | null> {
    if (this.running !== null) return null;
    return this.claim(scan);
  }

  /** Runs `scan` once no other scan runs (waiters take turns). */
  async run<T>(scan: () => Promise<T>): Promise<T> {
    while (this.running !== null) await this.running.catch(() => undefined);
    return this.claim(scan);
  }

  private async claim<T>(scan: () => Promise<T>): Promise<T> {
    const work = scan();
    this.running = work;
    try {
      return await work;
    } finally {
      this.running = null;
    }
  }
}
