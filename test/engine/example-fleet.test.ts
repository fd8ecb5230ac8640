import { test } from "tap";
import { routeQuery, runInvestigation } from "../../shared/engine/index.js";
import { loadFleet } from "./helpers.js";

const QUESTION = "are any prod hosts running processes that listen on unexpected ports?";

function liveCoverage(fleet: ReturnType<typeof loadFleet>) {
  return {
    mode: "live" as const,
    agents_targeted: fleet.agents.length,
    agents_responded: fleet.hosts.length,
    unreachable: fleet.offline.map((a) => ({ agent_id: a.agent_id, hostname: a.hostname, reason: "offline" })),
  };
}

test("the example fleet follows the fleet-file format", async (t) => {
  const fleet = loadFleet();
  t.ok(fleet.agents.length >= 5 && fleet.agents.length <= 8);
  t.equal(fleet.offline.length, 1, "one agent with online: false");
  t.ok(fleet.agents.some((a) => typeof a.edr_device_id === "string"), "one agent with an edr_device_id");
  t.ok(fleet.agents.some((a) => a.tags.role === "ci-runner" && a.tags.repository === "acme/api"));
  t.ok(fleet.agents.filter((a) => a.tags.env === "prod").length >= 3);
  for (const a of fleet.agents) t.ok(a.agent_id && a.hostname && a.tables.processes, a.agent_id);
});

test("the prod-ports question finds the listener on 4444 from /tmp", async (t) => {
  const fleet = loadFleet();
  const plan = routeQuery(QUESTION, "standard");
  t.ok(plan.detection_ids.includes("unexpected-listener"));
  const r = runInvestigation(plan, fleet.hosts, liveCoverage(fleet), "standard", { directory: fleet.agents });
  const listeners = r.findings.filter((f) => f.detection_id === "unexpected-listener");
  t.equal(listeners.length, 1);
  const hit = listeners[0];
  t.equal(hit?.hostname, "web-02");
  t.match(hit?.summary, /4444/);
  t.ok(hit?.evidence.some((e) => e.table === "processes" && String(e.row.path).startsWith("/tmp/")));
  t.equal(r.verdict, "malicious");
  t.ok(r.coverage_gaps.some((g) => g.includes("backup-01")), "the offline agent is a coverage gap");
});

test("the other compromised host and the lateral path show up too", async (t) => {
  const fleet = loadFleet();
  const posture = runInvestigation(routeQuery("anything odd?", "standard"), fleet.hosts, liveCoverage(fleet), "standard");
  const hosts = new Set(posture.findings.map((f) => f.hostname));
  t.same([...hosts].sort(), ["db-01", "web-02"], "only the two compromised hosts have findings");
  t.ok(posture.findings.some((f) => f.detection_id === "reverse-shell" && f.hostname === "db-01"));
  t.ok(posture.findings.some((f) => f.detection_id === "ssh-authorized-key" && f.hostname === "db-01"));
  t.ok(posture.findings.some((f) => f.detection_id === "cryptominer" && f.hostname === "web-02"));
  const lateral = runInvestigation(routeQuery("did anything spread laterally?", "standard"), fleet.hosts, liveCoverage(fleet), "standard", { directory: fleet.agents });
  t.ok(lateral.paths.some((p) => p.nodes[0]?.includes("ag-web-02") && p.nodes.at(-1)?.startsWith("host:")), "a path leaves web-02 for another host");
  t.ok(lateral.findings.some((f) => f.hostname === "db-01"), "db-01, reached over SSH from web-02, has its own findings");
  t.same(lateral.proposed_scope?.filter.agent_ids, ["ag-backup-01"], "the offline backup host was reached: re-run there");
});
