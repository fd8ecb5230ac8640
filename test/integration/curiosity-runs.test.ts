// Curiosity end to end: gateway + runner + ticker + simulated fleet over a real nats-server, second-scale
// intervals. Runs are investigations like any other (context links them to the item), fire within 1 s of
// next_run_at, re-queue at end + interval, mark what is new since the previous run, respect pause and
// delete, and never overlap.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "tap";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";

const miner = (pid: number, path: string) => ({ pid, name: "xmrig", path, cmdline: `${path} -o stratum+tcp://198.51.100.7:3333 --donate-level 1`, uid: 1000, parent: 1, on_disk: 1 });
const FLEET = {
  agents: [
    { agent_id: "web-1", hostname: "web-1.prod", tags: { env: "prod" }, tables: { processes: [miner(4242, "/tmp/.x/xmrig")] } },
    { agent_id: "db-1", hostname: "db-1.prod", tags: { env: "prod" }, tables: { processes: [{ pid: 90, name: "postgres", path: "/usr/lib/postgresql/bin/postgres", cmdline: "postgres", uid: 105, parent: 1, on_disk: 1 }] } },
  ],
};
const LATER = { agents: [{ agent_id: "web-9", hostname: "web-9.prod", tags: { env: "prod" }, tables: { processes: [miner(777, "/var/tmp/xmrig")] } }] };
const QUESTION = "any cryptominers?";

interface Inv {
  investigation_id: string;
  status: string;
  started_at: string;
  completed_at: string | null;
  context: { trigger_source: string; trigger_id: string; curiosity_id: string | null; inbound_endpoint_id: string | null; previous_investigation_id?: string | null };
  findings?: Array<{ agent_id: string; detection_id: string; new_since_last_run?: boolean }>;
}

let stack: Stack;
const call = (method: string, path: string, body?: unknown) => api(stack.baseUrl, method, path, { key: stack.key, body });
const ms = (ts: string | null) => Date.parse(ts ?? "");
const runNumber = (inv: Inv) => Number(inv.context.trigger_id.split(":")[1]);
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

/** Every investigation of an item, oldest run first, with findings. */
async function runsOf(curiosityId: string): Promise<Inv[]> {
  const list = await call("GET", "/v1/investigations?trigger_source=curiosity&limit=200");
  const mine = (list.json.investigations as Inv[]).filter((i) => i.context.curiosity_id === curiosityId);
  const detailed = await Promise.all(mine.map(async (i) => (await call("GET", `/v1/investigations/${i.investigation_id}`)).json as Inv));
  return detailed.sort((a, b) => runNumber(a) - runNumber(b));
}

const item = async (id: string) => (await call("GET", `/v1/curiosity/${id}`)).json;

test("setup", async () => {
  stack = await startStack({ services: ["gateway", "runner", "ticker", "agent"], fleet: FLEET, env: { INQUEST_CURIOSITY_MIN_INTERVAL: "1s" } });
  await eventually(async () => {
    const agents = (await call("GET", "/v1/agents")).json.agents as Array<{ status: string; snapshot_collected_at: string | null }>;
    return agents.length === 2 && agents.every((a) => a.status === "online" && a.snapshot_collected_at) ? true : undefined;
  }, 20_000);
});

let standing = "";

test("runs are investigations triggered within 1 s of next_run_at, re-queued at end + interval", async (t) => {
  const created = await call("POST", "/v1/curiosity", { query: QUESTION, interval: "2s", depth: "quick" });
  t.equal(created.status, 201);
  standing = created.json.id;
  const runs = await eventually(async () => {
    const r = await runsOf(standing);
    return r.length >= 3 && r.slice(0, 3).every((i) => i.completed_at) ? r : undefined;
  }, 20_000);
  const [first, second, third] = runs as [Inv, Inv, Inv];
  t.same(first.context, { trigger_source: "curiosity", trigger_id: `${standing}:1`, curiosity_id: standing, inbound_endpoint_id: null, previous_investigation_id: null });
  t.equal(second.context.previous_investigation_id, first.investigation_id, "the ticker names the run the next one compares with");
  t.equal(third.context.previous_investigation_id, second.investigation_id);
  t.same(runs.map(runNumber), runs.map((_, i) => i + 1), "run numbers 1, 2, 3... each once");
  const lag1 = ms(first.started_at) - ms(created.json.next_run_at);
  t.ok(lag1 >= 0 && lag1 < 1000, `first run ${lag1} ms after next_run_at`);
  for (const [prev, next] of [[first, second], [second, third]] as const) {
    t.equal(prev.status, "completed");
    const lag = ms(next.started_at) - (ms(prev.completed_at) + 2000);
    t.ok(lag >= 0 && lag < 1000, `run ${runNumber(next)} started ${lag} ms after the previous end + interval`);
  }
  // The ticker updates the item when it sees a run's terminal event, a moment after the run reads as completed:
  // the item must catch up with the latest finished run (and never name another).
  const { now, last } = await eventually(async () => {
    const current = await item(standing);
    const finished = (await runsOf(standing)).filter((i) => i.completed_at);
    const latest = finished[finished.length - 1];
    return latest && current.run_count >= 3 && current.last_investigation_id === latest.investigation_id ? { now: current, last: latest } : undefined;
  }, 10_000);
  t.ok(now.run_count >= 3);
  t.equal(now.last_investigation_id, last.investigation_id, "last_investigation_id is the latest finished run");
  t.equal(now.last_run_at, last.completed_at, "last_run_at is when it ended");
  t.equal(ms(now.next_run_at), ms(last.completed_at) + 2000, "next_run_at = end + interval");
  t.ok(now.updated_at >= now.created_at);

  const byAgent = (inv: Inv) => Object.fromEntries((inv.findings ?? []).filter((f) => f.detection_id === "cryptominer").map((f) => [f.agent_id, f.new_since_last_run]));
  t.same(byAgent(first), { "web-1": true }, "first run: everything is new");
  t.same(byAgent(second), { "web-1": false }, "second run: the same miner is not news");
  t.ok((second.findings ?? []).every((f) => f.new_since_last_run === false));
});

test("a finding that appears between runs is new; what was there before is not", async (t) => {
  const file = join(stack.dataDir, "later.json");
  writeFileSync(file, JSON.stringify(LATER));
  const before = (await runsOf(standing)).length;
  stack.start("agent", { INQUEST_FLEET_FILE: file }, "agent-later");
  const runs = await eventually(async () => {
    const r = await runsOf(standing);
    const i = r.findIndex((x) => (x.findings ?? []).some((f) => f.agent_id === "web-9"));
    return i >= 0 && r[i + 1]?.completed_at ? { appeared: r[i] as Inv, after: r[i + 1] as Inv } : undefined;
  }, 20_000);
  t.ok(runNumber(runs.appeared) > before, "found by a later run");
  const flags = (inv: Inv) => Object.fromEntries((inv.findings ?? []).filter((f) => f.detection_id === "cryptominer").map((f) => [f.agent_id, f.new_since_last_run]));
  t.same(flags(runs.appeared), { "web-1": false, "web-9": true }, "only the new host's miner is new");
  t.same(flags(runs.after), { "web-1": false, "web-9": false }, "and the run after that reports nothing new");

  const viaApi = await call("POST", "/v1/investigations", { query: QUESTION, depth: "quick" });
  const done = await eventually(async () => {
    const d = await call("GET", `/v1/investigations/${viaApi.json.investigation_id}`);
    return d.json.status === "completed" ? (d.json as Inv) : undefined;
  });
  t.ok((done.findings ?? []).length > 0);
  t.ok((done.findings ?? []).every((f) => !("new_since_last_run" in f)), "investigations not run by the queue carry no new_since_last_run");
});

test("a paused item is not triggered; resuming runs it once, promptly", async (t) => {
  const paused = await call("PATCH", `/v1/curiosity/${standing}`, { active: false });
  t.equal(paused.status, 200);
  t.equal(paused.json.active, false);
  await eventually(async () => ((await runsOf(standing)).every((i) => i.completed_at) ? true : undefined));
  const count = (await runsOf(standing)).length;
  const retimed = await call("PATCH", `/v1/curiosity/${standing}`, { interval: "3s" });
  t.equal(ms(retimed.json.next_run_at), ms(retimed.json.last_run_at) + 3000, "a new interval re-queues from the last run's end");
  t.equal(retimed.json.active, false, "and leaves the item paused");
  await sleep(4_500);
  t.equal((await runsOf(standing)).length, count, "no run for two intervals and more while paused");
  const pausedItem = await item(standing);
  t.equal(pausedItem.run_count, count, "every run that was in flight is counted");
  const resumed = await call("PATCH", `/v1/curiosity/${standing}`, { active: true });
  t.ok(Math.abs(ms(resumed.json.next_run_at) - Date.now()) < 1000, "overdue: due now");
  const runs = await eventually(async () => {
    const r = await runsOf(standing);
    return r.length > count ? r : undefined;
  }, 5_000);
  t.equal(runs.length, count + 1, "one run, not the ones missed while paused");
  const next = runs[count] as Inv;
  const lag = ms(next.started_at) - ms(resumed.json.next_run_at);
  t.ok(lag >= 0 && lag < 1000, `started ${lag} ms after resuming`);
  t.equal((await call("DELETE", `/v1/curiosity/${standing}`)).status, 204);
});

test("one run in flight at a time; deleting the item mid-run leaves the run alone", async (t) => {
  await stack.services.get("runner")?.kill();
  const created = await call("POST", "/v1/curiosity", { query: QUESTION, interval: "1s", depth: "quick" });
  const id = created.json.id as string;
  const [run] = await eventually(async () => {
    const r = await runsOf(id);
    return r.length > 0 ? r : undefined;
  });
  await sleep(3_500);
  const stuck = await runsOf(id);
  t.equal(stuck.length, 1, "due three times over, but its run is still in flight");
  t.equal(stuck[0]?.status, "queued");
  t.equal((await item(id)).run_count, 0);
  t.equal((await call("DELETE", `/v1/curiosity/${id}`)).status, 204);
  stack.start("runner");
  const done = await eventually(async () => {
    const d = await call("GET", `/v1/investigations/${run?.investigation_id}`);
    return d.json.status === "completed" ? d.json : undefined;
  }, 20_000);
  t.equal(done.context.curiosity_id, id, "the investigation keeps its link to the deleted item");
  await sleep(2_000);
  t.equal((await call("GET", `/v1/curiosity/${id}`)).status, 404, "the item stays deleted");
  t.equal((await runsOf(id)).length, 1, "and triggers nothing more");
});

test("teardown", async () => {
  await stack.stop();
});
