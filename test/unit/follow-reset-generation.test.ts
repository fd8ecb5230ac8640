// followBucket's generations: when the bucket is found created again (another identity), the copy is emptied and
// followed again from the first entry, and entries the old watch still yields from its buffer after it was stopped
// must not reach the copy (they refilled a reset copy with the old bucket's keys). A stand-in KV: a real watch's
// buffer cannot be made to keep yielding on cue.
import { test } from "tap";
import pino from "pino";
import type { KV } from "@nats-io/kv";
import { BucketMirror } from "../../shared/nats/follow.js";
import { identityDescription } from "../../shared/nats/bucket-identity.js";
import { encodeJson } from "../../shared/nats/kvjson.js";

interface Entry {
  key: string;
  revision: number;
  operation: "PUT";
  value: Uint8Array;
  isUpdate: boolean;
}

const entry = (key: string, revision: number, isUpdate: boolean): Entry => ({ key, revision, operation: "PUT", value: encodeJson({ id: key }), isUpdate });

/** A watch that yields `entries` one per `everyMs`, and after stop() yields up to 300 more (its buffer), then ends. */
function leakyWatch(entries: Entry[], everyMs: number): { stop(): void; [Symbol.asyncIterator](): AsyncIterator<Entry> } {
  let stopped = false;
  let wake: () => void = () => {};
  return {
    stop() {
      stopped = true;
      wake();
    },
    async *[Symbol.asyncIterator]() {
      let after = 0;
      for (const e of entries) {
        if (stopped && ++after > 300) return;
        await new Promise((r) => setTimeout(r, everyMs));
        yield e;
      }
      if (!stopped) await new Promise<void>((r) => (wake = r)); // open until stopped
    },
  };
}

test("entries a stopped watch still yields after the bucket was created again never reach the reset copy", async (t) => {
  let identity = 1;
  let head = 2_000;
  const watches: unknown[] = [];
  const kv = {
    status: async () => ({
      bucket: "fake",
      values: head,
      streamInfo: { config: { description: identityDescription(identity) }, state: { messages: head, first_seq: 1, last_seq: head } },
    }),
    watch: async () => {
      if (watches.length === 0) {
        // The old bucket: 2,000 keys, slowly.
        const w = leakyWatch(Array.from({ length: 2_000 }, (_, i) => entry(`old${i}`, i + 1, i === 0)), 1);
        watches.push(w);
        return w;
      }
      // The new bucket: 3 keys.
      const w = leakyWatch([entry("new0", 1, false), entry("new1", 2, false), entry("new2", 3, true)], 1);
      watches.push(w);
      return w;
    },
  };
  const mirror = new BucketMirror<{ id: string }>(kv as unknown as KV, pino({ level: "silent" }), undefined, undefined, { watchdogMs: 20 });
  await mirror.start();
  await new Promise((r) => setTimeout(r, 100)); // some old keys are in
  t.ok(mirror.size > 0, "the old bucket's keys come in");
  identity = 2; // created again, with a head still past what the copy holds
  const done = Date.now() + 5_000;
  while (watches.length < 2 && Date.now() < done) await new Promise((r) => setTimeout(r, 10));
  t.equal(watches.length, 2, "the watch was opened again");
  await new Promise((r) => setTimeout(r, 500)); // the old watch yields hundreds more meanwhile
  t.same([...mirror.all()].map(([k]) => k).sort(), ["new0", "new1", "new2"], "the copy holds the new bucket's keys only");
  await mirror.stop();
});

test("a copy still loading its bucket when the bucket is created again empty is ready once it starts over", async (t) => {
  // The old bucket's initial values come slowly (its last one, which would make the copy ready, never comes before
  // the bucket is created again); the new bucket holds nothing, so its watch delivers nothing to be ready by.
  let identity = 1;
  let head = 2_000;
  let watches = 0;
  const kv = {
    status: async () => ({
      bucket: "fake",
      values: head,
      streamInfo: { config: { description: identityDescription(identity) }, state: { messages: head, first_seq: head > 0 ? 1 : 0, last_seq: head } },
    }),
    watch: async () => {
      watches++;
      if (watches === 1) return leakyWatch(Array.from({ length: 2_000 }, (_, i) => entry(`old${i}`, i + 1, i === 1_999)), 5);
      return leakyWatch([], 1);
    },
  };
  const mirror = new BucketMirror<{ id: string }>(kv as unknown as KV, pino({ level: "silent" }), undefined, undefined, { watchdogMs: 20 });
  const started = mirror.start().then(() => true);
  await new Promise((r) => setTimeout(r, 100)); // some old keys are in, the copy is not ready
  identity = 2;
  head = 0;
  const ready = await Promise.race([started, new Promise<boolean>((r) => setTimeout(() => r(false), 3_000))]);
  t.ok(ready, "start() resolves: the copy holds the new bucket's values (none)");
  t.equal(mirror.size, 0, "and none of the old bucket's keys");
  await mirror.stop();
});
