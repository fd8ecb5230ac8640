// GET /v1/webhooks/event-types (docs/api.md#event-types): every event type with its envelope's JSON Schema;
// the events a real run publishes on EVENTS (investigation and agent events) validate against them, and a
// payload with a field of the wrong type does not.
import { test } from "tap";
import type { TSchema } from "typebox";
import { issueKey } from "../helpers/cli.js";
import { readEvents } from "../helpers/events.js";
import { connectTo } from "../helpers/nats.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { EVENT_TYPES } from "../../shared/schemas/events.js";
import { checker } from "../../shared/validate.js";

let stack: Stack;
const PATH = "/v1/webhooks/event-types";

test("setup", async () => {
  stack = await startStack({ services: ["gateway", "runner", "agent"], fleet: { agents: [{ agent_id: "host-1", hostname: "host-1", tags: { env: "prod" } }] } });
});

test("every event type with a schema the published events satisfy", async (t) => {
  const r = await api(stack.baseUrl, "GET", PATH, { key: stack.key });
  t.equal(r.status, 200, r.text);
  const list = r.json.event_types as Array<{ type: string; description: string; schema: TSchema }>;
  t.same(list.map((e) => e.type), [...EVENT_TYPES]);
  const schemas = new Map(list.map((e) => [e.type, checker(e.schema)]));

  const trigger = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: "Is anything listening on port 4444?", depth: "quick" } });
  t.equal(trigger.status, 202, trigger.text);
  const id = trigger.json.investigation_id as string;
  const nc = await connectTo(stack.nats.url);
  try {
    const events = await eventually(async () => {
      const all = await readEvents(nc);
      const mine = all.filter((e) => e.type.startsWith("investigation.") && (e.data as { investigation_id?: string }).investigation_id === id);
      return mine.some((e) => e.type === "investigation.completed" || e.type === "investigation.failed") ? all : undefined;
    }, 60_000);
    const types = new Set(events.map((e) => e.type));
    t.ok(types.has("investigation.queued") && types.has("agent.registered"), [...types].join(", "));
    for (const e of events) {
      const check = schemas.get(e.type);
      const result = check?.check(e);
      t.ok(result?.ok, `${e.type} ${e.event_id} validates${result && !result.ok ? `: ${JSON.stringify(result.details)}` : ""}`);
    }
    const queued = events.find((e) => e.type === "investigation.queued");
    const broken = { ...queued, data: { ...queued?.data, depth: 7 } };
    t.notOk(schemas.get("investigation.queued")?.check(broken).ok, "a wrong payload does not validate");
  } finally {
    await nc.close();
  }
});

test("webhooks:manage needed", async (t) => {
  t.equal((await api(stack.baseUrl, "GET", PATH)).status, 401);
  const forbidden = await api(stack.baseUrl, "GET", PATH, { key: issueKey(stack.nats.url, ["investigations:read"]) });
  t.equal(forbidden.status, 403);
  t.equal(forbidden.json.error.code, "forbidden");
});

test("teardown", async () => {
  await stack.stop();
});
