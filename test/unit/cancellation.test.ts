// Cancellation (shared/cancellation.ts): many waits ended by one signal, one listener, nothing kept of a finished wait.
import { getEventListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { test } from "tap";
import { Cancellation } from "../../shared/cancellation.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Races `n` waits that each resolve with an object of its own, and returns weak references to those objects. */
async function raceMany(cancellation: Cancellation, n: number): Promise<Array<WeakRef<object>>> {
  const refs: Array<WeakRef<object>> = [];
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const reply = { i, bytes: new Uint8Array(1024) };
      refs.push(new WeakRef(reply));
      const got = await cancellation.race(new Promise<object>((r) => setTimeout(() => r(reply), 1)));
      if (got !== reply) throw new Error("the race did not give the wait's outcome");
    }),
  );
  return refs;
}

test("a finished wait keeps nothing: its outcome can be collected while the batch goes on", async (t) => {
  const controller = new AbortController();
  const cancellation = new Cancellation(controller.signal);
  const refs = await raceMany(cancellation, 500);
  await turn();
  gc();
  await turn();
  const kept = refs.filter((r) => r.deref() !== undefined).length;
  // With one pending `aborted` promise raced by every wait, all 500 replies stayed reachable until it settled.
  t.equal(kept, 0, `replies still reachable while the batch is open: ${kept} of 500`);
  t.equal(cancellation.open, 0, "no wait left open");
  t.equal(getEventListeners(controller.signal, "abort").length, 1, "one listener for the whole batch");
  cancellation.release();
  t.equal(getEventListeners(controller.signal, "abort").length, 0, "released: no listener left");
});

test("an abort ends every open wait with null; their later outcomes are ignored", async (t) => {
  const controller = new AbortController();
  const cancellation = new Cancellation(controller.signal);
  const settle: Array<() => void> = [];
  const waits = Array.from({ length: 20 }, () => cancellation.race(new Promise<string>((r) => settle.push(() => r("late")))));
  t.equal(cancellation.open, 20);
  controller.abort();
  t.same(await Promise.all(waits), Array(20).fill(null), "each wait ends with null");
  t.equal(cancellation.open, 0);
  for (const s of settle) s();
  t.equal(await cancellation.race(Promise.resolve("after")), null, "a wait begun after the abort is null at once");
});

test("a failing wait rejects; one begun after the abort does not leave an unhandled rejection", async (t) => {
  const controller = new AbortController();
  const cancellation = new Cancellation(controller.signal);
  await t.rejects(cancellation.race(Promise.reject(new Error("no responders"))), /no responders/);
  t.equal(cancellation.open, 0);
  controller.abort();
  let unhandled = 0;
  const count = (): void => void unhandled++;
  process.on("unhandledRejection", count);
  t.equal(await cancellation.race(Promise.reject(new Error("ignored"))), null);
  await turn();
  process.off("unhandledRejection", count);
  t.equal(unhandled, 0);
});
