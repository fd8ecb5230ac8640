// GET /v1/investigations/{id} (issue 9): read from the bucket, and a final record's (completed, failed) rendered
// detail is then kept by the gateway and answered from memory. So a status change is seen at once, read-your-writes
// holds through a second gateway, and a finished investigation read once stays readable while the bus is down.
import { test } from "tap";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { tempDir } from "../helpers/services.js";

const QUERY = { query: "are any prod hosts listening on unexpected ports?", mode: "cached" };

async function secondGateway(stack: Stack): Promise<string> {
  const dir = tempDir("inquest-gw2-");
  const gw2 = stack.start("gateway", { INQUEST_DATA_DIR: dir.path }, "gateway2");
  const url = await gw2.line("INQUEST_GATEWAY_URL=");
  await gw2.ready();
  return url;
}

test("read-your-writes through a second gateway, and a cancel is seen there at once", async (t) => {
  const stack = await startStack({ services: ["gateway"] });
  t.teardown(() => stack.stop());
  const gw2 = await secondGateway(stack);
  for (let i = 0; i < 5; i++) {
    const created = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: QUERY });
    t.equal(created.status, 202);
    const id = created.json.investigation_id as string;
    const read = await api(gw2, "GET", `/v1/investigations/${id}`, { key: stack.key });
    t.equal(read.status, 200, "created on gateway 1, read at once on gateway 2");
    t.equal(read.json.status, "queued");
    // Let gateway 2's read model hold the queued copy, then change the status through gateway 1.
    await eventually(async () => ((await api(gw2, "GET", "/v1/investigations?status=queued", { key: stack.key })).json?.investigations?.some((x: { investigation_id: string }) => x.investigation_id === id) ? true : undefined));
    const cancelled = await api(stack.baseUrl, "DELETE", `/v1/investigations/${id}`, { key: stack.key });
    t.equal(cancelled.status, 200);
    const after = await api(gw2, "GET", `/v1/investigations/${id}`, { key: stack.key });
    t.equal(after.json.status, "cancelled", "the status change is seen on gateway 2 right after the cancel answered");
  }
});

test("a status change is seen as it happens, and a completed investigation is read locally with the bus down", async (t) => {
  const stack = await startStack();
  t.teardown(() => stack.stop());
  const created = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: QUERY });
  t.equal(created.status, 202);
  const id = created.json.investigation_id as string;
  const seen = new Set<string>();
  const done = await eventually(async () => {
    const r = await api(stack.baseUrl, "GET", `/v1/investigations/${id}`, { key: stack.key });
    seen.add(r.json.status);
    return r.json.status === "completed" ? r.json : undefined;
  }, 30_000, 20);
  t.ok(seen.has("completed"), `statuses seen: ${[...seen].join(", ")}`);
  // The read model holds the completed record's list view (the list is served from it after a catch-up).
  await eventually(async () => ((await api(stack.baseUrl, "GET", "/v1/investigations?status=completed", { key: stack.key })).json?.investigations?.length === 1 ? true : undefined));

  // A second, unfinished investigation: it needs the bucket.
  stack.services.get("runner")?.kill();
  const pending = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: QUERY });
  t.equal(pending.status, 202);

  await stack.nats.down();
  const local = await api(stack.baseUrl, "GET", `/v1/investigations/${id}`, { key: stack.key });
  t.equal(local.status, 200, "the completed record read once is served from the gateway's memory while NATS is down");
  t.same(local.json, done, "the same body as when it was read from the bucket");
  const remote = await api(stack.baseUrl, "GET", `/v1/investigations/${pending.json.investigation_id}`, { key: stack.key });
  t.equal(remote.status, 503, "a queued record is read from the bucket, which is down");
  await stack.nats.up();
});
