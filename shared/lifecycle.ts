// Long-running components have start()/stop(). One coordinator starts them in order and stops them in
// reverse order on SIGINT/SIGTERM/SIGHUP, each with a deadline, draining NATS last.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "./log.js";

export interface Component {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** How long a shutdown takes at most (unless a service sets its own): what is still running then is cut off. */
export const DEFAULT_SHUTDOWN_DEADLINE_MS = 10_000;

export interface ShutdownOptions {
  log: Logger;
  nc?: NatsConnection;
  deadlineMs?: number;
}

export class Lifecycle {
  private started: Component[] = [];
  private stopping: Promise<void> | null = null;

  constructor(private readonly opts: ShutdownOptions) {}

  async start(components: Component[]): Promise<void> {
    for (const c of components) {
      await c.start();
      this.started.push(c);
      this.opts.log.debug({ component: c.name }, "started");
    }
  }

  /** True from the moment a shutdown begins: readiness turns false at once, before anything stops. */
  get draining(): boolean {
    return this.stopping !== null;
  }

  /** Stops every started component (reverse order), then drains NATS; never takes longer than the deadline. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    const deadline = this.opts.deadlineMs ?? DEFAULT_SHUTDOWN_DEADLINE_MS;
    const work = (async () => {
      for (const c of [...this.started].reverse()) {
        try {
          await c.stop();
        } catch (err) {
          this.opts.log.error({ err, component: c.name }, "component failed to stop cleanly");
        }
      }
      if (this.opts.nc && !this.opts.nc.isClosed()) await this.opts.nc.drain().catch(() => this.opts.nc?.close());
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.opts.log.warn({ deadline }, "shutdown deadline passed; exiting anyway");
        resolve();
      }, deadline);
    });
    await Promise.race([work, timeout]);
    clearTimeout(timer);
  }

  /**
   * Stops on SIGINT, SIGTERM or SIGHUP and exits. SIGHUP is a terminal closing under a service run in it (an ssh
   * session dropped): Node's default would end the process on the spot, an agent without its bye.
   */
  exitOnSignals(): void {
    let stopping = false;
    const onSignal = (signal: string): void => {
      // Ctrl-C reaches a service run by `inquest up` twice (SIGINT from the terminal, SIGTERM from up): one stop.
      if (stopping) return;
      stopping = true;
      const began = Date.now();
      this.opts.log.info({ signal }, "shutting down");
      void this.stop().then(() => {
        this.opts.log.info({ ms: Date.now() - began }, "stopped");
        process.exit(0);
      });
    };
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => onSignal(signal));
  }
}
