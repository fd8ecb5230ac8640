import { test } from "tap";
import { DETECTIONS, SEVERITIES, assetWeight, routeQuery, runInvestigation, scoreFinding } from "../../shared/engine/index.js";
import type { Detection, DetectionHit, QueryEntities, Severity } from "../../shared/engine/index.js";
import { linkedPairs, type LinkableFinding } from "../../shared/engine/severity.js";
import { coverage, host, proc, sock } from "./helpers.js";

const none: QueryEntities = { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} };
const base = DETECTIONS.find((d) => d.id === "reverse-shell") as Detection;
const hit: DetectionHit = { summary: "x", evidence: [{ table: "processes", row: { pid: "1", path: "/usr/bin/bash" } }] };

const rank = (s: Severity): number => SEVERITIES.indexOf(s);

function variant(over: Partial<Detection>): Detection {
  return { ...base, ...over };
}

test("score = impact x measured precision x asset weight", async (t) => {
  t.equal(assetWeight({ env: "prod" }), 1.5);
  t.equal(assetWeight({ env: "staging" }), 1);
  const det = variant({ maturity: "test", precision: 0.8, severity: "high" });
  const dev = scoreFinding(det, hit, host({}, { env: "dev" }), none);
  t.equal(dev.score, 60);
  t.equal(dev.severity, "high");
  const prod = scoreFinding(det, hit, host({}, { env: "prod" }), none);
  t.equal(prod.asset_weight, 1.5);
  t.equal(prod.score, 90);
  const weak = scoreFinding(variant({ maturity: "test", precision: 0.5, severity: "high" }), hit, host({}, {}), none);
  t.equal(weak.severity, "medium", "low measured precision pulls a high detection down");
  const weakProd = scoreFinding(variant({ maturity: "test", precision: 0.5, severity: "high" }), hit, host({}, { env: "prod" }), none);
  t.equal(weakProd.severity, "medium", "37.5 x 1.5 = 56.25 stays medium");
  const medProd = scoreFinding(variant({ maturity: "test", precision: 1, severity: "medium" }), hit, host({}, { env: "prod" }), none);
  t.equal(medProd.severity, "high", "prod weight lifts a precise medium detection");
});

test("experimental detections cap at medium", async (t) => {
  const s = scoreFinding(variant({ maturity: "experimental", precision: 1, severity: "critical" }), hit, host({}, { env: "prod" }), none);
  t.equal(s.score, 150);
  t.equal(s.severity, "medium");
});

test("critical only for a known-bad match; a named IP lifts one step but not to critical; info stays info", async (t) => {
  const prod = host({}, { env: "prod" });
  t.equal(scoreFinding(variant({ maturity: "stable", precision: 1, severity: "high" }), hit, prod, none).severity, "high", "a precise stable high detection alone is high");
  t.equal(scoreFinding(variant({ maturity: "stable", precision: 1, severity: "critical" }), hit, prod, none).severity, "high", "even a critical default needs a known-bad match");
  const bad = scoreFinding(variant({ maturity: "test", precision: 0.8, severity: "high" }), { ...hit, known_bad: true }, prod, none);
  t.equal(bad.severity, "critical", "known-bad intelligence matched");
  t.equal(bad.exact_ioc, true);
  t.equal(scoreFinding(variant({ maturity: "experimental", precision: 0.8, severity: "high" }), { ...hit, known_bad: true }, prod, none).severity, "critical", "known-bad is not capped by maturity");
  const sockHit: DetectionHit = { summary: "x", evidence: [{ table: "process_open_sockets", row: { pid: "1", remote_address: "203.0.113.9" } }] };
  const named = scoreFinding(variant({ maturity: "test", precision: 0.5, severity: "medium" }), sockHit, host({}, {}), { ...none, ips: ["203.0.113.9"] });
  t.equal(named.severity, "high", "an IP named in the question and found lifts a medium one step");
  const namedHigh = scoreFinding(variant({ maturity: "stable", precision: 1, severity: "high" }), sockHit, prod, { ...none, ips: ["203.0.113.9"] });
  t.equal(namedHigh.severity, "high", "but never to critical: the question's words are not intelligence");
  const path = scoreFinding(variant({ maturity: "test", precision: 0.5, severity: "medium" }), hit, host({}, {}), { ...none, paths: ["/usr/bin/bash"] });
  t.equal(path.severity, "low", "a path named in the question is a place to look, not an indicator");
  t.equal(scoreFinding(variant({ maturity: "stable", precision: 1, severity: "high" }), { ...hit, severity: "info" }, prod, none).severity, "info", "info stays info");
});

test("investigation severity: highest finding, +1 when different detections share an entity on one host", async (t) => {
  const rows = {
    processes: [proc(4242, "kswapd0", "/tmp/kswapd0", "./kswapd0 -o stratum+tcp://198.51.100.23:3333")],
    process_open_sockets: [sock(4242, "198.51.100.23", 3333)],
  };
  const linked = runInvestigation(routeQuery("miner or tmp execution", "standard"), [host(rows, { env: "staging" })], coverage(1), "standard");
  const ids = new Set(linked.findings.map((f) => f.detection_id));
  t.ok(ids.has("cryptominer") && ids.has("exec-from-tmp"));
  const highest = linked.findings[0]?.severity ?? "info";
  t.ok(rank(highest) < rank("critical"), "room to step up");
  const partner = linked.findings.filter((f) => f.detection_id !== linked.findings[0]?.detection_id)[0]?.severity ?? "info";
  const expected = highest === "high" && partner !== "high" ? rank("high") : rank(highest) + 1;
  t.equal(rank(linked.severity), expected, "linked on the same process: one step up, critical only when both agree at high");
  t.match(linked.severity_reason ?? "", /share (pid:4242|path:\/tmp\/kswapd0)/);

  const apart = runInvestigation(
    routeQuery("miner or tmp execution", "standard"),
    [host({ processes: [proc(1, "xmrig", "/opt/xmrig", "xmrig"), proc(2, "x", "/tmp/x")] }, { env: "staging" })],
    coverage(1),
    "standard",
  );
  t.equal(apart.findings.length, 2);
  t.equal(apart.severity, apart.findings[0]?.severity, "different processes: no step");
  t.equal(apart.verdict, rank(apart.severity) >= rank("high") ? "malicious" : "suspicious");
  const twoHighs = runInvestigation(
    routeQuery("reverse shell or uid 0", "standard"),
    [host({ processes: [proc(9, "bash", "/usr/bin/bash", "bash -i")], process_open_sockets: [sock(9, "203.0.113.9", 443)], users: [{ uid: "0", username: "toor" }] }, { env: "prod" })],
    coverage(1),
    "standard",
  );
  t.ok(twoHighs.findings.length >= 2);
  t.equal(twoHighs.severity, twoHighs.findings[0]?.severity, "two unrelated findings on one host: no step (nothing shared)");
});

test("no findings: info; benign with full coverage, inconclusive when coverage gaps outweigh", async (t) => {
  const plan = routeQuery("any miners?", "quick");
  const clean = host({ processes: [proc(1, "systemd", "/usr/lib/systemd/systemd")], process_open_sockets: [] });
  const benign = runInvestigation(plan, [clean], coverage(1), "quick");
  t.equal(benign.severity, "info");
  t.equal(benign.verdict, "benign");
  t.same(benign.findings, []);

  const mostlyOffline = runInvestigation(plan, [clean], coverage(1, ["a2", "a3"]), "quick");
  t.equal(mostlyOffline.verdict, "inconclusive", "2 of 3 unreachable");
  t.ok(mostlyOffline.coverage_gaps.some((g) => g.includes("a2")));

  const nobody = runInvestigation(plan, [], { mode: "live", agents_targeted: 2, agents_responded: 0, unreachable: [] }, "quick");
  t.equal(nobody.verdict, "inconclusive", "zero responded");
  t.equal(nobody.severity, "info");

  const noTables = runInvestigation(plan, [host({ users: [] })], coverage(1), "quick");
  t.equal(noTables.verdict, "inconclusive", "the needed tables never came back");
  t.ok(noTables.coverage_gaps.some((g) => g.includes("processes")));

  const minorGap = runInvestigation(plan, [clean, { ...clean, agent_id: "a2" }, { ...clean, agent_id: "a4" }], coverage(3, ["a3"]), "quick");
  t.equal(minorGap.verdict, "benign", "one of four unreachable does not outweigh three clean hosts");
});

test("severity inputs are in the report and recompute the score", async (t) => {
  const r = runInvestigation(routeQuery("any miners?", "quick"), [host({ processes: [proc(1, "xmrig", "/opt/xmrig", "xmrig")] }, { env: "prod" })], coverage(1), "quick");
  t.equal(r.severity_inputs.length, r.findings.length);
  for (const s of r.severity_inputs) t.equal(s.score, Math.round(s.impact * s.precision * s.asset_weight * 100) / 100);
  t.equal(r.findings[0]?.confidence, Math.round((DETECTIONS.find((d) => d.id === "cryptominer")?.precision ?? -1) * 100) / 100);
});

test("linked pairs: same host, different detections, a shared entity; in (i, j) order, as a brute-force search finds them", async (t) => {
  const f = (agent_id: string, detection_id: string, links: string[]): LinkableFinding => ({ agent_id, detection_id, severity: "high", links });
  const findings = [f("a", "d1", ["pid:1"]), f("b", "d2", ["pid:1"]), f("a", "d1", ["pid:1"]), f("b", "d1", ["pid:1", "ip:x"]), f("a", "d2", ["path:/x", "pid:1"])];
  t.same(linkedPairs(findings), [[0, 4, "pid:1"], [1, 3, "pid:1"], [2, 4, "pid:1"]], "never across hosts, never one detection with itself");

  const bruteForce = (xs: readonly LinkableFinding[]): Array<[number, number, string]> => {
    const out: Array<[number, number, string]> = [];
    for (let i = 0; i < xs.length; i++) {
      for (let j = i + 1; j < xs.length; j++) {
        const a = xs[i] as LinkableFinding;
        const b = xs[j] as LinkableFinding;
        if (a.agent_id !== b.agent_id || a.detection_id === b.detection_id) continue;
        const shared = a.links.find((k) => b.links.includes(k));
        if (shared !== undefined) out.push([i, j, shared]);
      }
    }
    return out;
  };
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const many = Array.from({ length: 400 }, () => f(`h${next(25)}`, `d${next(4)}`, Array.from({ length: 1 + next(3) }, () => `pid:${next(6)}`)));
  t.same(linkedPairs(many), bruteForce(many), "400 findings on 25 hosts: the same pairs in the same order");
});

test("only info findings: benign (or inconclusive by coverage), never suspicious at severity info", async (t) => {
  const { verdictFor } = await import("../../shared/engine/severity.js");
  const full = { coverage: coverage(3), hostsWithRows: 3, tableCoverage: 1 };
  t.equal(verdictFor("info", 4, full), "benign", "four observations, nothing that alerts");
  t.equal(verdictFor("info", 4, { ...full, coverage: coverage(1, ["a2", "a3"]), hostsWithRows: 1 }), "inconclusive");
  t.equal(verdictFor("low", 1, full), "suspicious");
  t.equal(verdictFor("high", 1, full), "malicious");
  // Through the engine: a packaged program on a port nobody lists is an inventory note at info.
  const plan = routeQuery("are any hosts listening on unexpected ports?", "standard");
  const inventory = host({ listening_ports: [{ pid: "7", port: "8123", protocol: "6", family: "2", address: "0.0.0.0", fd: "3", socket: "0", path: "" }], processes: [proc(7, "acme-agent", "/usr/bin/acme-agent")] });
  const r = runInvestigation(plan, [inventory], coverage(1), "standard");
  t.ok(r.findings.length > 0 && r.findings.every((f) => f.severity === "info"), "only info findings");
  t.equal(r.verdict, "benign");
  t.match(r.narrative, /Verdict: benign: nothing above info fired/);
});
