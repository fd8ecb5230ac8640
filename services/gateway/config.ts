// The gateway's environment (README has the table).
import { commonEnv, int, loadConfig, optStr, str } from "../../shared/config.js";

export const gatewayEnv = {
  ...commonEnv,
  INQUEST_HOST: str("127.0.0.1", "gateway listen address"),
  INQUEST_PORT: int(8080, 0, 65535, "gateway port; 0 = any free port"),
  INQUEST_PUBLIC_URL: optStr("base used in links and inbound endpoint urls"),
  INQUEST_BOOTSTRAP_KEY: optStr("registered at start with every scope"),
  INQUEST_MAX_BACKLOG: int(1000, 1, 10_000_000, "queued investigations before the trigger answers 429"),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(env: Record<string, string | undefined>) {
  return loadConfig(gatewayEnv, env);
}
