// The subscription copy's freshness checks (services/dispatcher/freshness-checks.ts): a caller waits for one check
// that started at or after its input arrived, shared with every caller it can serve, never for one that started
// before and then another.
import { test } from "tap";
import { FreshnessChecks } from "../../services/dispatcher/freshness-checks.js";

/** A check that ends when the test says so, and when it started on the test's clock. */
interface HeldCheck {
  startedAt: number;
  end(): void;
  fail(err: Error): void;
}

function harness(maxRunning = 4): { checks: FreshnessChecks; started: HeldCheck[]; clock: { now: number } } {
  const clock = { now: 0 };
  const started: HeldCheck[] = [];
  const check = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      started.push({ startedAt: clock.now, end: resolve, fail: reject });
    });
  return { checks: new FreshnessChecks(check, { maxRunning, now: () => clock.now }), started, clock };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Whether `p` has settled by now. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await tick();
  return done;
}

test("a caller whose input arrived while a check ran starts its own at once and waits only for that one", async (t) => {
  const { checks, started, clock } = harness();
  clock.now = 10;
  const first = checks.after(10);
  await tick();
  t.equal(started.length, 1, "the first caller starts a check");
  clock.now = 11;
  const second = checks.after(11);
  await tick();
  t.equal(started.length, 2, "the second caller does not wait for the running check (it started before its input arrived)");
  started[1]?.end();
  t.ok(await settled(second), "the second caller is answered by its own check while the first is still running");
  t.notOk(await settled(first), "the first caller still waits for the check that can answer it");
  started[0]?.end();
  t.ok(await settled(first));
});

test("callers whose input arrived before a check started share it", async (t) => {
  const { checks, started, clock } = harness();
  clock.now = 5;
  const waiting = [checks.after(1), checks.after(3), checks.after(5)];
  await tick();
  t.equal(started.length, 1, "one check for the three");
  started[0]?.end();
  for (const w of waiting) t.ok(await settled(w));
  t.equal(started.length, 1);
  t.ok(await settled(checks.after(5)), "a caller from before the last finished check's start needs no new check");
  t.equal(started.length, 1);
});

test("a caller waits for the earliest running check that started after its input, not a later one", async (t) => {
  const { checks, started, clock } = harness();
  clock.now = 1;
  void checks.after(1);
  clock.now = 2;
  void checks.after(2);
  await tick();
  t.equal(started.length, 2);
  const caller = checks.after(1.5);
  await tick();
  t.equal(started.length, 2, "the check started at 2 covers input from 1.5: nothing new starts");
  started[1]?.end();
  t.ok(await settled(caller), "answered by the check started at 2, with the one at 1 still running");
});

test("at most maxRunning checks run at once; a caller beyond them waits for room, then starts its own", async (t) => {
  const { checks, started, clock } = harness(2);
  clock.now = 1;
  void checks.after(1);
  clock.now = 2;
  void checks.after(2);
  clock.now = 3;
  const third = checks.after(3);
  await tick();
  t.equal(started.length, 2, "two run; the third caller waits");
  started[0]?.end();
  await tick();
  t.equal(started.length, 3, "room made: the third caller starts its check (those running began before its input)");
  t.equal(started[2]?.startedAt, 3);
  t.notOk(await settled(third));
  started[2]?.end();
  t.ok(await settled(third));
});

test("a check that fails fails the callers waiting on it; the next caller starts another", async (t) => {
  const { checks, started, clock } = harness();
  clock.now = 1;
  const a = checks.after(1);
  const b = checks.after(1);
  await tick();
  started[0]?.fail(new Error("bus down"));
  await t.rejects(a, /bus down/);
  await t.rejects(b, /bus down/);
  clock.now = 2;
  const c = checks.after(1);
  await tick();
  t.equal(started.length, 2, "a new check for the next caller");
  started[1]?.end();
  t.ok(await settled(c));
});
