// Who may do what on NATS (docs/operations.md#nats-credentials): every service and every agent connects as its own
// nkey user. Services may use any subject. An agent is behind a trust boundary: it may only speak its own side of
// the agent protocol (shared/agents/protocol.ts), so a stolen agent credential cannot write the agents bucket,
// read another agent's plans, pretend to be another agent or publish events.
//
// Request/reply needs an inbox the client subscribes to. A wildcard like `_INBOX.>` would let an agent read every
// reply in the account, so each agent uses an inbox prefix of its own (`agentInboxPrefix`) and may subscribe only
// under it. Answering a plan needs no publish permission on the requester's inbox: `allow_responses` lets a client
// publish one reply to the reply subject of a request it received, and nothing else there.
import { AGENT_SUBJECTS } from "../agents/protocol.js";

export interface Permissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  allow_responses?: { max: number; expires: string };
}

/** The inbox prefix of one host agent: its replies (acks, JetStream publish acks) come only there. */
export function agentInboxPrefix(agentId: string): string {
  return `_INBOX_agents.${agentId}`;
}

/** The inbox prefix of a simulated fleet (many agents on one connection). */
export const FLEET_INBOX_PREFIX = "_INBOX_fleet";

/**
 * Whether `subject` is where agent `agentId` reads its replies: under its own inbox prefix, or the simulated fleet's
 * (one connection speaking for many ids). A service answers an agent's request only there: the reply subject is
 * the agent's to choose, and an answer published by a service (which may publish anywhere) to, say,
 * `$KV.inq_agents.<another agent>` or `ctl.investigations.<id>.cancel` would be a write made for the agent.
 */
export function isAgentInbox(agentId: string, subject: string): boolean {
  const under = [`${agentInboxPrefix(agentId)}.`, `${FLEET_INBOX_PREFIX}.`].find((p) => subject.startsWith(p));
  // A literal subject only: no wildcard token, no empty token, nothing the server would read as another subject.
  return under !== undefined && subject.slice(under.length).split(".").every((t) => /^[^\s*>]+$/.test(t));
}

/** One reply per plan request, within a minute (a plan's deadline is shorter). */
const ONE_RESPONSE = { max: 1, expires: "1m" };

/** The agent protocol's side of `agentId` (an id, or `*` for any): its verbs and snapshot out, plans and `inbox` in. */
function speaksFor(agentId: string, inbox: string): Permissions {
  return {
    publish: { allow: [AGENT_SUBJECTS.hello(agentId), AGENT_SUBJECTS.heartbeat(agentId), AGENT_SUBJECTS.bye(agentId), AGENT_SUBJECTS.snapshot(agentId)] },
    subscribe: { allow: [AGENT_SUBJECTS.plan(agentId), `${inbox}.>`] },
    allow_responses: ONE_RESPONSE,
  };
}

/** An agent's own subjects: hello, heartbeat, bye and its snapshot out; its plans and its inbox in. */
export function agentPermissions(agentId: string): Permissions {
  return speaksFor(agentId, agentInboxPrefix(agentId));
}

/**
 * The simulated fleet speaks for every agent id (`*` in the agent's token): a development convenience, still unable
 * to write buckets, publish events or read the services' replies. Real hosts each get `agentPermissions`.
 */
export function fleetPermissions(): Permissions {
  return speaksFor("*", FLEET_INBOX_PREFIX);
}

export interface NkeyUser {
  /** The public key (`U...`); the seed stays with the client. */
  nkey: string;
  /** Absent: every subject (a service). */
  permissions?: Permissions;
}

/** The `authorization` block of a nats-server config (JSON is valid NATS config syntax). */
export function authorizationConf(users: NkeyUser[]): string {
  return `authorization ${JSON.stringify({ users }, null, 2)}\n`;
}
