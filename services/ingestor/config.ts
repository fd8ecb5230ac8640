// The ingestor's environment (README has the table).
import { commonEnv, int, loadConfig, optStr, optUrl, required, withDefault } from "../../shared/config.js";

export const ingestorEnv = {
  ...commonEnv,
  INQUEST_PUBLIC_URL: withDefault(optUrl("base used in links inside investigation events"), "http://127.0.0.1:8080"),
  INQUEST_MASTER_KEY: required(optStr("32 bytes base64; opens stored provider signing secrets"), "32 random bytes, base64: openssl rand -base64 32"),
  INQUEST_MAX_BACKLOG: int(1000, 1, 10_000_000, "queued investigations before an inbound trigger answers 202 with error"),
};

export type IngestorConfig = ReturnType<typeof loadIngestorConfig>;

export function loadIngestorConfig(env: Record<string, string | undefined>) {
  return loadConfig(ingestorEnv, env);
}
