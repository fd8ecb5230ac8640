// The common start of every service's main.ts: clear start-up errors, signals, a shutdown deadline.
import { boundHeapGrowth } from "./heap.js";
import { ConfigError, NatsUnavailableError, ProvisioningError } from "./errors.js";
import type { NatsConnection } from "@nats-io/transport-node";
import { Lifecycle } from "./lifecycle.js";
import { createLogger, type Logger } from "./log.js";
import { connectNats } from "./nats/connect.js";
import type { RequestTimeouts } from "./nats/provision.js";
import { openRuntime, type Runtime } from "./runtime.js";

/** The stdout line a service prints when it is ready: `INQUEST_READY=<service name>`. */
export const READY_LINE = "INQUEST_READY=";

export async function runService(name: string, level: string | undefined, start: (log: Logger, life: (l: Lifecycle) => void) => Promise<void>): Promise<void> {
  const log = createLogger(name, level && /^(trace|debug|info|warn|error|fatal|silent)$/.test(level) ? level : "info");
  let lifecycle: Lifecycle | null = null;
  try {
    await start(log, (l) => {
      lifecycle = l;
      l.exitOnSignals();
    });
    // One plain line once every component has started (for an agent: once the registry holds it), which
    // `inquest up` and the test helpers wait for before they call the system running.
    process.stdout.write(`${READY_LINE}${name}\n`);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof NatsUnavailableError || err instanceof ProvisioningError) {
      log.fatal({ code: err.code }, err.message);
      process.stderr.write(`${name}: ${err.message}\n`);
    } else {
      log.fatal({ err }, "failed to start");
    }
    await (lifecycle as Lifecycle | null)?.stop();
    process.exit(2);
  }
}

/**
 * Bounds the heap's growth (shared/heap.ts), connects to NATS, registers the shutdown coordinator (which drains NATS
 * last) and provisions the runtime.
 */
export async function connectService(
  name: string,
  config: { NATS_URL: string; INQUEST_NATS_REPLICAS: number; INQUEST_HEAP_GROWTH: number; NATS_NKEY_SEED_FILE?: string | undefined },
  log: Logger,
  register: (l: Lifecycle) => void,
  opts: RequestTimeouts = {},
): Promise<{ nc: NatsConnection; life: Lifecycle; rt: Runtime }> {
  boundHeapGrowth(config.INQUEST_HEAP_GROWTH);
  const nc = await connectNats({ servers: config.NATS_URL, name: `inquest-${name}`, log, nkeySeedFile: config.NATS_NKEY_SEED_FILE });
  const life = new Lifecycle({ log, nc });
  register(life);
  const rt = await openRuntime(nc, { replicas: config.INQUEST_NATS_REPLICAS, ...opts });
  return { nc, life, rt };
}
