// Per-subscription concurrency in the dispatcher: a limit per key, a bounded queue, and a back-off that grows
// with how long the key's backlog takes to drain.
import { test } from "tap";
import { KeyLimiter } from "../../services/dispatcher/key-limiter.js";

const deferred = () => {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

test("at most `limit` tasks of one key run at once; others wait; other keys are not held up", async (t) => {
  const limiter = new KeyLimiter({ limit: 2, queue: 2, minBackoffMs: 100, maxBackoffMs: 30_000, random: () => 0 });
  const gates = Array.from({ length: 4 }, deferred);
  const started: number[] = [];
  const admissions = gates.map((g, i) => limiter.submit("slow", async () => { started.push(i); await g.promise; }));
  t.ok(admissions.every((a) => a.kind === "accepted"));
  t.same(started, [0, 1], "two run");
  t.same(limiter.load("slow"), { active: 2, waiting: 2 });
  const refused = limiter.submit("slow", async () => {});
  t.equal(refused.kind, "refused", "queue full");
  let other = false;
  const o = limiter.submit("fast", async () => { other = true; });
  t.equal(o.kind, "accepted");
  if (o.kind === "accepted") await o.done;
  t.ok(other, "another key runs at once");
  gates[0]?.resolve();
  if (admissions[0]?.kind === "accepted") await admissions[0].done;
  await new Promise((r) => setImmediate(r));
  t.same(started, [0, 1, 2], "a freed slot goes to the next waiting task");
  for (const g of gates) g.resolve();
  await Promise.all(admissions.map((a) => (a.kind === "accepted" ? a.done : null)));
  t.same(limiter.load("slow"), { active: 0, waiting: 0 });
});

test("with a shared total, no key holds more than the total has left free: two slow keys leave room for a third", async (t) => {
  const limiter = new KeyLimiter({ limit: 4, queue: 4, total: 8, minBackoffMs: 100, maxBackoffMs: 30_000, random: () => 0 });
  const hang = deferred();
  const fill = (key: string): number => {
    let accepted = 0;
    for (let i = 0; i < 10; i++) if (limiter.submit(key, () => hang.promise).kind === "accepted") accepted++;
    return accepted;
  };
  t.equal(fill("slow-a"), 4, "the first: half of the total");
  t.equal(fill("slow-b"), 2, "the second: half of what is left");
  let ran = false;
  const other = limiter.submit("healthy", async () => { ran = true; });
  t.equal(other.kind, "accepted", "a third key still finds room");
  if (other.kind === "accepted") await other.done;
  t.ok(ran);
  hang.resolve();
});

test("the back-off follows the key's drain time, within bounds", async (t) => {
  const limiter = new KeyLimiter({ limit: 1, queue: 1, minBackoffMs: 100, maxBackoffMs: 5_000, random: () => 0 });
  const quick = limiter.submit("k", async () => {});
  if (quick.kind === "accepted") await quick.done;
  const g1 = deferred();
  const g2 = deferred();
  limiter.submit("k", () => g1.promise);
  limiter.submit("k", () => g2.promise);
  const r = limiter.submit("k", async () => {});
  t.same(r, { kind: "refused", backoffMs: 100 }, "a fast key: the minimum");
  g1.resolve();
  g2.resolve();
  await new Promise((res) => setTimeout(res, 10));

  const slow = new KeyLimiter({ limit: 1, queue: 1, minBackoffMs: 100, maxBackoffMs: 5_000, random: () => 0 });
  const a = slow.submit("k", () => new Promise((res) => setTimeout(res, 300)));
  if (a.kind === "accepted") await a.done;
  const h1 = deferred();
  slow.submit("k", () => h1.promise);
  slow.submit("k", async () => {});
  const refused = slow.submit("k", async () => {});
  t.ok(refused.kind === "refused" && refused.backoffMs >= 500 && refused.backoffMs <= 5_000, `a slow key backs off longer (${refused.kind === "refused" ? refused.backoffMs : "-"} ms)`);
  h1.resolve();
});

test("idle keys are forgotten after the idle TTL (keys come and go with subscriptions)", async (t) => {
  const clock = { t: 0 };
  const limiter = new KeyLimiter({ limit: 1, queue: 1, minBackoffMs: 100, maxBackoffMs: 5_000, idleTtlMs: 60_000, now: () => clock.t, random: () => 0 });
  for (let i = 0; i < 100; i++) {
    const a = limiter.submit(`sub_${i}`, async () => {});
    if (a.kind === "accepted") await a.done;
  }
  t.equal(limiter.size, 100, "recently idle keys keep their state for a while");
  const g = deferred();
  const busy = limiter.submit("busy", () => g.promise);
  clock.t += 61_000;
  const fresh = limiter.submit("new", async () => {});
  if (fresh.kind === "accepted") await fresh.done;
  t.equal(limiter.size, 2, "the 100 idle keys are gone; the busy key and the new one stay");
  t.same(limiter.load("busy"), { active: 1, waiting: 0 }, "a busy key is never dropped");
  clock.t += 61_000;
  limiter.submit("other", async () => {});
  t.same(limiter.load("busy"), { active: 1, waiting: 0 }, "however long it runs");
  g.resolve();
  if (busy.kind === "accepted") await busy.done;
  clock.t += 61_000;
  const last = limiter.submit("last", async () => {});
  if (last.kind === "accepted") await last.done;
  t.equal(limiter.size, 1, "once idle past the TTL, it goes too");

  const immediate = new KeyLimiter({ limit: 1, queue: 1, minBackoffMs: 100, maxBackoffMs: 5_000, idleTtlMs: 0 });
  const x = immediate.submit("k", async () => {});
  if (x.kind === "accepted") await x.done;
  t.equal(immediate.size, 0, "idleTtlMs 0: an idle key is dropped at once");
});
