import { test } from "tap";
import { PATH_BUDGETS, buildGraph, findPaths, routeQuery, runInvestigation } from "../../shared/engine/index.js";
import type { HostData, Row } from "../../shared/engine/index.js";
import { coverage, host, proc, sock } from "./helpers.js";

/** pid 1 spawns 2 spawns 3 ... each with its own uid and binary so the chain is the only way through. */
function chainHost(length: number): HostData {
  const processes: Row[] = [];
  for (let pid = 1; pid <= length; pid++) processes.push(proc(pid, `p${pid}`, `/opt/chain/p${pid}`, `p${pid}`, { parent: String(pid - 1), uid: String(2000 + pid) }));
  return host({ processes }, {}, "chain", "chain");
}

test("budgets: quick 1 hop / 50 nodes, standard 2 / 200, deep 4 / 1000", async (t) => {
  t.same(
    Object.fromEntries(Object.entries(PATH_BUDGETS).map(([k, v]) => [k, [v.hops, v.nodes]])),
    { quick: [1, 50], standard: [2, 200], deep: [4, 1000] },
  );
});

test("hop budgets per depth", async (t) => {
  const graph = buildGraph([chainHost(8)]);
  const seed = graph.processByPid.get("chain|1") ?? "";
  t.ok(seed.startsWith("process:chain:1:"));
  for (const depth of ["quick", "standard", "deep"] as const) {
    const r = findPaths(graph, [seed], depth);
    t.ok(r.max_hops_used <= PATH_BUDGETS[depth].hops, `${depth}: max hops`);
    for (const p of r.paths) t.ok(p.nodes.length - 1 <= PATH_BUDGETS[depth].hops, `${depth}: path length`);
    const deepest = PATH_BUDGETS[depth].hops + 1;
    t.ok(r.paths.some((p) => p.nodes.at(-1)?.startsWith(`process:chain:${deepest}:`)), `${depth}: reaches pid ${deepest}`);
    t.notOk(r.paths.some((p) => p.nodes.some((n) => n.startsWith(`process:chain:${deepest + 1}:`))), `${depth}: not pid ${deepest + 1}`);
  }
});

test("node budgets per depth", async (t) => {
  const processes: Row[] = [proc(1, "hub", "/opt/hub", "hub", { parent: "0" })];
  for (let pid = 2; pid <= 400; pid++) processes.push(proc(pid, `w${pid}`, `/opt/w/${pid}`, `w${pid}`, { parent: "1", uid: String(3000 + pid) }));
  const graph = buildGraph([host({ processes }, {}, "star", "star")]);
  const seed = graph.processByPid.get("star|1") ?? "";
  const quick = findPaths(graph, [seed], "quick");
  t.equal(quick.visited, PATH_BUDGETS.quick.nodes);
  t.equal(quick.truncated, true);
  t.ok(quick.paths.length <= PATH_BUDGETS.quick.paths);
  const standard = findPaths(graph, [seed], "standard");
  t.ok(standard.visited <= PATH_BUDGETS.standard.nodes && standard.visited > PATH_BUDGETS.quick.nodes);
  const deep = findPaths(graph, [seed], "deep");
  t.ok(deep.visited <= PATH_BUDGETS.deep.nodes && deep.visited > PATH_BUDGETS.standard.nodes);
});

test("nodes present on most hosts are reached but not expanded; rare ones are", async (t) => {
  const hosts = ["a", "b", "c", "d"].map((id, i) =>
    host({ processes: [proc(10, "resolver", "/usr/bin/resolver", "resolver", { uid: String(100 + i) }), proc(20, `tool-${id}`, `/opt/${id}/tool`, "tool", { uid: String(200 + i) })],
      process_open_sockets: [sock(10, "10.0.0.2", 53), ...(id === "a" || id === "c" ? [sock(20, "203.0.113.7", 8443)] : [])] }, {}, id, id),
  );
  const graph = buildGraph(hosts);
  const fromDns = findPaths(graph, [graph.processByPid.get("a|10") ?? ""], "deep");
  t.notOk(fromDns.paths.some((p) => p.nodes.some((n) => n.startsWith("process:b:"))), "the shared DNS endpoint does not connect every host");
  const fromRare = findPaths(graph, [graph.processByPid.get("a|20") ?? ""], "standard");
  t.ok(fromRare.paths.some((p) => p.nodes.at(-1)?.startsWith("process:c:20:")), "the rare endpoint links a to c");
  t.notOk(fromRare.paths.some((p) => p.nodes.some((n) => n.startsWith("process:b:") || n.startsWith("process:d:"))));
  // Each kept path carries its nodes as people read them and the relation of each step, for the console's graph.
  const toC = fromRare.paths.find((p) => p.nodes.at(-1)?.startsWith("process:c:20:"));
  t.equal(toC?.labels?.length, toC?.nodes.length, "a label per node");
  t.equal(toC?.links?.length, (toC?.nodes.length ?? 1) - 1, "a link per step");
  t.match(toC?.labels?.[0], /tool-a/, "the process by name, not by its key");
  t.ok(toC?.links?.every((l) => typeof l.type === "string" && l.type !== "related" && typeof l.forward === "boolean"), JSON.stringify(toC?.links));
  t.equal(toC?.explanation, toC?.labels?.map((label, i) => (i === 0 ? label : `${toC.links?.[i - 1]?.forward ? ` —${toC.links?.[i - 1]?.type}→ ` : ` ←${toC.links?.[i - 1]?.type}— `}${label}`)).join(""), "the same path the explanation tells");
});

test("composite link: the same ssh key on two hosts", async (t) => {
  const key = { uid: "0", key: "ssh-ed25519 AAAAC3NzaSharedKey x@y", key_file: "/root/.ssh/authorized_keys" };
  const hosts = [host({ authorized_keys: [key] }, {}, "k1", "k1"), host({ authorized_keys: [key] }, {}, "k2", "k2"), host({}, {}, "k3", "k3"), host({}, {}, "k4", "k4")];
  const graph = buildGraph(hosts);
  const r = findPaths(graph, ["host:k1"], "quick");
  t.ok(r.paths.some((p) => p.nodes.join(">") === "host:k1>host:k2" && p.explanation.includes("same_ssh_key")));
  t.same(r.reached_agents, ["k1", "k2"]);
});

test("proposed_scope: agents reached through their IP but not queried", async (t) => {
  const web = host({ processes: [proc(7, "ssh", "/usr/bin/ssh", "ssh root@10.0.0.50", { uid: "33" })], process_open_sockets: [sock(7, "10.0.0.50", 22)] }, { ip: "10.0.0.11" }, "web", "web");
  const plan = routeQuery("did it spread laterally?", "standard");
  const directory = [
    { agent_id: "web", hostname: "web", tags: { ip: "10.0.0.11" } },
    { agent_id: "backup", hostname: "backup", tags: { ip: "10.0.0.50" } },
  ];
  const r = runInvestigation(plan, [web], coverage(1, ["backup"]), "standard", { directory });
  t.same(r.proposed_scope, { type: "selector", filter: { agent_ids: ["backup"] } });
  t.ok(r.paths.some((p) => p.nodes.at(-1) === "host:backup"));
  t.match(r.narrative, /Reached but not queried: backup/);
  t.ok(r.next_steps.investigation.some((s) => s.includes("backup")));
  const blind = runInvestigation(plan, [web], coverage(1), "standard");
  t.equal(blind.proposed_scope, null, "without an IP map nothing is proposed");
  const detectionsOnly = runInvestigation(routeQuery("ssh sessions", "standard"), [web], coverage(1), "standard", { directory });
  t.same(detectionsOnly.paths, [], "route detections does not walk the graph");
});
