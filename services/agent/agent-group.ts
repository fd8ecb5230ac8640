// The agents of one process (a fleet file holds thousands) as one component. They start side by side, a bounded
// number at a time, so one agent still waiting for the registry never holds up the others, and the process
// says how far it got while a large fleet registers. They stop side by side too: each says bye, and a bye
// waits at most a second, so a large fleet stops within the shutdown deadline.
import { forEachLimited } from "../../shared/concurrency.js";
import type { Component } from "../../shared/lifecycle.js";
import type { Logger } from "../../shared/log.js";
import type { Agent } from "./agent.js";

/** What the group needs of an agent. */
export type GroupMember = Pick<Agent, "start" | "stop" | "identity">;

/** Agents starting at once: enough to register 10,000 in seconds, few enough not to flood the registry. */
export const START_CONCURRENCY = 64;
const STOP_CONCURRENCY = 512;
const PROGRESS_EVERY_MS = 5_000;

export class AgentGroup implements Component {
  readonly name: string;
  private started: GroupMember[] = [];

  constructor(
    readonly agents: readonly GroupMember[],
    private readonly log: Logger,
    private readonly concurrency = START_CONCURRENCY,
  ) {
    this.name = `agents(${agents.length})`;
  }

  /** Resolves once every agent has started; the first refusal (an invalid identity) fails the group. */
  async start(): Promise<void> {
    const progress = setInterval(() => this.log.info({ started: this.started.length, total: this.agents.length }, "agents starting"), PROGRESS_EVERY_MS);
    try {
      await forEachLimited(this.agents, this.concurrency, async (agent) => {
        await agent.start();
        this.started.push(agent);
      });
    } finally {
      clearInterval(progress);
    }
  }

  async stop(): Promise<void> {
    const started = this.started;
    this.started = [];
    await forEachLimited(started, STOP_CONCURRENCY, async (agent) => {
      try {
        await agent.stop();
      } catch (err) {
        this.log.warn({ err, agent_id: agent.identity.agent_id }, "agent did not stop cleanly");
      }
    });
  }
}
