// Agent wiring: the host agent, or the simulated agents of INQUEST_FLEET_FILE.
import { systemClock } from "../../shared/clock.js";
import { assertAgentId } from "../../shared/agents/record.js";
import { ConfigError } from "../../shared/errors.js";
import { connectService, runService } from "../../shared/service.js";
import { loadAgentConfig } from "./config.js";
import { loadFleetFile } from "./fleet.js";
import { parseTags } from "./host.js";
import { fleetAgents, hostAgent } from "./start.js";

await runService("agent", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadAgentConfig(process.env);
  if (config.INQUEST_AGENT_ID !== undefined) {
    try {
      assertAgentId(config.INQUEST_AGENT_ID);
    } catch (err) {
      throw new ConfigError(`INQUEST_AGENT_ID: ${(err as Error).message}`);
    }
  }
  const tags = parseTags(config.INQUEST_AGENT_TAGS);
  if (typeof tags === "string") throw new ConfigError(`INQUEST_AGENT_TAGS: ${tags}`);
  let fleet = null;
  if (config.INQUEST_FLEET_FILE) {
    try {
      fleet = loadFleetFile(config.INQUEST_FLEET_FILE);
    } catch (err) {
      throw new ConfigError(`INQUEST_FLEET_FILE: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const { nc, life, rt } = await connectService("agent", config, log, register);
  const deps = { nc, js: rt.js, registry: rt.agents, clock: systemClock, log };
  const agents = fleet
    ? fleetAgents(deps, fleet, config.INQUEST_HEARTBEAT_INTERVAL)
    : [hostAgent(deps, { agentId: config.INQUEST_AGENT_ID, tags, edrDeviceId: config.INQUEST_EDR_DEVICE_ID, heartbeatMs: config.INQUEST_HEARTBEAT_INTERVAL, snapshotIntervalMs: config.INQUEST_SNAPSHOT_INTERVAL })];
  await life.start(agents);
  log.info({ agents: agents.map((a) => a.identity.agent_id) }, "agents running");
});
