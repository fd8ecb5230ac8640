// The ticker's environment (README has the table).
import { commonEnv, int, loadConfig, opsEnv } from "../../shared/config.js";

export const tickerEnv = {
  ...commonEnv,
  ...opsEnv,
  INQUEST_MAX_BACKLOG: int(1000, 1, 10_000_000, "queued investigations before a trigger is refused (the run waits)"),
};

export function loadTickerConfig(env: Record<string, string | undefined>) {
  return loadConfig(tickerEnv, env);
}
