// Large investigations (docs/nats.md#findings): hundreds of findings with a lowered bound. The record stays small,
// findings_total is right, GET /findings pages through every finding once, filters work, and a run attempt that
// crashed after writing its findings leaves no duplicate behind.
import { test } from "tap";
import { Kvm } from "@nats-io/kv";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { connectTo } from "../helpers/nats.js";
import { readEvents } from "../helpers/events.js";
import { JsonKv } from "../../shared/nats/kvjson.js";
import { encodeFindings, packChunks } from "../../shared/investigations/findings.js";
import { FindingsStore } from "../../shared/investigations/findings-store.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import type { Finding } from "../../shared/schemas/investigation.js";
import { newId } from "../../shared/ids.js";
import { SEVERITIES } from "../../shared/severity.js";

const AGENTS = 150;
const INLINE = 10;
const CHUNK_BYTES = 8192;

/** Every agent runs a backdoor listening on a port; every third also a shell from /tmp: findings of several severities. */
function fleet(): unknown {
  return {
    agents: Array.from({ length: AGENTS }, (_, i) => {
      const id = `host-${String(i).padStart(3, "0")}`;
      const processes: Array<Record<string, unknown>> = [
        { pid: 4242, name: "kworker", path: "/tmp/.x/kworker", cmdline: "/tmp/.x/kworker -l 4444", uid: 33, parent: 1, on_disk: 1 },
        { pid: 80, name: "nginx", path: "/usr/sbin/nginx", cmdline: "nginx: master process", uid: 0, parent: 1, on_disk: 1 },
      ];
      if (i % 3 === 0) processes.push({ pid: 5000, name: "sh", path: "/tmp/sh", cmdline: "/tmp/sh -i", uid: 0, parent: 4242, on_disk: 0 });
      return {
        agent_id: id,
        hostname: `${id}.example`,
        // Production hosts weigh more: their findings rank higher than the same on a dev host.
        tags: { env: i % 2 === 0 ? "prod" : "dev" },
        tables: {
          processes,
          listening_ports: [
            { pid: 4242, port: 4444, protocol: 6, address: "0.0.0.0" },
            { pid: 80, port: 443, protocol: 6, address: "0.0.0.0" },
          ],
        },
      };
    }),
  };
}

const QUESTION = "are any hosts running processes that listen on unexpected ports?";

let stack: Stack;
let nc: NatsConnection;

const get = (path: string) => api(stack.baseUrl, "GET", path, { key: stack.key });
const until = (id: string) =>
  eventually(async () => {
    const d = await get(`/v1/investigations/${id}`);
    return ["completed", "failed"].includes(d.json.status) ? d : undefined;
  }, 60_000);

/** Every finding through the findings endpoint, page by page. */
async function pageAll(id: string, query: string, limit: number): Promise<{ findings: Finding[]; pages: number }> {
  const findings: Finding[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await get(`/v1/investigations/${id}/findings?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`);
    if (r.status !== 200) throw new Error(`findings page: ${r.status} ${r.text}`);
    findings.push(...(r.json.findings as Finding[]));
    cursor = r.json.next_cursor as string | null;
    pages += 1;
  } while (cursor !== null && pages < 1000);
  return { findings, pages };
}

test("setup", async () => {
  stack = await startStack({ fleet: fleet(), env: { INQUEST_FINDINGS_INLINE: String(INLINE), INQUEST_FINDINGS_CHUNK_BYTES: String(CHUNK_BYTES) } });
  nc = await connectTo(stack.nats.url);
  await eventually(async () => {
    const r = await get("/v1/agents?limit=200");
    return r.json.agents?.length === AGENTS && r.json.agents.every((a: { status: string }) => a.status === "online") ? true : undefined;
  }, 60_000);
});

let firstId = "";
let all: Finding[] = [];

test("a run with hundreds of findings keeps a small record and every finding apart", async (t) => {
  const r = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: QUESTION, mode: "live", depth: "quick" } });
  t.equal(r.status, 202);
  firstId = r.json.investigation_id as string;
  const done = await until(firstId);
  t.equal(done.json.status, "completed");
  const total = done.json.findings_total as number;
  t.ok(total >= AGENTS, `hundreds of findings (${total})`);
  t.equal(done.json.summary.findings_count, total, "the summary counts every finding");
  t.equal(done.json.findings.length, INLINE, "the detail carries the bound");
  const ranks = (fs: Finding[]) => fs.map((f) => SEVERITIES.indexOf(f.severity));
  const inlineRanks = ranks(done.json.findings as Finding[]);
  t.same(inlineRanks, [...inlineRanks].sort((a, b) => b - a), "most severe first");

  const stored = await new Kvm(nc).open("inq_investigations");
  const entry = await stored.get(firstId);
  t.ok(entry && entry.length < 40 * 1024, `the record stays small (${entry?.length} bytes)`);
  t.equal(done.json.report.truncated["/severity_inputs"], total, "the report says which lists it cut");
  t.ok((done.json.report.severity_inputs as unknown[]).length <= INLINE, "the report's lists are bounded too");
  const chunks: number[] = [];
  for await (const key of await (await new Kvm(nc).open("inq_findings")).keys(`${firstId}.>`)) chunks.push(Number(key.split(".")[2]));
  t.ok(chunks.length > 1, `findings in several chunks (${chunks.length})`);

  const paged = await pageAll(firstId, "", 37);
  all = paged.findings;
  t.equal(all.length, total, "pagination returns findings_total findings");
  t.equal(new Set(all.map((f) => f.finding_id)).size, total, "no duplicates");
  t.same(all.slice(0, INLINE), done.json.findings, "the detail's findings are the first of the list");
  const allRanks = ranks(all);
  t.same(allRanks, [...allRanks].sort((a, b) => b - a), "the list is ordered by severity");
  t.ok(paged.pages >= Math.ceil(total / 37), "paged");

  // The events follow the record that says completed: wait for the terminal one, published last.
  const completed = await eventually(async () =>
    (await readEvents(nc)).find((e) => e.type === "investigation.completed" && (e.data as { investigation_id: string }).investigation_id === firstId),
  );
  const events = (await readEvents(nc)).filter((e) => e.type === "finding.discovered" && (e.data as { investigation_id: string }).investigation_id === firstId);
  t.equal(events.length, total, "one finding.discovered per finding");
  t.ok(completed && JSON.stringify(completed).length < 16 * 1024, "investigation.completed stays small");
});

test("filters by severity and agent, cursors tied to the filters", async (t) => {
  const severities = [...new Set(all.map((f) => f.severity))];
  t.ok(severities.length >= 2, `several severities (${severities.join(", ")})`);
  for (const s of severities) {
    const got = await pageAll(firstId, `&severity=${s}`, 50);
    t.same(got.findings.map((f) => f.finding_id), all.filter((f) => f.severity === s).map((f) => f.finding_id), `severity=${s}`);
  }
  const agent = all[all.length - 1]?.agent_id as string;
  const byAgent = await pageAll(firstId, `&agent_id=${agent}`, 1);
  t.same(byAgent.findings.map((f) => f.finding_id), all.filter((f) => f.agent_id === agent).map((f) => f.finding_id), "agent_id");
  t.equal((await pageAll(firstId, "&agent_id=nobody", 50)).findings.length, 0, "an unknown agent has no findings");

  const first = await get(`/v1/investigations/${firstId}/findings?limit=5`);
  const cursor = first.json.next_cursor as string;
  t.ok(cursor);
  t.equal((await get(`/v1/investigations/${firstId}/findings?limit=5&severity=${severities[0]}&cursor=${cursor}`)).status, 400, "a cursor of another filter");
  t.equal((await get(`/v1/investigations/${firstId}/findings?cursor=garbage`)).json.error.code, "invalid_cursor");
  t.equal((await get(`/v1/investigations/${firstId}/findings?severity=bad`)).status, 400);
  t.equal((await get(`/v1/investigations/${firstId}/findings?agent_id=${encodeURIComponent("a b")}`)).status, 400);
  t.equal((await get(`/v1/investigations/${firstId}/findings?limit=0`)).status, 400);
  t.equal((await get(`/v1/investigations/${newId("inv")}/findings`)).status, 404);
  t.equal((await api(stack.baseUrl, "GET", `/v1/investigations/${firstId}/findings`)).status, 401, "needs a key");
});

test("an attempt that crashed after writing its findings leaves no duplicates", async (t) => {
  const id = newId("inv");
  const store = new FindingsStore(await new Kvm(nc).open("inq_findings"));
  // Attempt 1 wrote its findings (other ids) and died before committing them to the record.
  const ghost = all.slice(0, 60).map((f) => ({ ...f, finding_id: newId("fnd") }));
  await store.write(id, 1, packChunks(encodeFindings(ghost), CHUNK_BYTES));
  const past = new Date(Date.now() - 60_000).toISOString();
  const record: InvestigationRecord = {
    investigation_id: id, status: "running", query: QUESTION, depth: "quick", mode: "live", scope: null,
    context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
    started_at: past, running_at: past, completed_at: null, progress: null, summary: null, freshness: null,
    error: null, findings: [], report: null,
    internal: { owner_key_id: null, seeds: [], events: { queued: newId("evt"), started: newId("evt"), terminal: null, findings: {} }, run_attempts: 1, lease: { token: "dead", until: past } },
  };
  await new JsonKv<InvestigationRecord>(await new Kvm(nc).open("inq_investigations")).create(id, record);
  // Its work message comes back (redelivered after the crash).
  await jetstream(nc).publish("work.investigations", JSON.stringify({ investigation_id: id }), { msgID: `${id}:redelivered` });
  const done = await until(id);
  t.equal(done.json.status, "completed");
  const total = done.json.findings_total as number;
  t.equal(total, all.length, "the same findings as a clean run");
  const paged = await pageAll(id, "", 100);
  t.equal(paged.findings.length, total);
  t.equal(new Set(paged.findings.map((f) => f.finding_id)).size, total, "no duplicates");
  t.notOk(paged.findings.some((f) => ghost.some((g) => g.finding_id === f.finding_id)), "nothing of the crashed attempt");
  const keys: string[] = [];
  for await (const key of await store.kv.keys(`${id}.>`)) keys.push(key);
  t.ok(keys.length > 0 && keys.every((k) => k.startsWith(`${id}.2.`)), "the crashed attempt's chunks are pruned");

  // A replayed work message for the completed run republishes, adding nothing.
  await jetstream(nc).publish("work.investigations", JSON.stringify({ investigation_id: id }), { msgID: `${id}:replayed` });
  await new Promise((r) => setTimeout(r, 1_000));
  const again = await pageAll(id, "", 200);
  t.same(again.findings.map((f) => f.finding_id), paged.findings.map((f) => f.finding_id), "unchanged after a replay");
  const events = (await readEvents(nc)).filter((e) => e.type === "finding.discovered" && (e.data as { investigation_id: string }).investigation_id === id);
  t.equal(new Set(events.map((e) => e.event_id)).size, total, "one finding.discovered per finding, repeats deduplicated");
  t.equal(events.length, total);
});

test("a cursor belongs to the investigation whose list issued it: another's is 400 invalid_cursor", async (t) => {
  const second = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: QUESTION, mode: "live", depth: "quick" } });
  const otherId = second.json.investigation_id as string;
  t.equal((await until(otherId)).json.status, "completed");
  const first = await get(`/v1/investigations/${firstId}/findings?limit=5`);
  const cursor = first.json.next_cursor as string;
  t.ok(cursor, "the first list has a next page");
  const misused = await get(`/v1/investigations/${otherId}/findings?limit=5&cursor=${cursor}`);
  t.equal(misused.status, 400, "not a page of the other investigation's list that starts where the first left off");
  t.equal(misused.json.error?.code, "invalid_cursor");
  const own = await get(`/v1/investigations/${firstId}/findings?limit=5&cursor=${cursor}`);
  t.same((own.json.findings as Finding[]).map((f) => f.finding_id), all.slice(5, 10).map((f) => f.finding_id), "its own list still continues");
});

test("teardown", async () => {
  await nc?.close();
  await stack?.stop();
});
