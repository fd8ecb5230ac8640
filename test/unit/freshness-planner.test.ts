// The trigger's planner (shared/engine/planner.ts): the tables a question reads, as the router says, remembered for
// the last 256 questions asked so that a question asked again is not routed again.
import { test } from "tap";
import { engineFreshnessPlanner, rememberingPlanner } from "../../shared/engine/planner.js";
import { routeQuery } from "../../shared/engine/router.js";

function counted(): { route: (q: string, d: "quick" | "standard" | "deep") => string[]; calls: () => number } {
  let calls = 0;
  return {
    route: (q, d) => {
      calls++;
      return [`${d}:${q.slice(0, 8)}`];
    },
    calls: () => calls,
  };
}

test("the engine's planner answers as the router does", async (t) => {
  for (const q of ["are any prod hosts listening on unexpected ports?", "any cryptominers?", "who logged in as root from outside?", "does 1.2.3.4 show up anywhere?"]) {
    for (const d of ["quick", "standard", "deep"] as const) {
      t.same(engineFreshnessPlanner.tablesFor(q, d), routeQuery(q, d).tables, `${d}: ${q}`);
      t.same(engineFreshnessPlanner.tablesFor(q, d), routeQuery(q, d).tables, `${d}: ${q}, asked again`);
    }
  }
});

test("a question asked again is not routed again; its depth is part of the question", async (t) => {
  const r = counted();
  const planner = rememberingPlanner(r.route);
  const first = planner.tablesFor("any cryptominers?", "quick");
  t.same(planner.tablesFor("any cryptominers?", "quick"), first);
  t.equal(r.calls(), 1, "routed once");
  t.ok(Object.isFrozen(first), "the remembered answer cannot be changed by a caller");
  planner.tablesFor("any cryptominers?", "deep");
  t.equal(r.calls(), 2, "another depth is another question");
});

test("the last 256 questions are kept, the least recently asked forgotten first; a very long one is never kept", async (t) => {
  const r = counted();
  const planner = rememberingPlanner(r.route);
  planner.tablesFor("question 0", "standard");
  for (let i = 1; i < 256; i++) planner.tablesFor(`question ${i}`, "standard");
  planner.tablesFor("question 0", "standard"); // asked again: now the most recent
  t.equal(r.calls(), 256);
  planner.tablesFor("question 256", "standard"); // one over: question 1 is forgotten
  planner.tablesFor("question 0", "standard");
  t.equal(r.calls(), 257, "question 0, asked lately, still known");
  planner.tablesFor("question 1", "standard");
  t.equal(r.calls(), 258, "question 1, the least recently asked, was forgotten");
  const long = "x".repeat(2_049);
  planner.tablesFor(long, "standard");
  planner.tablesFor(long, "standard");
  t.equal(r.calls(), 260, "a question over 2,048 characters is routed each time");
});
