// forEachLimited: at most `limit` jobs at once, every job started, the first failure thrown after the others settle.
import { test } from "tap";
import { forEachLimited } from "../../shared/concurrency.js";

const tick = () => new Promise((r) => setTimeout(r, 1));

test("runs every item, never more than `limit` at once", async (t) => {
  let inFlight = 0;
  let max = 0;
  const done: number[] = [];
  await forEachLimited(Array.from({ length: 40 }, (_, i) => i), 5, async (i) => {
    inFlight++;
    max = Math.max(max, inFlight);
    await tick();
    inFlight--;
    done.push(i);
  });
  t.equal(done.length, 40);
  t.equal(max, 5);
  await forEachLimited([], 5, async () => void t.fail("no items, no jobs"));
});

test("a failure stops starting new jobs and is thrown once the started ones settled", async (t) => {
  let running = 0;
  const started: number[] = [];
  await t.rejects(
    forEachLimited([1, 2, 3, 4, 5, 6], 2, async (i) => {
      started.push(i);
      running++;
      await tick();
      running--;
      if (i === 2) throw new Error("boom");
    }),
    { message: "boom" },
  );
  t.equal(running, 0, "nothing left running behind the caller");
  t.ok(started.length < 6, `no new job after the failure (${started.join(",")})`);
});

test("items made as they are asked for: every one runs, within the limit, in order of asking", async (t) => {
  let made = 0;
  async function* pages(): AsyncGenerator<number> {
    for (let page = 0; page < 4; page++) {
      await tick();
      for (let i = 0; i < 10; i++) {
        made++;
        yield page * 10 + i;
      }
    }
  }
  let inFlight = 0;
  let max = 0;
  const started: number[] = [];
  await forEachLimited(pages(), 3, async (i) => {
    started.push(i);
    inFlight++;
    max = Math.max(max, inFlight);
    await tick();
    inFlight--;
  });
  t.same(started, Array.from({ length: 40 }, (_, i) => i), "every item, started in order");
  t.equal(made, 40);
  t.equal(max, 3, "the window spans the pages (never more than the limit)");
});

test("items that fail to be made: the failure is thrown once the started jobs settled", async (t) => {
  async function* broken(): AsyncGenerator<number> {
    yield 1;
    yield 2;
    throw new Error("the next page could not be read");
  }
  let running = 0;
  const done: number[] = [];
  await t.rejects(
    forEachLimited(broken(), 4, async (i) => {
      running++;
      await tick();
      running--;
      done.push(i);
    }),
    { message: "the next page could not be read" },
  );
  t.equal(running, 0, "nothing left running behind the caller");
  t.same(done.sort(), [1, 2], "the jobs already started finished");
});
