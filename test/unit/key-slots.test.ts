// Per-key slots (services/dispatcher/key-slots.ts): requests in flight per subscription, and jobs under KeyLimiter.
import { test } from "tap";
import { KeySlots, SlotAbandoned } from "../../services/dispatcher/key-slots.js";

/** A request that ends when the test says so. */
function held(): { promise: Promise<string>; end(v: string): void; fail(e: Error): void } {
  let end: (v: string) => void = () => {};
  let fail: (e: Error) => void = () => {};
  const promise = new Promise<string>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return { promise, end, fail };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test("at most `limit` requests of one key run at once; the rest start in arrival order as slots free", async (t) => {
  const slots = new KeySlots(2);
  const started: number[] = [];
  const requests = [0, 1, 2, 3].map(() => held());
  const results = requests.map((r, i) =>
    slots.run("sub_a", () => {
      started.push(i);
      return r.promise;
    }),
  );
  await tick();
  t.same(started, [0, 1], "two start");
  t.equal(slots.inFlight("sub_a"), 2);
  t.equal(slots.waiting("sub_a"), 2);
  requests[1]?.end("one");
  t.equal(await results[1], "one", "the result is the request's");
  await tick();
  t.same(started, [0, 1, 2], "the next in line takes the freed slot");
  requests[0]?.fail(new Error("refused"));
  await t.rejects(results[0] as Promise<string>, /refused/, "a failure is the caller's, and frees the slot too");
  await tick();
  t.same(started, [0, 1, 2, 3]);
  t.equal(slots.inFlight("sub_a"), 2, "never more than the limit");
  requests[2]?.end("two");
  requests[3]?.end("three");
  t.same(await Promise.all(results.slice(2)), ["two", "three"]);
  t.equal(slots.inFlight("sub_a"), 0);
  t.equal(slots.waiting("sub_a"), 0, "a key with nothing in flight is forgotten");
});

test("keys are independent: one subscription's full slots never hold up another's", async (t) => {
  const slots = new KeySlots(1);
  const slow = held();
  const first = slots.run("slow", () => slow.promise);
  const queued = slots.run("slow", async () => "queued");
  t.equal(await slots.run("fast", async () => "fast"), "fast");
  t.equal(slots.waiting("slow"), 1);
  slow.end("slow");
  t.same(await Promise.all([first, queued]), ["slow", "queued"]);
});

test("abandonWaiting: the key's waiting tasks never run and reject with SlotAbandoned; running ones go on", async (t) => {
  const slots = new KeySlots(1);
  const running = held();
  const started: string[] = [];
  const first = slots.run("sub_a", () => {
    started.push("first");
    return running.promise;
  });
  const waiters = ["second", "third"].map((name) =>
    slots.run("sub_a", async () => {
      started.push(name);
      return name;
    }),
  );
  const other = slots.run("sub_b", () => held().promise);
  await tick();
  t.equal(slots.held(), 4, "running and waiting, over all keys");
  slots.abandonWaiting("sub_a");
  for (const w of waiters) await t.rejects(w, SlotAbandoned);
  t.equal(slots.waiting("sub_a"), 0);
  t.equal(slots.held(), 2, "the abandoned ones are no longer held");
  running.end("first");
  t.equal(await first, "first");
  t.same(started, ["first"], "an abandoned task never runs");
  t.equal(slots.inFlight("sub_a"), 0);
  t.equal(slots.held(), 1, "only sub_b's task");
  slots.abandonWaiting("none");
  void other;
});

test("a limit below 1 is refused", async (t) => {
  t.throws(() => new KeySlots(0), RangeError);
  t.throws(() => new KeySlots(1.5), RangeError);
});
