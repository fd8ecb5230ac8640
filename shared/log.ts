import { pino, type Logger } from "pino";

export type { Logger };

/**
 * One logger per process; secrets are redacted by path as a second line of defence.
 *
 * Written synchronously to stdout. pino's default destination writes in the background, and a process that exits
 * (`process.exit` after "stopped", after a fatal start-up error) flushes what is queued while the background write
 * is still under way: that older chunk then lands after the last lines, or is lost with a kill -9. A service logs a
 * few lines per run or per fault, none per request, so a write per line costs nothing measurable and the log stays
 * in order and complete up to the last line written before a crash.
 */
export function createLogger(service: string, level: string): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service, pid: process.pid },
      redact: {
        paths: ["secret", "*.secret", "key", "*.key", "authorization", "*.authorization", "provider_signing_secret", "*.provider_signing_secret"],
        censor: "[redacted]",
      },
    },
    pino.destination({ dest: 1, sync: true }),
  );
}
