// The work a worker thread of the engine pool has been sent, in the order it runs it (a worker takes its messages
// one at a time): each batch of hosts and each finish is a unit, answered when the worker is done with it. Only
// the unit at the head is running, so only it is timed, from when the one before it ended (or the worker said it
// was ready: loading the engine is no evaluation's work): the time limit then falls on the evaluation whose work
// holds the worker, never on one whose work merely waits behind it.

/** One unit of an evaluation's work: a batch of its hosts, or its finish. */
export interface WorkUnit {
  session: number;
  kind: "hosts" | "finish";
}

export class WorkQueue {
  private readonly units: WorkUnit[] = [];
  private timer: NodeJS.Timeout | null = null;
  private ready = false;

  /** `overrun` is told of the unit that ran past `limitMs` (none when absent); the queue stops timing then. */
  constructor(
    private readonly limitMs: number | undefined,
    private readonly overrun: (unit: WorkUnit, limitMs: number) => void,
  ) {}

  /** The worker is ready for work: its first unit's time starts. */
  start(): void {
    this.ready = true;
    if (!this.timer) this.time();
  }

  /** A unit sent to the worker: timed from now when the worker has nothing else to do first. */
  sent(unit: WorkUnit): void {
    this.units.push(unit);
    if (this.units.length === 1) this.time();
  }

  /** The worker is done with its oldest unit: the next one's time starts. */
  done(): void {
    this.units.shift();
    this.clearTimer();
    if (this.units.length > 0) this.time();
  }

  /** The worker is going away: nothing more is timed. */
  stop(): void {
    this.units.length = 0;
    this.clearTimer();
  }

  private time(): void {
    const limitMs = this.limitMs;
    const head = this.units[0];
    if (limitMs === undefined || !head || !this.ready) return;
    this.timer = setTimeout(() => {
      this.stop();
      this.overrun(head, limitMs);
    }, limitMs);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
