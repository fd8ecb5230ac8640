// A runner stopped with SIGTERM while a run is in hand (a rolling restart during a deep run): it stops pulling,
// gives the run a grace period, then hands it back (lease released, counted as handed back, not as a crash) so
// another runner takes it over at once, and exits 0 within the shutdown deadline.
import { test } from "tap";
import type { NatsConnection } from "@nats-io/transport-node";
import { connectTo } from "../helpers/nats.js";
import { eventually, startStack, type Stack } from "../helpers/stack.js";
import type { AgentRecord } from "../../shared/agents/record.js";
import { newId } from "../../shared/ids.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import { ensureQueued } from "../../shared/investigations/trigger.js";
import { SUBJECTS } from "../../shared/nats/catalog.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";

let stack: Stack;
let nc: NatsConnection;
let rt: Runtime;

test("setup", async () => {
  // Plans wait up to a minute: the run outlasts the runner's shutdown deadline (10 s) unless it is handed back.
  // The runner starts in the test, once the agent is in the bucket: its directory holds the agent when it is ready.
  stack = await startStack({ services: [], env: { INQUEST_PLAN_TIMEOUT: "60s" } });
  nc = await connectTo(stack.nats.url);
  rt = await openRuntime(nc, { replicas: 1 });
});

test("SIGTERM with a run in hand: the run is handed back within the deadline and another runner completes it", async (t) => {
  const now = new Date().toISOString();
  const slow: AgentRecord = { agent_id: "slow-1", hostname: "slow-1.lab", tags: {}, edr_device_id: null, status: "online", registered_at: now, last_seen_at: now, snapshot_collected_at: null, heartbeat_interval_ms: 600_000 };
  await rt.agents.put("slow-1", slow);
  // The agent never answers the first runner's plan; it answers the next one at once.
  let plans = 0;
  nc.subscribe(SUBJECTS.plan("slow-1"), {
    callback: (_e, m) => {
      plans += 1;
      if (plans === 1) return;
      const tables = { processes: [{ pid: 4242, name: "kworker", path: "/tmp/.x/kworker", cmdline: "/tmp/.x/kworker -l 4444", uid: 33, parent: 1, on_disk: 1 }] };
      m.respond(JSON.stringify({ agent_id: "slow-1", collected_at: new Date().toISOString(), tables }));
    },
  });
  // The first runner knows the agent before the run is queued: its directory loads the bucket before it is ready.
  const first = stack.start("runner");
  await first.ready();

  const at = Date.now();
  const id = newId("inv", at);
  const record: InvestigationRecord = {
    investigation_id: id, status: "queued", query: "is anything executing from /tmp?", depth: "standard", mode: "live",
    scope: { type: "selector", filter: { agent_ids: ["slow-1"] } },
    context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
    started_at: new Date(at).toISOString(), running_at: null, completed_at: null, progress: null, summary: null, freshness: null,
    error: null, findings: [], report: null,
    internal: { owner_key_id: null, seeds: [], events: { queued: newId("evt", at), started: null, terminal: null, findings: {} }, run_attempts: 0 },
  };
  await ensureQueued({ js: rt.js, investigations: rt.investigations }, record);
  await eventually(async () => (plans === 1 ? true : undefined), 15_000);
  // A second runner, started now: the first holds the work message.
  const second = stack.start("runner", {}, "runner-2");
  await second.ready();

  const began = Date.now();
  const code = await first.kill("SIGTERM");
  const tookMs = Date.now() - began;
  t.equal(code, 0, "exits 0");
  t.ok(tookMs < 10_000, `stopped in ${tookMs} ms`);
  t.notMatch(first.output(), /shutdown deadline passed/, "within the deadline: the run was handed back, not cut off");
  const done = await eventually(async () => {
    const r = (await rt.investigations.get(id))?.value;
    return r && (r.status === "completed" || r.status === "failed") ? r : undefined;
  }, 30_000);
  t.equal(done.status, "completed", "the other runner completed it");
  t.equal(done.internal.handed_back, 1, "the stopped attempt counts as handed back, not as a crash");
  t.equal(done.internal.run_attempts, 2);
  t.equal(plans, 2, "the agent was asked again by the other runner");
});

test("teardown", async () => {
  await nc.close();
  await stack.stop();
});
