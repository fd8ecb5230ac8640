// The gateway's environment (README has the table).
import { bool, commonEnv, duration, int, loadConfig, optStr, optUrl, required, str, type Field } from "../../shared/config.js";
import { ConfigError } from "../../shared/errors.js";

export const gatewayEnv = {
  ...commonEnv,
  INQUEST_HOST: str("127.0.0.1", "gateway listen address"),
  INQUEST_PORT: int(8080, 0, 65535, "gateway port; 0 = any free port"),
  INQUEST_PUBLIC_URL: optUrl("base used in links and inbound endpoint urls"),
  INQUEST_BOOTSTRAP_KEY: bootstrapKey(),
  INQUEST_MASTER_KEY: required(optStr("32 bytes base64; encrypts stored secrets"), "32 random bytes, base64: openssl rand -base64 32"),
  INQUEST_MAX_BACKLOG: int(1000, 1, 10_000_000, "queued investigations before the trigger answers 429"),
  INQUEST_ALLOW_PRIVATE_TARGETS: bool(false, "allow webhook URLs on loopback/private/link-local/metadata addresses"),
  INQUEST_CURIOSITY_MIN_INTERVAL: duration("1m", "smallest accepted curiosity interval"),
  INQUEST_REQUEUE_AFTER: duration("90s", "how long an investigation stays queued, while the runners are idle, before its work message is published again (services/gateway/requeue.ts)"),
  INQUEST_LMDB_MAPPED_MB: int(16, 0, 1_048_576, "MiB of the read models' LMDB file kept mapped before the gateway reopens it (unmapping every page); 0 = no bound"),
};

/** At least 32 characters of a URL-safe alphabet: the key has every scope. */
function bootstrapKey(): Field<string | undefined> {
  const base = optStr("registered at start with every scope");
  return {
    doc: base.doc,
    parse(raw, name) {
      const key = base.parse(raw, name);
      if (key !== undefined && !/^[A-Za-z0-9_-]{32,256}$/.test(key)) throw new ConfigError(`${name}: expected 32 to 256 characters of A-Z a-z 0-9 _ - (e.g. what \`inquest keys create\` prints)`);
      return key;
    },
  };
}

export type GatewayConfig = ReturnType<typeof loadGatewayConfig>;

export function loadGatewayConfig(env: Record<string, string | undefined>) {
  return loadConfig(gatewayEnv, env);
}
