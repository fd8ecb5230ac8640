// The gateway's environment (README has the table).
import { bool, commonEnv, duration, int, loadConfig, optStr, required, str } from "../../shared/config.js";

export const gatewayEnv = {
  ...commonEnv,
  INQUEST_HOST: str("127.0.0.1", "gateway listen address"),
  INQUEST_PORT: int(8080, 0, 65535, "gateway port; 0 = any free port"),
  INQUEST_PUBLIC_URL: optStr("base used in links and inbound endpoint urls"),
  INQUEST_BOOTSTRAP_KEY: optStr("registered at start with every scope"),
  INQUEST_MASTER_KEY: required(optStr("32 bytes base64; encrypts stored secrets"), "32 random bytes, base64: openssl rand -base64 32"),
  INQUEST_MAX_BACKLOG: int(1000, 1, 10_000_000, "queued investigations before the trigger answers 429"),
  INQUEST_ALLOW_PRIVATE_TARGETS: bool(false, "allow webhook URLs on loopback/private/link-local/metadata addresses"),
  INQUEST_CURIOSITY_MIN_INTERVAL: duration("1m", "smallest accepted curiosity interval"),
};

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(env: Record<string, string | undefined>) {
  return loadConfig(gatewayEnv, env);
}
