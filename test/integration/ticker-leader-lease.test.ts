// The ticker's lease against a real nats-server: a holder counts its lease from when it sent the write, not from
// when the answer came back, so a late answer (a stalled event loop, a slow reply path) cannot make it lead past
// the key's expiry. A stop() that comes while the handover watch is still opening ends it and the lease all the same.
import { test } from "tap";
import type { KV } from "@nats-io/kv";
import pino from "pino";
import { sleep } from "../../shared/clock.js";
import { LEADER_KEY } from "../../shared/curiosity/catalog.js";
import { ensureBucket } from "../../shared/nats/provision.js";
import { LeaderLease } from "../../services/ticker/leader.js";
import { connectTo, startNats } from "../helpers/nats.js";

const TTL_MS = 1_000;
const LAG_MS = 0.7 * TTL_MS;
/**
 * The lost-answer tests at the ticker's own ttl (3 s): after the lost answer the next renewal starts about 0.68 ttl
 * into the lease, and the holder stops counting itself leader at 0.8 ttl, so two round trips and a timer must fit in
 * 0.12 ttl: 115 ms at a 1 s ttl, too little on a loaded machine (a review measured KV reads up to 170 ms there).
 */
const LOST_TTL_MS = 3_000;

/** The bucket, with every answer of a write handed back LAG_MS after it arrived; `sent` is when the last write left. */
function lateAnswers(kv: KV): { kv: KV; sent: () => number } {
  let sent = 0;
  const late = <A extends unknown[]>(write: (...args: A) => Promise<number>) =>
    async (...args: A): Promise<number> => {
      sent = performance.now();
      const revision = await write(...args);
      await sleep(LAG_MS);
      return revision;
    };
  const wrapped = Object.create(kv) as KV;
  wrapped.create = late(kv.create.bind(kv));
  wrapped.update = late(kv.update.bind(kv));
  return { kv: wrapped, sent: () => sent };
}

test("a lease acquired with a late answer is counted from the request: it stops leading by 0.8 ttl after sending", async (t) => {
  const nats = await startNats();
  const nc = await connectTo(nats.url);
  const bucket = await ensureBucket(nc, { name: "lease_late_answer", history: 1, ttl: TTL_MS }, 1);
  const { kv, sent } = lateAnswers(bucket);
  const lease = new LeaderLease({ kv, ttlMs: TTL_MS, holder: "a", log: pino({ level: "silent" }) });
  try {
    await lease.start();
    t.ok(lease.isLeader(), "acquired");
    // The key was stored at most when the request left; 0.85 ttl on, the margin (0.8 ttl) is used up. The renewal
    // comes ttl/3 after the late answer, later than this.
    await sleep(sent() + 0.85 * TTL_MS - performance.now());
    t.notOk(lease.isLeader(), "no longer claims the lease on an answer that took 0.7 ttl");
  } finally {
    await lease.stop();
    await nc.close();
    await nats.stop();
  }
});

/** The bucket, whose next write after `loseNextAnswer()` is stored and then fails as a request whose answer never came. */
function lostAnswers(kv: KV): { kv: KV; loseNextAnswer(): void } {
  let lose = false;
  const lossy = <A extends unknown[]>(write: (...args: A) => Promise<number>) =>
    async (...args: A): Promise<number> => {
      const revision = await write(...args);
      if (lose) {
        lose = false;
        throw Object.assign(new Error("TIMEOUT"), { code: "TIMEOUT" });
      }
      return revision;
    };
  const wrapped = Object.create(kv) as KV;
  wrapped.create = lossy(kv.create.bind(kv));
  wrapped.update = lossy(kv.update.bind(kv));
  return { kv: wrapped, loseNextAnswer: () => (lose = true) };
}

for (const which of ["renewal", "acquire"] as const) {
  test(`a lease ${which} stored with its answer lost: the holder keeps leading from the key's revision`, async (t) => {
    const nats = await startNats();
    const nc = await connectTo(nats.url);
    const bucket = await ensureBucket(nc, { name: `lease_lost_${which}`, history: 1, ttl: LOST_TTL_MS }, 1);
    const { kv, loseNextAnswer } = lostAnswers(bucket);
    const changes: boolean[] = [];
    const lease = new LeaderLease({ kv, ttlMs: LOST_TTL_MS, holder: "a", log: pino({ level: "silent" }), onChange: (leading) => changes.push(leading) });
    const other = new LeaderLease({ kv: bucket, ttlMs: LOST_TTL_MS, holder: "b", log: pino({ level: "silent" }) });
    try {
      if (which === "acquire") loseNextAnswer();
      await lease.start();
      if (which === "renewal") loseNextAnswer();
      await other.start();
      if (which === "acquire") {
        // Its create stood but went unanswered: the next attempt (ttl/3 on) finds the key naming it, long before the
        // key would have expired and let either ticker create it again.
        await sleep(0.6 * LOST_TTL_MS);
        t.ok(lease.isLeader(), "leading from the next attempt, before the key could expire");
      }
      // Three renewals (one per ttl/3) and more: the one whose answer was lost, then ones that conflict with it.
      await sleep(2 * LOST_TTL_MS);
      t.ok(lease.isLeader(), "still leading");
      t.notOk(other.isLeader(), "the other ticker never took over");
      t.same(changes, [true], "leadership changed once: acquired, never lost");
      t.equal(JSON.parse(new TextDecoder().decode((await bucket.get(LEADER_KEY))?.value)).holder, "a", "the key names the holder");
    } finally {
      await other.stop();
      await lease.stop();
      await nc.close();
      await nats.stop();
    }
  });
}

test("stop() while the handover watch is still opening: stop returns, hands the lease over, and stops the watch", async (t) => {
  const nats = await startNats();
  const nc = await connectTo(nats.url);
  const bucket = await ensureBucket(nc, { name: "lease_watch_opening", history: 1, ttl: TTL_MS }, 1);
  // The watch opens only once stop() has been called (a slow server at start, a stop right after start).
  let open: () => void = () => undefined;
  const opening = new Promise<void>((resolve) => (open = resolve));
  let watchStopped = false;
  const kv = Object.create(bucket) as KV;
  kv.watch = async (...args) => {
    await opening;
    const watcher = await bucket.watch(...args);
    const stop = watcher.stop.bind(watcher);
    watcher.stop = (err) => {
      watchStopped = true;
      stop(err);
    };
    return watcher;
  };
  const lease = new LeaderLease({ kv, ttlMs: TTL_MS, holder: "a", log: pino({ level: "silent" }) });
  try {
    await lease.start();
    t.ok(lease.isLeader(), "acquired");
    const stopped = lease.stop();
    open();
    // Well within the ttl, so a key gone by then was handed over, not expired.
    const outcome = await Promise.race([stopped.then(() => "stopped"), sleep(TTL_MS / 2).then(() => "still stopping")]);
    t.equal(outcome, "stopped", "stop() returns");
    t.not((await bucket.get(LEADER_KEY))?.operation, "PUT", "the lease was handed over");
    t.ok(watchStopped, "the watch that opened after stop() was stopped");
  } finally {
    await nc.close();
    await nats.stop();
  }
});
