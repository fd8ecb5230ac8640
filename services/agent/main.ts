// Agent wiring: the host agent, or the simulated agents of INQUEST_FLEET_FILE.
import { systemClock } from "../../shared/clock.js";
import { assertAgentId } from "../../shared/agents/record.js";
import { ConfigError } from "../../shared/errors.js";
import { Lifecycle } from "../../shared/lifecycle.js";
import { boundHeapGrowth } from "../../shared/heap.js";
import { connectNats } from "../../shared/nats/connect.js";
import { runService } from "../../shared/service.js";
import { loadAgentConfig } from "./config.js";
import { loadFleetFile } from "./fleet.js";
import { parseTags } from "./host.js";
import { AgentGroup } from "./agent-group.js";
import { fleetAgents, hostAgent, inboxPrefixFor } from "./start.js";

await runService("agent", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadAgentConfig(process.env);
  boundHeapGrowth(config.INQUEST_HEAP_GROWTH);
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
  // An agent provisions nothing and opens no bucket: it only speaks the agent protocol (shared/agents/protocol.ts).
  // Replies come to an inbox only this agent (or this fleet) may read (docs/operations.md#nats-credentials).
  const inboxPrefix = inboxPrefixFor(fleet !== null, { agentId: config.INQUEST_AGENT_ID, tags });
  const nc = await connectNats({ servers: config.NATS_URL, name: "inquest-agent", log, nkeySeedFile: config.NATS_NKEY_SEED_FILE, inboxPrefix });
  const life = new Lifecycle({ log, nc });
  register(life);
  const deps = { nc, clock: systemClock, log };
  const agents = fleet
    ? fleetAgents(deps, fleet, config.INQUEST_HEARTBEAT_INTERVAL)
    : [hostAgent(deps, { agentId: config.INQUEST_AGENT_ID, tags, edrDeviceId: config.INQUEST_EDR_DEVICE_ID, heartbeatMs: config.INQUEST_HEARTBEAT_INTERVAL, snapshotIntervalMs: config.INQUEST_SNAPSHOT_INTERVAL, scanBudgetMs: config.INQUEST_SCAN_BUDGET })];
  await life.start([new AgentGroup(agents, log)]);
  log.info({ agents: agents.map((a) => a.identity.agent_id) }, "agents running");
});
