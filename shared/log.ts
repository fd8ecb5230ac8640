import { pino, type Logger } from "pino";

export type { Logger };

/** One logger per process; secrets are redacted by path as a second line of defence. */
export function createLogger(service: string, level: string): Logger {
  return pino({
    name: service,
    level,
    base: { service, pid: process.pid },
    redact: {
      paths: ["secret", "*.secret", "key", "*.key", "authorization", "*.authorization", "provider_signing_secret", "*.provider_signing_secret"],
      censor: "[redacted]",
    },
  });
}
