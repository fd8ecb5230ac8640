// The few named error classes of the system, each with a stable code. Expected outcomes are values
// (see shared/result.ts); these are for the unexpected and for start-up failures.

export class ConfigError extends Error {
  readonly code = "config_invalid";
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export class NatsUnavailableError extends Error {
  readonly code = "nats_unavailable";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NatsUnavailableError";
  }
}

export class ProvisioningError extends Error {
  readonly code = "provisioning_failed";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProvisioningError";
  }
}

/** A compare-and-set lost too many times in a row: contention that should not happen in practice. */
export class ConflictError extends Error {
  readonly code = "write_conflict";
  constructor(message: string) {
    super(message);
    this.name = "ConflictError";
  }
}

/**
 * The message bus failed under a write, with what is known of its effect: `nothing` when no state anyone can
 * see was written (a retry is safe), `unknown` when the server may have stored it (a retry with the same
 * idempotency key finds out; one without may do the work twice). The gateway answers both with 503 and says
 * which.
 */
export class BusUnavailableError extends Error {
  readonly code = "bus_unavailable";
  readonly changed: "nothing" | "unknown";
  constructor(message: string, options: { cause: unknown; changed: "nothing" | "unknown" }) {
    super(message, { cause: options.cause });
    this.name = "BusUnavailableError";
    this.changed = options.changed;
  }
}

/**
 * The service's local LMDB store cannot be read right now: it is in the instant of a reopen (shared/local-store.ts),
 * or it could not be opened again. The gateway answers 503 with Retry-After.
 */
export class LocalStoreUnavailableError extends Error {
  readonly code = "local_store_unavailable";
  constructor(message: string) {
    super(message);
    this.name = "LocalStoreUnavailableError";
  }
}
