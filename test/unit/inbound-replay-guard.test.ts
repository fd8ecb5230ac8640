// The once-only claim of an EDR signature (shared/inbound/replay-guard.ts): when the bucket's answer is lost, a
// create the server stored but did not confirm must not make the sender's retry of the same request a "replay";
// a claim left pending by a request that died unanswered is taken over by a retry, once; an answered one is final.
import { JetStreamApiError } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { test } from "tap";
import { ReplayGuard } from "../../shared/inbound/replay-guard.js";

/** An in-memory bucket (revisions, compare-and-set) whose next write is stored and then fails as a timed-out request would. */
function flakyBucket(): { kv: KV; loseNextAnswer(): void; state(key?: string): string | undefined } {
  const entries = new Map<string, { value: Uint8Array; revision: number }>();
  let lose = false;
  let sequence = 0;
  const conflict = () => Promise.reject(new JetStreamApiError({ code: 400, err_code: 10071, description: "wrong last sequence: 1" }));
  const store = (key: string, value: Uint8Array): Promise<number> => {
    entries.set(key, { value, revision: ++sequence });
    if (lose) {
      lose = false;
      return Promise.reject(Object.assign(new Error("TIMEOUT"), { code: "TIMEOUT" }));
    }
    return Promise.resolve(sequence);
  };
  const kv = {
    create: (key: string, value: Uint8Array) => (entries.has(key) ? conflict() : store(key, value)),
    update: (key: string, value: Uint8Array, revision: number) => (entries.get(key)?.revision !== revision ? conflict() : store(key, value)),
    get(key: string) {
      const e = entries.get(key);
      return Promise.resolve(e === undefined ? null : { key, value: e.value, revision: e.revision, operation: "PUT" });
    },
  };
  const state = (key?: string) => {
    const e = key === undefined ? [...entries.values()][0] : entries.get(key);
    return e === undefined ? undefined : (JSON.parse(new TextDecoder().decode(e.value)) as { state?: string }).state;
  };
  return { kv: kv as unknown as KV, loseNextAnswer: () => (lose = true), state };
}

const QUICK = { leaseMs: 200, pollMs: 10 };

test("a claim stored but not confirmed is this request's: it goes on, and a later copy is still refused", async (t) => {
  const bucket = flakyBucket();
  const guard = new ReplayGuard(bucket.kv, QUICK);
  bucket.loseNextAnswer();
  const hold = await guard.claim("iep_1", "1700000000.sig", "rcp_1");
  t.ok(hold, "the request whose create landed is accepted");
  await hold?.answered();
  t.equal(await guard.claim("iep_1", "1700000000.sig", "rcp_2"), null, "another copy of it, once it was answered, is a replay");
});

test("a claim that was not stored still fails (503, the sender retries)", async (t) => {
  const kv = {
    create: () => Promise.reject(Object.assign(new Error("TIMEOUT"), { code: "TIMEOUT" })),
    get: () => Promise.resolve(null),
  } as unknown as KV;
  await t.rejects(new ReplayGuard(kv).claim("iep_1", "1700000000.sig", "rcp_1"), /TIMEOUT/);
});

test("a claim taken by an earlier receipt is refused, as before", async (t) => {
  const guard = new ReplayGuard(flakyBucket().kv, QUICK);
  await (await guard.claim("iep_1", "m", "rcp_1"))?.answered();
  t.equal(await guard.claim("iep_1", "m", "rcp_2"), null);
  t.ok(await guard.claim("iep_2", "m", "rcp_3"), "per endpoint");
});

test("a copy arriving while the request is in flight waits for its answer, then is a replay", async (t) => {
  const bucket = flakyBucket();
  const guard = new ReplayGuard(bucket.kv, { leaseMs: 10_000, pollMs: 10 });
  const hold = await guard.claim("iep_1", "m", "rcp_1");
  t.equal(bucket.state(), "pending");
  const copy = guard.claim("iep_1", "m", "rcp_2");
  setTimeout(() => void hold?.answered(), 50);
  t.equal(await copy, null);
  t.equal(bucket.state(), "answered");
});

test("a claim left pending (its request died unanswered) is taken over after the lease, with the same trigger key", async (t) => {
  const bucket = flakyBucket();
  const guard = new ReplayGuard(bucket.kv, QUICK);
  const dead = await guard.claim("iep_1", "m", "rcp_1"); // never answered: its gateway was killed
  const started = performance.now();
  const retry = await guard.claim("iep_1", "m", "rcp_2");
  t.ok(retry, "the retry of the same signed request is accepted");
  t.ok(performance.now() - started >= QUICK.leaseMs, "after the lease");
  t.equal(retry?.triggerKey, dead?.triggerKey, "its trigger is keyed as the dead request's was");
  await retry?.answered();
  t.equal(await guard.claim("iep_1", "m", "rcp_3"), null, "answered: a replay");
  await dead?.answered(); // a holder that outlived its lease answers too; the claim stays answered
  t.equal(bucket.state(), "answered");
});

test("two retries racing for a pending claim: one takes it, the other waits for its answer", async (t) => {
  const guard = new ReplayGuard(flakyBucket().kv, QUICK);
  await guard.claim("iep_1", "m", "rcp_1");
  const [a, b] = [guard.claim("iep_1", "m", "rcp_2"), guard.claim("iep_1", "m", "rcp_3")];
  const first = await Promise.race([a, b]);
  t.ok(first, "one took the claim");
  await first?.answered();
  t.same([await a, await b].filter((h) => h !== null).length, 1, "the other is a replay");
});
