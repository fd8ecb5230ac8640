// The dispatcher's environment (README has the table).
import { bool, commonEnv, duration, durationList, int, loadConfig, opsEnv, optStr, required } from "../../shared/config.js";

export const dispatcherEnv = {
  ...commonEnv,
  ...opsEnv,
  INQUEST_MASTER_KEY: required(optStr("32 bytes base64; opens the stored subscription secrets"), "the same key the gateway uses"),
  INQUEST_RETRY_DELAYS: durationList("30s,2m,10m,1h", 4, "the delays before delivery attempts 2..5"),
  INQUEST_DELIVERY_TIMEOUT: duration("10s", "outbound request timeout"),
  INQUEST_ALLOW_PRIVATE_TARGETS: bool(false, "allow webhook URLs on loopback/private/link-local/metadata addresses"),
  INQUEST_DISPATCHER_CONCURRENCY: int(256, 1, 10_000, "deliveries one dispatcher holds at once (sending or waiting for their subscription)"),
  INQUEST_SUBSCRIPTION_CONCURRENCY: int(16, 1, 1_000, "requests in flight to one subscription's endpoint from one dispatcher"),
  INQUEST_DISABLE_FAILING_AFTER: duration("5d", "a subscription whose attempts have all failed for this long is turned off (subscription.disabled)"),
};

export type DispatcherConfig = ReturnType<typeof loadDispatcherConfig>;

export function loadDispatcherConfig(env: Record<string, string | undefined>) {
  return loadConfig(dispatcherEnv, env);
}
