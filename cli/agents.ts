// inquest agent / inquest fleet: endpoint agents in this process until Ctrl-C.
import { assertAgentId } from "../shared/agents/record.js";
import { systemClock } from "../shared/clock.js";
import { Lifecycle } from "../shared/lifecycle.js";
import { createLogger } from "../shared/log.js";
import { connectNats } from "../shared/nats/connect.js";
import { ConfigError } from "../shared/errors.js";
import { agentEnv } from "../services/agent/config.js";
import { loadFleetFile } from "../services/agent/fleet.js";
import { parseTags } from "../services/agent/host.js";
import { AgentGroup } from "../services/agent/agent-group.js";
import { fleetAgents, hostAgent, inboxPrefixFor } from "../services/agent/start.js";
import { flag, UsageError, type Args } from "./args.js";
import { natsSeedFile, resolveNatsUrl } from "./nats-url.js";

export async function agentsCommand(kind: "agent" | "fleet", args: Args, env: NodeJS.ProcessEnv): Promise<number> {
  // Held to what the registry accepts, as the agent service holds INQUEST_HEARTBEAT_INTERVAL, before connecting.
  let heartbeatMs: number;
  try {
    heartbeatMs = agentEnv.INQUEST_HEARTBEAT_INTERVAL.parse(flag(args, "heartbeat"), "--heartbeat");
  } catch (err) {
    throw err instanceof ConfigError ? new UsageError(err.message) : err;
  }
  const scanBudgetMs = agentEnv.INQUEST_SCAN_BUDGET.parse(env.INQUEST_SCAN_BUDGET, "INQUEST_SCAN_BUDGET");
  let fleet = null;
  let tags: Record<string, string> = {};
  if (kind === "fleet") {
    const file = flag(args, "file");
    if (!file) throw new UsageError("usage: inquest fleet --file fleet.json [--nats URL]");
    fleet = loadFleetFile(file);
  } else {
    const id = flag(args, "id");
    if (id !== undefined) {
      try {
        assertAgentId(id);
      } catch (err) {
        throw new UsageError(`--id: ${(err as Error).message}`);
      }
    }
    const parsed = parseTags(flag(args, "tags"));
    if (typeof parsed === "string") throw new UsageError(`--tags: ${parsed}`);
    tags = parsed;
  }
  const log = createLogger(kind, env.LOG_LEVEL ?? "info");
  // Agents provision nothing: they speak the agent protocol to the registry that the runners run.
  const inboxPrefix = inboxPrefixFor(fleet !== null, { agentId: flag(args, "id"), tags });
  const nc = await connectNats({ servers: resolveNatsUrl(args, env), name: `inquest-${kind}`, log, nkeySeedFile: natsSeedFile(args, env), inboxPrefix });
  const life = new Lifecycle({ log, nc });
  const deps = { nc, clock: systemClock, log };
  const agents = fleet
    ? fleetAgents(deps, fleet, heartbeatMs)
    : [hostAgent(deps, { agentId: flag(args, "id"), tags, edrDeviceId: flag(args, "edr-device-id"), heartbeatMs, snapshotIntervalMs: 300_000, scanBudgetMs })];
  await life.start([new AgentGroup(agents, log)]);
  process.stderr.write(`${agents.length} agent(s) running: ${agents.map((a) => a.identity.agent_id).join(", ")}; Ctrl-C stops\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await life.stop();
  return 0;
}
