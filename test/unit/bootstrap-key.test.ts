// The gateway registers INQUEST_BOOTSTRAP_KEY at start (shared/auth/keys.ts registerBootstrapKey). A cluster just
// started answers "JetStream system temporarily unavailable" until its leaders are elected: that is waited out like
// the streams' provisioning, instead of the gateway exiting (a chaos run's gateway exited 2 on it).
import { JetStreamApiError } from "@nats-io/jetstream";
import { test } from "tap";
import { registerBootstrapKey, type ApiKeyRecord } from "../../shared/auth/keys.js";
import { systemClock } from "../../shared/clock.js";
import type { Versioned } from "../../shared/nats/kvjson.js";

/** A bucket stand-in that answers 503 to the first `failures` calls, then keeps what it is given. */
function electingBucket(failures: number) {
  const kept = new Map<string, ApiKeyRecord>();
  let calls = 0;
  const unavailable = () => new JetStreamApiError({ code: 503, err_code: 10008, description: "JetStream system temporarily unavailable" });
  return {
    calls: () => calls,
    kept,
    async create(key: string, value: ApiKeyRecord): Promise<number | null> {
      if (++calls <= failures) throw unavailable();
      if (kept.has(key)) return null;
      kept.set(key, value);
      return 1;
    },
    async get(key: string): Promise<Versioned<ApiKeyRecord> | null> {
      if (++calls <= failures) throw unavailable();
      const value = kept.get(key);
      return value ? { value, revision: 1 } : null;
    },
  };
}

test("the bootstrap key is registered once JetStream is available, however many 503s come first", async (t) => {
  const kv = electingBucket(3);
  const key = "inq_bootstrap_0123456789abcdefghijklmnopqrstuvwxyz";
  const { record } = await registerBootstrapKey(kv, systemClock, key, 10_000);
  t.equal(kv.calls(), 4, "three refusals waited out");
  t.equal(kv.kept.size, 1);
  t.equal(record.name, "bootstrap");
  t.equal(record.revoked_at, null);
  const again = await registerBootstrapKey(kv, systemClock, key, 10_000);
  t.equal(again.record.id, record.id, "registered again at the next start: the record that holds it");
});

test("another refusal is not waited out", async (t) => {
  const kv = electingBucket(0);
  kv.create = async () => {
    throw new JetStreamApiError({ code: 400, err_code: 10003, description: "bad request" });
  };
  await t.rejects(registerBootstrapKey(kv, systemClock, "inq_bootstrap_0123456789abcdefghijklmnopqrstuvwxyz", 10_000), /bad request/);
});
