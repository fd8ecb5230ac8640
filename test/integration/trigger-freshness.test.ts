// The freshness a trigger stores grows with the fleet: its recommended scope names every online agent in scope whose
// snapshot is stale or missing. In a fleet of tens of thousands that list alone came near or over max_payload (1 MiB),
// so the record could not be stored with the run's results, or not even queued. The recommended scope is a scope a
// client sends back (mode live), so it names at most what a scope may: 1,000 agents (docs/api.md#freshness).
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import type { AgentRecord } from "../../shared/agents/record.js";
import type { Clock } from "../../shared/clock.js";
import { triggerInvestigation } from "../../shared/investigations/trigger.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { Scope } from "../../shared/schemas/common.js";
import { checker } from "../../shared/validate.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { testTriggerDeps } from "../helpers/trigger.js";

/** What a queued record may take: 1 MiB less the findings (256 KiB), the report (256 KiB), the summary and bookkeeping. */
const QUEUED_RECORD_ROOM = 1024 * 1024 - 256 * 1024 - 256 * 1024 - 64 * 1024;

let server: NatsServer;
let nc: NatsConnection;
let rt: Runtime;
const clock: Clock = { now: () => Date.now() };

/** `n` online agents with ids like UUIDs and no snapshot yet: every one is worth a live re-run. */
function fleet(n: number): AgentRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    agent_id: `${String(i).padStart(8, "0")}-0000-4000-8000-000000000000`,
    hostname: `h${i}`,
    tags: {},
    edr_device_id: null,
    status: "online",
    registered_at: "2026-11-22T10:00:00.000Z",
    last_seen_at: "2026-11-22T10:00:00.000Z",
    snapshot_collected_at: null,
    heartbeat_interval_ms: 1000,
  }));
}

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
  rt = await openRuntime(nc, { replicas: 1 });
});

test("a fleet of 30,000 agents without snapshots: the trigger queues, and its record leaves room for the results", async (t) => {
  const agents = fleet(30_000);
  const outcome = await triggerInvestigation(testTriggerDeps(rt, clock, { listAgents: async () => agents }), {
    request: { query: "any cryptominers?" },
    idempotencyScope: "key_test",
    ownerKeyId: "key_test",
    context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
  });
  t.equal(outcome.kind, "queued");
  if (outcome.kind !== "queued") return;
  const entry = await (await new Kvm(nc).open("inq_investigations")).get(outcome.investigationId);
  const bytes = entry?.value.length ?? 0;
  t.ok(bytes > 0 && bytes <= QUEUED_RECORD_ROOM, `record of ${bytes} bytes`);
  const freshness = (entry?.json() as { freshness: { agents_without_snapshot: number; recommendation: { should_rerun_live: boolean; recommended_scope: unknown; reason: string } } }).freshness;
  t.equal(freshness.agents_without_snapshot, 30_000, "the counts are whole");
  t.equal(freshness.recommendation.should_rerun_live, true);
  const scope = freshness.recommendation.recommended_scope as { filter: { agent_ids: string[] } };
  t.ok(checker(Scope).check(scope).ok, "the recommended scope is one a trigger accepts");
  t.same(scope.filter.agent_ids, agents.slice(0, 1000).map((a) => a.agent_id), "the first 1,000 agents to re-run, in id order");
  t.match(freshness.recommendation.reason, /1000 of the 30000/, "the reason says the scope names only some of them");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
