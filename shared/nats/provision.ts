// Idempotent provisioning of streams and KV buckets at start-up, checking that the server kept every
// option we rely on (nats-server 2.9 silently drops options it does not know).
import { jetstream, jetstreamManager, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { ProvisioningError } from "../errors.js";
import { identityDescription, identityOf, legacyIdentity, newIdentity } from "./bucket-identity.js";
import type { BucketSpec, StreamSpec } from "./catalog.js";
import { retryWhile } from "./elections.js";
import { isNoPlacement, isNoResponders, isNotFound, isUnavailable } from "./errors.js";

const CHECKED: Array<keyof StreamSpec> = ["retention", "storage", "max_age", "duplicate_window", "max_msgs_per_subject", "discard", "num_replicas", "no_ack"];

/**
 * `replicas` is how many copies of every stream and bucket the caller provisions (INQUEST_NATS_REPLICAS): 1 for
 * a single server, 3 on a three-node cluster. Every service passes the same configured number.
 */
/** How long start-up provisioning waits out an unavailable JetStream before it fails loudly. */
export const PROVISION_PATIENCE_MS = 60_000;

/**
 * Runs `work`, again while JetStream is unavailable (a cluster electing a leader, a node restarting or frozen:
 * "JetStream system temporarily unavailable", timeouts), waiting 250 ms, then longer, up to 2 s, for at most
 * `patienceMs`. Any other error, or unavailability past the deadline, is thrown. A service killed and restarted
 * during a NATS fault (`make chaos`) thus starts once the cluster answers, instead of exiting.
 */
export function patiently<T>(work: () => Promise<T>, patienceMs = PROVISION_PATIENCE_MS): Promise<T> {
  // No responders on the JetStream API means a server without JetStream (-js missing), which waiting will not
  // change: that is said at once. An election or a restarting node answers 503 or not in time instead, and a
  // cluster still forming refuses to place replicas (too few servers for the replica count then fails once the
  // patience is spent, with the server's words).
  return retryWhile(work, { retryable: (err) => (isUnavailable(err) && !isNoResponders(err)) || isNoPlacement(err), patienceMs, firstWaitMs: 250, maxWaitMs: 2_000 });
}

/**
 * The replica count to provision with: what is asked, but never fewer than an existing stream or bucket has. The
 * CLI and a service started without INQUEST_NATS_REPLICAS ask for 1; on a cluster that must not take a stream's
 * copies away (a node's loss would then stop it). Scaling up stays: R1 streams get the copies a higher count asks.
 */
export function replicasToKeep(existing: number | undefined, wanted: number): number {
  return Math.max(existing ?? 0, wanted);
}

export function ensureStream(jsm: JetStreamManager, base: StreamSpec, replicas: number): Promise<void> {
  return patiently(() => ensureStreamOnce(jsm, base, replicas));
}

async function ensureStreamOnce(jsm: JetStreamManager, base: StreamSpec, replicas: number): Promise<void> {
  let spec: StreamSpec = { ...base, num_replicas: replicas };
  let config: StreamConfig;
  try {
    const info = await jsm.streams.info(spec.name);
    spec = { ...base, num_replicas: replicasToKeep(info.config.num_replicas, replicas) };
    const drift = CHECKED.filter((k) => spec[k] !== undefined && info.config[k] !== spec[k]);
    const subjectsDiffer = JSON.stringify(info.config.subjects) !== JSON.stringify(spec.subjects);
    config = drift.length > 0 || subjectsDiffer ? (await jsm.streams.update(spec.name, { ...spec })).config : info.config;
  } catch (err) {
    if (!isNotFound(err)) throw new ProvisioningError(`stream ${spec.name}: ${String(err)}`, { cause: err });
    try {
      config = (await jsm.streams.add({ ...spec })).config;
    } catch (addErr) {
      // Another replica may have created it at the same moment (with its own count); otherwise the server said why not.
      config = await jsm.streams.info(spec.name).then(
        (info) => info.config,
        () => {
          throw new ProvisioningError(`stream ${spec.name} (replicas ${replicas}): ${String(addErr)}`, { cause: addErr });
        },
      );
      spec = { ...base, num_replicas: replicasToKeep(config.num_replicas, replicas) };
    }
  }
  for (const k of CHECKED) {
    if (spec[k] !== undefined && config[k] !== spec[k]) {
      throw new ProvisioningError(`stream ${spec.name}: the server kept ${String(k)}=${JSON.stringify(config[k])}, expected ${JSON.stringify(spec[k])}`);
    }
  }
}

/**
 * Direct gets only on a single replica (docs/nats.md#direct-get): with several, a follower may answer a direct get
 * with data it has not caught up on (a record just written reads as missing), so reads go through the leader.
 */
export function allowDirect(replicas: number): boolean {
  return replicas === 1;
}

/** How long a service's JetStream requests wait for an answer; absent, the client's default (5 s). */
export interface RequestTimeouts {
  requestTimeoutMs?: number;
}

/** `requestTimeoutMs`: how long the bucket's reads and writes wait for an answer. */
export function ensureBucket(nc: NatsConnection, spec: BucketSpec, replicas: number, opts: RequestTimeouts = {}): Promise<KV> {
  return patiently(() => ensureBucketOnce(nc, spec, replicas, opts.requestTimeoutMs));
}

async function ensureBucketOnce(nc: NatsConnection, spec: BucketSpec, replicas: number, requestTimeoutMs: number | undefined): Promise<KV> {
  const kvm = new Kvm(requestTimeoutMs === undefined ? nc : jetstream(nc, { timeout: requestTimeoutMs }));
  let kv: KV;
  try {
    // The identity is taken by a bucket this creates; an existing one keeps its own (docs/nats.md#bucket-identity).
    kv = await kvm.create(spec.name, { history: spec.history, ttl: spec.ttl, replicas, allow_direct: allowDirect(replicas), description: identityDescription(newIdentity()) });
  } catch (err) {
    // An existing bucket with another replica count: open it and scale its stream up (never down).
    kv = await kvm.open(spec.name).catch(() => {
      throw new ProvisioningError(`bucket ${spec.name} (replicas ${replicas}): ${String(err)}`, { cause: err });
    });
  }
  const stream = `KV_${spec.name}`;
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream);
  const kept = replicasToKeep(info.config.num_replicas, replicas);
  // A bucket made before identities gets one (the same from every replica that gives it one at once).
  const description = identityOf(info.config) === null ? identityDescription(legacyIdentity(info.created)) : info.config.description;
  if (info.config.num_replicas !== kept || (info.config.allow_direct ?? false) !== allowDirect(kept) || info.config.description !== description) {
    await jsm.streams.update(stream, { ...info.config, num_replicas: kept, allow_direct: allowDirect(kept), description }).catch((err: unknown) => {
      throw new ProvisioningError(`bucket ${spec.name}: cannot change to ${kept} replicas (${description}): ${String(err)}`, { cause: err });
    });
    // The client chose direct or leader reads from the config it opened; open again under the new one.
    kv = await kvm.open(spec.name);
  }
  const status = await kv.status();
  if (status.ttl !== spec.ttl || status.history !== spec.history || status.replicas !== kept) {
    throw new ProvisioningError(
      `bucket ${spec.name}: the server kept ttl=${status.ttl} history=${status.history} replicas=${status.replicas}, expected ttl=${spec.ttl} history=${spec.history} replicas=${kept}`,
    );
  }
  return kv;
}
