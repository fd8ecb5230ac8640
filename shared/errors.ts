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
