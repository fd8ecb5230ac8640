// followBucket's reopen loop against a bucket whose watch ends (the library's ordered consumer gives up after its
// re-creates fail): stopping it must stop every watch it opened, and must not wait out the reopen's delay. A stand-in
// KV: ending a real watch's iterator on cue is not something a nats-server can be asked to do.
import { test } from "tap";
import pino from "pino";
import type { KV } from "@nats-io/kv";
import { followBucket } from "../../shared/nats/follow.js";

interface FakeWatch {
  stopped: boolean;
  stop(): void;
  end(): void;
  [Symbol.asyncIterator](): AsyncIterator<never>;
}

function fakeWatch(): FakeWatch {
  let done = false;
  let wake: (() => void) | null = null;
  const w: FakeWatch = {
    stopped: false,
    stop() {
      w.stopped = true;
      done = true;
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      while (!done) await new Promise<void>((r) => (wake = r));
    },
  };
  return w;
}

/** A bucket with nothing in it whose second and later watches take `reopenMs` to open. */
function fakeKv(reopenMs: number): { kv: KV; watches: FakeWatch[] } {
  const watches: FakeWatch[] = [];
  const kv = {
    status: async () => ({ bucket: "fake", values: 0, streamInfo: { config: {}, state: { messages: 0, first_seq: 0, last_seq: 0 } } }),
    watch: async () => {
      if (watches.length > 0) await new Promise((r) => setTimeout(r, reopenMs));
      const w = fakeWatch();
      watches.push(w);
      return w;
    },
  };
  return { kv: kv as unknown as KV, watches };
}

const log = pino({ level: "silent" });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("stopped while it waits to reopen: no watch is opened, and stop does not wait the delay out", async (t) => {
  const { kv, watches } = fakeKv(0);
  const f = await followBucket(kv, log, () => {});
  watches[0]?.end();
  await sleep(50);
  let stopped = false;
  const stopping = f.stop().then(() => (stopped = true));
  await sleep(100); // well under the 500 ms reopen delay
  t.ok(stopped, "stop returned without waiting for the delay");
  await stopping;
  await sleep(600);
  t.equal(watches.length, 1, "no watch opened after stop");
});

test("stopped while a reopen is opening: the reopened watch is stopped too", async (t) => {
  const { kv, watches } = fakeKv(400);
  const f = await followBucket(kv, log, () => {});
  watches[0]?.end();
  await sleep(700); // past the delay: the reopen is in flight
  await f.stop();
  t.equal(watches.length, 2, "one reopen");
  t.ok(watches[1]?.stopped, "the reopened watch is stopped (it would live on, queueing every change)");
});
