// How much of the agent registry one agent may take (services/runner/registry-limits.ts), without NATS.
import { test } from "tap";
import { RegistryLimits } from "../../services/runner/registry-limits.js";

const opts = { handlers: 8, perAgent: 2, writeBurst: 3, writeEveryMs: 1_000 };

test("one agent has at most perAgent messages in hand; another agent is not held up by it", async (t) => {
  const limits = new RegistryLimits(opts);
  t.ok(limits.enter("a"));
  t.ok(limits.enter("a"));
  t.notOk(limits.enter("a"), "a third of the same agent: refused");
  t.ok(limits.enter("b"), "another agent: taken");
  limits.leave("a");
  t.ok(limits.enter("a"), "one answered: room for one more");
  limits.leave("a");
  limits.leave("a");
  limits.leave("b");
  t.equal(limits.tracked, 0, "nothing kept for agents with nothing in hand");
});

test("writes: a burst, then one per writeEveryMs; an idle agent's bucket fills again and is forgotten", async (t) => {
  const limits = new RegistryLimits(opts);
  const T = 1_000_000;
  t.same([1, 2, 3, 4].map(() => limits.takeWrite("a", T)), [true, true, true, false], "the burst, then none");
  t.ok(limits.takeWrite("b", T), "another agent has its own");
  t.notOk(limits.takeWrite("a", T + 999), "not yet a whole write back");
  t.ok(limits.takeWrite("a", T + 1_000), "one back after writeEveryMs");
  t.notOk(limits.takeWrite("a", T + 1_000));
  t.notOk(limits.takeWrite("a", T - 60_000), "a clock set back gives nothing back");
  t.same([1, 2, 3, 4].map(() => limits.takeWrite("a", T + 10_000)), [true, true, true, false], "refilled to the burst, never past it");
  t.equal(limits.tracked, 1, "b's bucket, full again, was forgotten (a sweep once a whole bucket's refill time went by)");
  limits.takeWrite("c", T + 60_000);
  t.equal(limits.tracked, 1, "and a's since: only c's is kept");
});
