// The once-only claim of an EDR signature (shared/inbound/replay-guard.ts) when the bucket's answer is lost: a
// create the server stored but did not confirm must not make the sender's retry of the same request a "replay".
import { JetStreamApiError } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { test } from "tap";
import { ReplayGuard } from "../../shared/inbound/replay-guard.js";

/** An in-memory bucket whose next create is stored and then fails as a timed-out request would. */
function flakyBucket(): { kv: KV; loseNextAnswer(): void } {
  const entries = new Map<string, Uint8Array>();
  let lose = false;
  const kv = {
    create(key: string, value: Uint8Array): Promise<number> {
      if (entries.has(key)) return Promise.reject(new JetStreamApiError({ code: 400, err_code: 10071, description: "wrong last sequence: 1" }));
      entries.set(key, value);
      if (lose) {
        lose = false;
        return Promise.reject(Object.assign(new Error("TIMEOUT"), { code: "TIMEOUT" }));
      }
      return Promise.resolve(1);
    },
    get(key: string) {
      const value = entries.get(key);
      return Promise.resolve(value === undefined ? null : { key, value, revision: 1, operation: "PUT" });
    },
  };
  return { kv: kv as unknown as KV, loseNextAnswer: () => (lose = true) };
}

test("a claim stored but not confirmed is this request's: it goes on, and a later copy is still refused", async (t) => {
  const bucket = flakyBucket();
  const guard = new ReplayGuard(bucket.kv);
  bucket.loseNextAnswer();
  t.equal(await guard.claim("iep_1", "1700000000.sig", "rcp_1"), true, "the request whose create landed is accepted");
  t.equal(await guard.claim("iep_1", "1700000000.sig", "rcp_2"), false, "another copy of it is a replay");
});

test("a claim that was not stored still fails (503, the sender retries)", async (t) => {
  const kv = {
    create: () => Promise.reject(Object.assign(new Error("TIMEOUT"), { code: "TIMEOUT" })),
    get: () => Promise.resolve(null),
  } as unknown as KV;
  await t.rejects(new ReplayGuard(kv).claim("iep_1", "1700000000.sig", "rcp_1"), /TIMEOUT/);
});

test("a claim taken by an earlier receipt is refused, as before", async (t) => {
  const guard = new ReplayGuard(flakyBucket().kv);
  t.equal(await guard.claim("iep_1", "m", "rcp_1"), true);
  t.equal(await guard.claim("iep_1", "m", "rcp_2"), false);
  t.equal(await guard.claim("iep_2", "m", "rcp_3"), true, "per endpoint");
});
