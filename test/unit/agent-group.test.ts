// AgentGroup: the agents of one process start side by side, so one still waiting for the registry holds up none
// of the others; they all stop, and one failing to stop does not keep the rest running.
import { test } from "tap";
import { AgentGroup, type GroupMember } from "../../services/agent/agent-group.js";
import { createLogger } from "../../shared/log.js";

const log = createLogger("test", "silent");

function member(id: string, start: () => Promise<void> = async () => {}, stop: () => Promise<void> = async () => {}): GroupMember {
  return { identity: { agent_id: id, hostname: `${id}.lab`, tags: {}, edr_device_id: null }, start, stop };
}

test("an agent still waiting for the registry does not hold up the others; start resolves once all started", async (t) => {
  let release!: () => void;
  const waiting = new Promise<void>((r) => (release = r));
  const started: string[] = [];
  const agents = [member("stuck", async () => { await waiting; started.push("stuck"); }), ...["a", "b", "c", "d"].map((id) => member(id, async () => void started.push(id)))];
  const group = new AgentGroup(agents, log, 2);
  let resolved = false;
  const starting = group.start().then(() => (resolved = true));
  // The other four get started through the one free slot while the first agent waits.
  for (let i = 0; i < 20 && started.length < 4; i++) await new Promise((r) => setImmediate(r));
  t.same(started, ["a", "b", "c", "d"], "the others started while one waited");
  t.notOk(resolved, "start waits for the waiting agent");
  release();
  await starting;
  t.same(started, ["a", "b", "c", "d", "stuck"]);
});

test("a refused agent fails the group's start", async (t) => {
  const group = new AgentGroup([member("ok"), member("bad", async () => Promise.reject(new Error("the agent registry refused hello")))], log);
  await t.rejects(group.start(), /refused hello/);
});

test("stop stops every started agent, even when one of them throws", async (t) => {
  const stopped: string[] = [];
  const agents = ["a", "b", "c"].map((id) =>
    member(id, async () => {}, async () => {
      if (id === "b") throw new Error("connection closed");
      stopped.push(id);
    }),
  );
  const group = new AgentGroup(agents, log);
  await group.start();
  await group.stop();
  t.same(stopped.sort(), ["a", "c"]);
  await group.stop();
  t.same(stopped.sort(), ["a", "c"], "a second stop stops nothing again");
});
