// Building the agents of one process: the host agent, or every agent of a fleet file.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Clock } from "../../shared/clock.js";
import type { Logger } from "../../shared/log.js";
import { Agent } from "./agent.js";
import { FileTelemetry, fleetIdentity, type FleetFile } from "./fleet.js";
import { hostIdentity, LinuxTelemetry } from "./host.js";
import { agentInboxPrefix, FLEET_INBOX_PREFIX } from "../../shared/nats/permissions.js";

export interface AgentsDeps {
  nc: NatsConnection;
  clock: Clock;
  log: Logger;
}

export function fleetAgents(deps: AgentsDeps, fleet: FleetFile, heartbeatMs: number): Agent[] {
  return fleet.agents.map(
    (a) =>
      new Agent({ ...deps, log: deps.log.child({ agent_id: a.agent_id }) }, fleetIdentity(a), new FileTelemetry(a, deps.clock), {
        heartbeatMs,
        snapshotIntervalMs: 0,
        online: a.online !== false,
      }),
  );
}

/**
 * Where the replies to this process's requests arrive: a prefix only its NATS user may read (a fleet's, or the host
 * agent's own, by the id `hostAgent` will use), docs/operations.md#nats-credentials.
 */
export function inboxPrefixFor(fleet: boolean, host: { agentId?: string | undefined; tags: Record<string, string> }): string {
  return fleet ? FLEET_INBOX_PREFIX : agentInboxPrefix(hostIdentity(host).agent_id);
}

export function hostAgent(
  deps: AgentsDeps,
  opts: {
    agentId?: string | undefined;
    tags: Record<string, string>;
    edrDeviceId?: string | undefined;
    heartbeatMs: number;
    snapshotIntervalMs: number;
    scanBudgetMs: number;
  },
): Agent {
  const identity = hostIdentity(opts);
  return new Agent({ ...deps, log: deps.log.child({ agent_id: identity.agent_id }) }, identity, new LinuxTelemetry(deps.clock), {
    heartbeatMs: opts.heartbeatMs,
    snapshotIntervalMs: opts.snapshotIntervalMs,
    scanBudgetMs: opts.scanBudgetMs,
    online: true,
  });
}
