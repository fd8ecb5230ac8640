// Provisioning on a real three-node cluster never lowers a replica count: a caller asking for fewer copies than a
// stream or bucket has (the CLI's default INQUEST_NATS_REPLICAS=1 against a cluster) leaves it as it is; asking for
// more still scales it up. docs/nats.md#provisioning.
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { test } from "tap";
import { startEmbeddedNats, type EmbeddedNats } from "../../cli/embedded-nats.js";
import { BUCKETS, STREAMS } from "../../shared/nats/catalog.js";
import { ensureBucket, ensureStream, replicasToKeep } from "../../shared/nats/provision.js";
import { openRuntime } from "../../shared/runtime.js";
import { cli } from "../helpers/cli.js";
import { connectTo } from "../helpers/nats.js";
import { tempDir } from "../helpers/services.js";

test("the replica count provisioning asks for is never below the existing one", async (t) => {
  t.equal(replicasToKeep(3, 1), 3, "a lower request keeps 3");
  t.equal(replicasToKeep(1, 3), 3, "a higher request scales up");
  t.equal(replicasToKeep(undefined, 1), 1, "a new stream gets what is asked");
});

test("on a 3-node cluster, R3 streams and buckets stay R3 under an R1 request; R1 ones are scaled up", async (t) => {
  const dir = tempDir("inquest-replicas-");
  let cluster: EmbeddedNats | undefined;
  let nc: NatsConnection | undefined;
  t.teardown(async () => {
    await nc?.close();
    for (const n of cluster?.nodes ?? []) n.proc.kill("SIGKILL");
    dir.remove();
  });
  cluster = await startEmbeddedNats(dir.path, 3);
  nc = await connectTo(cluster.url);
  const jsm = await jetstreamManager(nc);
  await openRuntime(nc, { replicas: 3 });

  // What `inquest keys` does with INQUEST_NATS_REPLICAS unset.
  const r = cli(["keys", "list", "--nats", cluster.url]);
  t.equal(r.status, 0, `inquest keys list: ${r.stderr}`);
  for (const s of Object.values(STREAMS)) t.equal((await jsm.streams.info(s.name)).config.num_replicas, 3, `${s.name} still has 3 replicas`);
  for (const b of Object.values(BUCKETS)) {
    const info = await jsm.streams.info(`KV_${b.name}`);
    t.equal(info.config.num_replicas, 3, `bucket ${b.name} still has 3 replicas`);
    t.equal(info.config.allow_direct ?? false, false, `bucket ${b.name} still reads through the leader`);
  }

  // The kv handle an R1 request returns works on the R3 bucket.
  const kv = await ensureBucket(nc, BUCKETS.apiKeys, 1);
  t.equal((await kv.status()).replicas, 3);

  // Scaling up stays: a stream and a bucket created with one copy get three.
  await jsm.streams.delete(STREAMS.events.name);
  await jsm.streams.delete(`KV_${BUCKETS.agents.name}`);
  await ensureStream(jsm, STREAMS.events, 1);
  await ensureBucket(nc, BUCKETS.agents, 1);
  t.equal((await jsm.streams.info(STREAMS.events.name)).config.num_replicas, 1);
  await ensureStream(jsm, STREAMS.events, 3);
  const agents = await ensureBucket(nc, BUCKETS.agents, 3);
  t.equal((await jsm.streams.info(STREAMS.events.name)).config.num_replicas, 3, "the stream is scaled up");
  t.equal((await agents.status()).replicas, 3, "the bucket is scaled up");
});
