import { HEARTBEAT_RANGE } from "../../shared/agents/protocol.js";
import { commonEnv, duration, loadConfig, optStr } from "../../shared/config.js";

/**
 * An agent provisions nothing and keeps no local data: of the common variables it reads NATS_URL,
 * NATS_NKEY_SEED_FILE, LOG_LEVEL and INQUEST_HEAP_GROWTH.
 */
export const agentEnv = {
  NATS_URL: commonEnv.NATS_URL,
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  NATS_NKEY_SEED_FILE: commonEnv.NATS_NKEY_SEED_FILE,
  INQUEST_HEAP_GROWTH: commonEnv.INQUEST_HEAP_GROWTH,
  INQUEST_FLEET_FILE: optStr("run simulated agents from this fleet file instead of the host agent"),
  INQUEST_AGENT_ID: optStr("host agent id (default: hostname + machine id)"),
  INQUEST_AGENT_TAGS: optStr("host agent tags, k=v,k2=v2"),
  INQUEST_EDR_DEVICE_ID: optStr("the EDR's device id for this host"),
  INQUEST_HEARTBEAT_INTERVAL: duration("5s", "agent heartbeat period, 100ms to 1h; offline after three missed", HEARTBEAT_RANGE),
  INQUEST_SNAPSHOT_INTERVAL: duration("5m", "how often the host agent publishes a telemetry snapshot"),
  INQUEST_SCAN_BUDGET: duration("60s", "longest one telemetry scan of the host agent may take; past it, what was read is sent and the rest named in truncated"),
};

export function loadAgentConfig(env: Record<string, string | undefined>) {
  return loadConfig(agentEnv, env);
}
