import fc from "fast-check";
import { test } from "tap";
import { DETECTIONS, extractEntities, getDetection, routeQuery, sweepDetections } from "../../shared/engine/index.js";

test("lexicon: listening words route to unexpected-listener", async (t) => {
  for (const q of ["Which hosts are LISTENING on odd ports?", "any open port I should know about", "show ports"]) {
    const plan = routeQuery(q, "standard");
    t.ok(plan.detection_ids.includes("unexpected-listener"), q);
    t.equal(plan.route, "detections", q);
    t.ok(plan.routing_rationale.some((r) => r.includes("unexpected-listener")), "rationale names the match");
  }
});

test("lexicon: word boundaries, not substrings", async (t) => {
  const plan = routeQuery("summarise the transport layer minerals report", "quick");
  t.notOk(plan.routing_rationale.some((r) => r.includes("→ unexpected-listener")), "'transport' is not 'port'");
  t.notOk(plan.routing_rationale.some((r) => r.includes("→ cryptominer")), "'minerals' is not 'miner'");
  t.equal(plan.routing_rationale.length, 1);
  t.match(plan.routing_rationale[0], /broad sweep/, "falls back to the broad sweep");
  t.same(routeQuery("summarise the transport layer report", "quick").detection_ids, plan.detection_ids, "same sweep");
  t.ok(routeQuery("open ports?", "quick").routing_rationale.some((r) => r.includes("→ unexpected-listener")), "the real word matches");
});

test("lexicon: persistence pulls in every persistence detection", async (t) => {
  const plan = routeQuery("look for persistence", "standard");
  const persistence = DETECTIONS.filter((d) => d.category === "persistence").map((d) => d.id).sort();
  t.ok(persistence.length >= 5);
  for (const id of persistence) t.ok(plan.detection_ids.includes(id), id);
  t.notOk(plan.detection_ids.includes("cryptominer"));
});

test("lexicon: specific persistence words and miners", async (t) => {
  t.ok(routeQuery("new cron jobs?", "quick").detection_ids.includes("suspicious-cron"));
  t.ok(routeQuery("unknown ssh key on root", "quick").detection_ids.includes("ssh-authorized-key"));
  t.ok(routeQuery("any SUID binaries?", "quick").detection_ids.includes("unexpected-suid"));
  t.ok(routeQuery("kernel module loaded recently", "quick").detection_ids.includes("unexpected-kernel-module"));
  t.ok(routeQuery("odd systemd services", "quick").detection_ids.includes("suspicious-systemd-unit"));
  const miners = ["cryptominer", "deleted-binary-running", "exec-from-tmp", "fake-kernel-thread", "hidden-system-path-exec", "process-masquerading"];
  t.same(routeQuery("is anyone mining monero", "quick").detection_ids, miners, "miners and the ways miners hide");
  t.same(routeQuery("crypto miner?", "quick").detection_ids, miners);
  const rationale = routeQuery("any cryptominers?", "quick").routing_rationale;
  t.equal(rationale.filter((r) => r.includes('"cryptominer"')).length, 1, `a phrase several detections list is said once: ${rationale.join(" | ")}`);
  t.match(rationale.find((r) => r.includes('"cryptominer"')), new RegExp(`→ ${miners.join(", ")}$`), "naming every detection it chose");
});

test("pathfinder words without a seed never run the pathfinder alone: the sweep runs with it", async (t) => {
  const only = routeQuery("who is connected to whom", "standard");
  t.equal(only.route, "both");
  t.equal(only.sweep, true);
  t.same(only.detection_ids, sweepDetections());
  t.ok(only.tables.includes("process_open_sockets"), "pathfinder tables requested");
  const both = routeQuery("did the miner spread to other hosts?", "standard");
  t.equal(both.route, "both");
  t.ok(both.detection_ids.includes("cryptominer"));
});

test("entities are extracted and seed the pathfinder", async (t) => {
  const sha = "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f";
  const e = extractEntities(
    `Did 203.0.113.66 or 10.0.0.5:8443 touch /tmp/.x/run? hash ${sha.toUpperCase()}, CVE-2024-3094 and GHSA-jfh8-c2jp-5v3q, user mallory, ports 4444 and 3333, env=prod role=web. Not 999.1.1.1.`,
  );
  t.same(e.ips, ["10.0.0.5", "203.0.113.66"]);
  t.same(e.sha256, [sha]);
  t.same(e.advisories, ["CVE-2024-3094", "GHSA-jfh8-c2jp-5v3q"]);
  t.same(e.users, ["mallory"]);
  t.same(e.ports, [3333, 4444, 8443]);
  t.same(e.paths, ["/tmp/.x/run"]);
  t.same(e.tags, { env: "prod", role: "web" });
  t.same(extractEntities("which user is logged in from port forwarding").users, [], "stopwords are not user names");

  const plan = routeQuery("is 203.0.113.66 talking to us?", "standard");
  t.equal(plan.route, "both", "an indicator seeds the pathfinder and is matched exactly");
  t.ok(plan.detection_ids.includes("ioc-match"), "the indicator is matched exactly");
  t.equal(plan.sweep, true, "an indicator alone: the sweep runs beside it, so what carries it is explained");
  const both = routeQuery("reverse shell to 203.0.113.66?", "standard");
  t.equal(both.route, "both");
  t.same(both.detection_ids, ["ioc-match", "reverse-shell"]);
  const cve = routeQuery("are we exposed to CVE-2024-6387", "standard");
  t.ok(cve.detection_ids.includes("vulnerable-package"));
});

test("nothing specific: the broad sweep of every family at every depth, and a rationale saying so", async (t) => {
  for (const depth of ["quick", "standard", "deep"] as const) {
    const plan = routeQuery("anything odd?", depth);
    t.equal(plan.route, "detections");
    t.equal(plan.sweep, true);
    t.same(plan.detection_ids, sweepDetections(), `${depth}: every family`);
    t.match(plan.routing_rationale.join(" "), /broad sweep/);
  }
  t.equal(sweepDetections().length, DETECTIONS.length - 2, "all but the question-driven ioc-match and vulnerable-package");
  const categories = new Set(DETECTIONS.map((d) => d.category));
  const swept = new Set(sweepDetections().map((id) => getDetection(id)?.category));
  for (const c of categories) if (c !== "indicator" && c !== "vulnerability") t.ok(swept.has(c), `the sweep keeps the ${c} family`);
  const user = routeQuery("did user mallory do anything?", "standard");
  t.equal(user.sweep, true, "a user with no technique sweeps, seeded at the user");
  t.equal(user.route, "both");
});

test("stems and intents: inflections and the way analysts say things", async (t) => {
  const cases: Array<[string, string]> = [
    ["did they move laterally?", "lateral-admin-connection"],
    ["did an attacker move laterally over ssh between the shop servers?", "remote-root-login"],
    ["is there a scheduled unit that downloads and runs something?", "suspicious-systemd-unit"],
    ["any suspicious systemd timers?", "suspicious-systemd-unit"],
    ["anything scheduled to run every few minutes?", "suspicious-cron"],
    ["is something hiding processes?", "ld-so-preload"],
    ["who was logging in as root", "remote-root-login"],
    ["is someone remotely controlling a shell on web-03?", "reverse-shell"],
    ["are they covering their tracks", "log-wiping"],
    ["something pretending to be a system process", "process-masquerading"],
    ["can anyone become root without a password", "sudoers-nopasswd-all"],
    ["what is eating all the CPU", "cryptominer"],
  ];
  for (const [q, id] of cases) {
    const plan = routeQuery(q, "standard");
    if (getDetection(id)) t.ok(plan.detection_ids.includes(id), `${q} -> ${id}`, { rationale: plan.routing_rationale });
  }
});

test("tables are the sorted unique union of what the detections need", async (t) => {
  const plan = routeQuery("cron, suid and listening ports", "standard");
  const expected = new Set<string>();
  for (const id of plan.detection_ids) for (const table of getDetection(id)?.tables ?? []) expected.add(table);
  t.same(plan.tables, [...expected].sort());
  t.same(plan.tables, [...new Set(plan.tables)].sort(), "sorted and unique");
  t.equal(plan.query, "cron, suid and listening ports");
});

test("routing never throws and always yields a well-formed plan", async (t) => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), fc.constantFrom("quick", "standard", "deep" as const), (q, depth) => {
      const plan = routeQuery(q, depth);
      const sorted = [...new Set(plan.tables)].sort();
      return (
        ["detections", "pathfinder", "both"].includes(plan.route) &&
        JSON.stringify(plan.tables) === JSON.stringify(sorted) &&
        plan.detection_ids.every((id) => getDetection(id) !== undefined) &&
        plan.routing_rationale.length > 0 &&
        plan.detection_ids.length > 0 &&
        JSON.stringify(routeQuery(q, depth)) === JSON.stringify(plan)
      );
    }),
    { seed: 20241120, numRuns: 300 },
  );
  t.pass("300 random questions");
});
