// The gateway's API-key cache against a real nats-server, counting the bucket reads it sends (a second
// connection watches the JetStream API): a revoked key and an unknown token are both answered from local
// state; an unknown token is asked of the bucket once, then remembered for a bounded time and count.
import { connect, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { pino } from "pino";
import { test } from "tap";
import { KeyCache } from "../../services/gateway/auth.js";
import { createApiKey, revokeApiKey, type ApiKeyRecord } from "../../shared/auth/keys.js";
import { sleep, type Clock } from "../../shared/clock.js";
import { BUCKETS } from "../../shared/nats/catalog.js";
import { JsonKv } from "../../shared/nats/kvjson.js";
import { ensureBucket } from "../../shared/nats/provision.js";
import { newApiKey } from "../../shared/secrets.js";
import { startNats, type NatsServer } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";

const log = pino({ level: "silent" });
let server: NatsServer;
let nc: NatsConnection;
let spy: NatsConnection;
let reads = 0;
let sub: Subscription;
let now = 1_000_000;
const clock: Clock = { now: () => now };

test("setup", async () => {
  server = await startNats();
  nc = await connect({ servers: server.url });
  spy = await connect({ servers: server.url });
  sub = spy.subscribe("$JS.API.>", {
    callback: (_err, msg) => {
      // A KV get is a direct get or a stream message get on the bucket's stream.
      if (msg.subject.includes(`KV_${BUCKETS.apiKeys.name}`) && /DIRECT\.GET|MSG\.GET/.test(msg.subject)) reads++;
    },
  });
  await spy.flush();
});

/** Bucket reads the cache sent during `work`. */
async function readsDuring(work: () => Promise<unknown>): Promise<number> {
  await nc.flush();
  await spy.flush();
  const before = reads;
  await work();
  await nc.flush();
  await spy.flush();
  return reads - before;
}

test("unknown and revoked tokens are answered locally; a miss is asked once per TTL, and forgotten oldest first", async (t) => {
  const kv = await ensureBucket(nc, BUCKETS.apiKeys, 1);
  const keys = new JsonKv<ApiKeyRecord>(kv);
  const revoked = await createApiKey(keys, clock, { name: "gone", scopes: ["investigations:read"] });
  await revokeApiKey(keys, clock, revoked.record.id);
  const cache = new KeyCache(kv, log, { clock, missTtlMs: 60_000, maxMisses: 2 });
  await cache.start();
  await eventually(async () => ((await readsDuring(() => cache.authenticate(revoked.key))) === 0 ? true : undefined));

  const unknown = newApiKey().key;
  t.equal(
    await readsDuring(async () => {
      for (let i = 0; i < 5; i++) t.equal(await cache.authenticate(revoked.key), null);
    }),
    0,
    "a revoked key costs no round trip",
  );
  t.equal(
    await readsDuring(async () => {
      for (let i = 0; i < 5; i++) t.equal(await cache.authenticate(unknown), null);
    }),
    1,
    "five tries of an unknown token cost one bucket read",
  );
  now += 60_001;
  t.equal(await readsDuring(() => cache.authenticate(unknown)), 1, "asked again once its miss has expired");

  const [a, b] = [newApiKey().key, newApiKey().key];
  t.equal(await readsDuring(async () => [await cache.authenticate(a), await cache.authenticate(b)]), 2, "two more misses (the first is now forgotten)");
  t.equal(await readsDuring(() => cache.authenticate(unknown)), 1, "the oldest miss was forgotten: the bound holds");

  // A key issued after its token missed is accepted as soon as the watch delivers it.
  const late = newApiKey().key;
  t.equal(await cache.authenticate(late), null);
  await createApiKey(keys, clock, { name: "late", scopes: ["investigations:read"], key: late });
  const found = await eventually(async () => (await cache.authenticate(late)) ?? undefined);
  t.equal(found.name, "late");
  await cache.stop();
});

test("a key's record holds none of its secret; a second revoke says there was no active key", async (t) => {
  const kv = await ensureBucket(nc, BUCKETS.apiKeys, 1);
  const keys = new JsonKv<ApiKeyRecord>(kv);
  const issued = await createApiKey(keys, clock, { name: "issued", scopes: ["investigations:read"] });
  t.match(issued.record.display_prefix, /^inq_[A-Za-z0-9]{8}$/, "an issued key shows its public prefix");
  t.ok(issued.key.startsWith(`${issued.record.display_prefix}_`));
  const bootstrap = "Zx9-custom_bootstrap_key_all_of_it_secret_0123456789";
  const custom = await createApiKey(keys, clock, { name: "bootstrap", scopes: ["investigations:read"], key: bootstrap });
  t.equal(custom.record.display_prefix, "", "a bootstrap key of another shape shows none of itself");
  t.notOk(JSON.stringify(await keys.get(custom.record.hash)).includes(bootstrap.slice(0, 6)), "nor is any of it stored");
  t.equal(await revokeApiKey(keys, clock, issued.record.id), true, "revoked");
  t.equal(await revokeApiKey(keys, clock, issued.record.id), false, "revoking it again: no active key");
  t.equal(await revokeApiKey(keys, clock, "key_unknown"), false);
});

test("two gateways registering one bootstrap key at once keep one record; a revoke between them stays", async (t) => {
  const kv = await ensureBucket(nc, BUCKETS.apiKeys, 1);
  const keys = new JsonKv<ApiKeyRecord>(kv);
  const bootstrap = "inq_test_concurrent_bootstrap_0123456789abcdefghijklmnopq";
  // Replica A's reads of the bucket answer only once replica B has registered the key and an operator revoked it:
  // two replicas starting together, A's look-up (if it makes one) finding nothing.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const slow = Object.assign(Object.create(keys) as JsonKv<ApiKeyRecord>, {
    get: async (key: string) => {
      const found = await keys.get(key);
      await held;
      return found;
    },
  });
  const a = createApiKey(slow, clock, { name: "bootstrap", scopes: ["investigations:read"], key: bootstrap });
  await sleep(100); // A's lookup has answered (nothing there) and waits
  const b = await createApiKey(keys, clock, { name: "bootstrap", scopes: ["investigations:read"], key: bootstrap });
  t.equal(await revokeApiKey(keys, clock, b.record.id), true, "revoked");
  release();
  const aDone = await a;
  const stored = (await keys.get(b.record.hash))?.value;
  t.equal(stored?.id, b.record.id, "the record B answers with is the one stored, not replaced");
  t.not(stored?.revoked_at ?? null, null, "a revoked key does not come back to life");
  t.equal(aDone.record.id, b.record.id, "both answer with the one record that holds the key");
});

test("teardown", async () => {
  sub.unsubscribe();
  await spy.close();
  await nc.close();
  await server.stop();
});
