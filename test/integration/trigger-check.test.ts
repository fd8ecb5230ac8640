// The one trigger path (shared/investigations/trigger.ts) holds every request to the API's own request schema, whoever
// built it: the API validates its body first, but an inbound provider or a curiosity item builds the request itself, and
// a request the API would refuse must not be stored (docs/api.md#investigations). Real nats-server; nothing written.
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import type { Clock } from "../../shared/clock.js";
import { triggerInvestigation, type TriggerRequest } from "../../shared/investigations/trigger.js";
import { openRuntime, type Runtime } from "../../shared/runtime.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { testTriggerDeps } from "../helpers/trigger.js";

let server: NatsServer;
let nc: NatsConnection;
let rt: Runtime;
const clock: Clock = { now: () => Date.now() };

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
  rt = await openRuntime(nc, { replicas: 1 });
});

const trigger = (request: TriggerRequest) =>
  triggerInvestigation(testTriggerDeps(rt, clock), {
    request,
    idempotencyScope: "inbound:iep_test",
    ownerKeyId: null,
    context: { trigger_source: "inbound:generic", trigger_id: "t", curiosity_id: null, inbound_endpoint_id: "iep_test" },
  });

async function stored(): Promise<number> {
  const kv = await new Kvm(nc).open("inq_investigations");
  let n = 0;
  for await (const _ of await kv.keys()) n++;
  return n;
}

test("a request the API would refuse is invalid at the trigger, with the API's details, and nothing is stored", async (t) => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `agent-${i}`);
  const cases: Array<[string, TriggerRequest, string]> = [
    ["an empty question", { query: "" }, "/query"],
    ["a blank question", { query: "   " }, "/query"],
    ["a question of 2,001 characters", { query: "q".repeat(2001) }, "/query"],
    ["a depth not in the enum", { query: "q", depth: "bottomless" as never }, "/depth"],
    ["a mode not in the enum", { query: "q", mode: "psychic" as never }, "/mode"],
    ["1,001 agent ids", { query: "q", scope: { type: "selector", filter: { agent_ids: ids(1001) } } }, "/scope"],
    ["an agent id that is not one", { query: "q", scope: { type: "selector", filter: { agent_ids: ["a b"] } } }, "/scope"],
    ["a tag name with a control character", { query: "q", scope: { type: "selector", filter: { tags: { "a\u0007b": "v" } } } }, "/scope"],
  ];
  const before = await stored();
  for (const [name, request, path] of cases) {
    const outcome = await trigger(request);
    t.equal(outcome.kind, "invalid", name);
    if (outcome.kind !== "invalid") continue;
    t.ok(outcome.details.some((d) => d.path.startsWith(path)), `${name}: a detail at ${path}: ${JSON.stringify(outcome.details).slice(0, 200)}`);
  }
  t.equal(await stored(), before, "nothing was stored");
  const ok = await trigger({ query: "q", depth: "deep", mode: "live", scope: { type: "selector", filter: { agent_ids: ids(1000), tags: { env: "prod", "team name": "blue team" } } } });
  t.equal(ok.kind, "queued", "the largest valid request still queues");
});

test("teardown", async () => {
  await nc.close();
  await server.stop();
});
