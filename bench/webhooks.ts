// The outbound-webhook bench: a real nats-server, the compiled gateway and dispatcher as child processes, one
// subscription pointing at a local node:http receiver in this process. Measured: deliveries per second for a
// burst, and event-to-receipt latency (publish on events.<type> -> the POST arriving) at a fixed rate. The
// ceiling, measured in the same run against the same receiver: a bare JetStream consume -> signed POST -> ack
// loop in this process, with the dispatcher's per-subscription parallelism and the same HTTP client.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { cpus } from "node:os";
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamClient, type JsMsg } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { signatureHeaders } from "../shared/signing.js";
import { createSender } from "../services/dispatcher/sender.js";
import { percentile } from "./http-load.js";
import { DIST, freePort, natsServerBin, peakRssKb, profileArgs, Resources, startService } from "./investigations.js";

const BURST = 3_000;
/**
 * Bursts timed once everything else is measured, their median rate reported as "steady": the first burst after the
 * 500-event warm-up still runs half-compiled code on every side (one process's later bursts of 3,000 go 1.5-2x
 * faster, the BullMQ peer's alike), so it measures start-up as much as the path.
 */
const STEADY_BURSTS = 3;
const RATE_PER_S = 200;
const RATE_SECONDS = 5;
/** Issue 9's sustained load: event -> receipt p99 < 20 ms at 1,000 events/s for 30 s. */
const SUSTAINED_PER_S = 1_000;
const SUSTAINED_SECONDS = 30;
/** The dispatcher's default INQUEST_SUBSCRIPTION_CONCURRENCY: one subscription gets this many POSTs at once. */
const PARALLEL = 16;
const BENCH_KEY = `inq_bench_${randomBytes(24).toString("hex")}`;

interface Receiver {
  url: string;
  /** event_id -> performance.now() of the first receipt. */
  firstSeen: Map<string, number>;
  receipts(): number;
  waitCount(distinct: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const firstSeen = new Map<string, number>();
  let receipts = 0;
  let waiter: (() => void) | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      receipts++;
      const id = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { event_id: string }).event_id;
      if (!firstSeen.has(id)) firstSeen.set(id, at);
      res.writeHead(204).end();
      waiter?.();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}/bench`,
    firstSeen,
    receipts: () => receipts,
    waitCount(distinct, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver: ${firstSeen.size}/${distinct} events within ${timeoutMs} ms`)), timeoutMs);
        const check = (): void => {
          if (firstSeen.size < distinct) return;
          clearTimeout(timer);
          waiter = null;
          resolve();
        };
        waiter = check;
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

function envelope(i: number, tag: string): { id: string; body: string } {
  const id = `evt_${tag}${String(i).padStart(26 - tag.length, "0")}`;
  const body = JSON.stringify({
    event_id: id,
    type: "agent.connected",
    created_at: new Date().toISOString(),
    data: { agent_id: `agent-${i}`, hostname: `host-${i}.bench`, tags: { env: "bench" }, status: "online" },
  });
  return { id, body };
}

type Publish = (subject: string, body: string, id: string) => Promise<unknown>;

interface Measured {
  rate: number;
  p50: number;
  p99: number;
  duplicates: number;
  /** Latency p99 at SUSTAINED_PER_S for SUSTAINED_SECONDS. */
  sustainedP99?: number;
  /** Median deliveries/s of STEADY_BURSTS bursts made after every other measure. */
  steadyRate?: number;
}

/** Publishes a burst as fast as JetStream takes it; deliveries per second from the first publish to the last receipt. */
async function burst(publish: Publish, receiver: Receiver, subject: string, tag: string, count = BURST): Promise<number> {
  const before = receiver.firstSeen.size;
  const started = performance.now();
  for (let i = 0; i < count; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, count - i) }, (_, k) => envelope(i + k, tag)).map((e) => publish(subject, e.body, e.id)));
  }
  await receiver.waitCount(before + count, 120_000);
  return count / ((performance.now() - started) / 1000);
}

/** The median rate of STEADY_BURSTS more bursts (the path warm: see STEADY_BURSTS). */
async function steadyRate(publish: Publish, receiver: Receiver, subject: string, tag: string): Promise<number> {
  const rates: number[] = [];
  for (let i = 0; i < STEADY_BURSTS; i++) rates.push(await burst(publish, receiver, subject, `${tag}${i}`));
  return percentile(rates.sort((a, b) => a - b), 0.5);
}

/** Publishes at `perSecond` for `seconds`; latency from each publish call to the first receipt of that event. */
async function fixedRate(publish: Publish, receiver: Receiver, subject: string, tag: string, perSecond = RATE_PER_S, seconds = RATE_SECONDS): Promise<number[]> {
  const sentAt = new Map<string, number>();
  const total = perSecond * seconds;
  const start = performance.now();
  const pending: Array<Promise<unknown>> = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const e = envelope(i, tag);
    sentAt.set(e.id, performance.now());
    pending.push(publish(subject, e.body, e.id));
  }
  await Promise.all(pending);
  const deadline = Date.now() + 60_000;
  while ([...sentAt.keys()].some((id) => !receiver.firstSeen.has(id))) {
    if (Date.now() > deadline) throw new Error("fixed-rate events did not all arrive within 60 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  return [...sentAt.entries()].map(([id, t]) => (receiver.firstSeen.get(id) as number) - t).sort((a, b) => a - b);
}

/** The ceiling: a bare consume -> signed POST -> ack loop on a stream of its own, PARALLEL POSTs at once. */
async function ceilingLoop(nc: NatsConnection, js: JetStreamClient, url: string): Promise<{ stop(): Promise<void> }> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "BENCH_CEILING", subjects: ["bench.ceiling"], retention: RetentionPolicy.Workqueue, storage: StorageType.File, duplicate_window: 120_000_000_000 });
  await jsm.consumers.add("BENCH_CEILING", { durable_name: "ceiling", ack_policy: AckPolicy.Explicit, ack_wait: 30_000_000_000, max_ack_pending: 100_000 });
  const consumer = await js.consumers.get("BENCH_CEILING", "ceiling");
  const messages = await consumer.consume({ max_messages: 256 });
  const sender = createSender({ allowPrivate: true });
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  let inFlight = 0;
  let wake: (() => void) | null = null;
  const handle = async (msg: JsMsg): Promise<void> => {
    const body = Buffer.from(msg.data);
    const eventId = (JSON.parse(body.toString("utf8")) as { event_id: string }).event_id;
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": "Inquest-Webhooks/bench",
      "X-Service-Event": "agent.connected",
      "X-Service-Delivery": eventId,
      ...signatureHeaders({ secret, eventId, timestamp: Math.floor(Date.now() / 1000), body }),
    };
    const r = await sender.send({ url, headers, body, timeoutMs: 10_000 });
    if (r.kind === "response" && r.status < 300) msg.ack();
    else msg.nak(100);
  };
  const loop = (async () => {
    for await (const msg of messages) {
      while (inFlight >= PARALLEL) await new Promise<void>((r) => (wake = r));
      inFlight++;
      void handle(msg).finally(() => {
        inFlight--;
        wake?.();
        wake = null;
      });
    }
  })();
  return {
    async stop() {
      messages.stop();
      await loop;
      sender.close();
    },
  };
}

const REDIS = { host: "127.0.0.1", port: 6379 };

/** Whether a Redis answers PING on 127.0.0.1:6379 within a second. */
export function redisAvailable(): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = tcpConnect(REDIS.port, REDIS.host);
    const done = (ok: boolean): void => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(1_000, () => done(false));
    sock.on("error", () => done(false));
    sock.on("connect", () => sock.write("PING\r\n"));
    sock.on("data", (d) => done(d.toString().startsWith("+PONG")));
  });
}

/** The BullMQ peer (bench/peers/bullmq-worker.ts) on the local Redis, same receiver, same events; null without Redis. */
async function bullmqPeer(res: Resources, receiver: Receiver): Promise<{ measured: Measured; peakRssKb: number | null } | null> {
  if (!(await redisAvailable())) return null;
  const name = `inquest-bench-${randomBytes(6).toString("hex")}`;
  const connection = new Redis({ ...REDIS, maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection });
  const worker = res.spawn("bullmq-peer", process.execPath, [...profileArgs("bullmq-peer"), join(DIST, "bench", "peers", "bullmq-worker.js")], {
    PATH: process.env.PATH ?? "",
    REDIS_HOST: REDIS.host,
    REDIS_PORT: String(REDIS.port),
    PEER_QUEUE: name,
    PEER_TARGET_URL: receiver.url,
    PEER_SECRET: `whsec_${randomBytes(32).toString("base64")}`,
  });
  try {
    await worker.line("READY", 20_000);
    const jobOptions = { attempts: 5, backoff: { type: "spec" }, removeOnComplete: { age: 30 * 24 * 3600 }, removeOnFail: { age: 30 * 24 * 3600 } };
    const publish: Publish = (subject, body, id) => queue.add(subject.replace(/^events\./, ""), body, { ...jobOptions, jobId: id });
    await burst(publish, receiver, "events.agent.connected", "BWARM", 500);
    const receipts = receiver.receipts();
    const distinct = receiver.firstSeen.size;
    const rate = await burst(publish, receiver, "events.agent.connected", "BBURST");
    const lat = await fixedRate(publish, receiver, "events.agent.connected", "BRATE");
    const measured = summarize(rate, lat, receiver.receipts() - receipts - (receiver.firstSeen.size - distinct));
    measured.sustainedP99 = percentile(await fixedRate(publish, receiver, "events.agent.connected", "BSUST", SUSTAINED_PER_S, SUSTAINED_SECONDS), 0.99);
    measured.steadyRate = await steadyRate(publish, receiver, "events.agent.connected", "BSTDY");
    return { measured, peakRssKb: peakRssKb(worker.proc.pid) };
  } finally {
    await worker.stop();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    connection.disconnect();
  }
}

function summarize(rate: number, latencies: number[], duplicates: number): Measured {
  return { rate, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), duplicates };
}

export interface WebhookBench {
  text: string;
  dispatcher: Measured;
  ceiling: Measured;
  /** Null when no Redis answered on 127.0.0.1:6379. */
  bullmq: Measured | null;
  peakRssKb: { gateway: number | null; dispatcher: number | null; nats: number | null; bullmq: number | null };
}

export async function benchWebhooks(): Promise<WebhookBench> {
  const res = new Resources();
  const onExit = (): void => res.killAllSync();
  process.once("exit", onExit);
  const receiver = await startReceiver();
  let nc: NatsConnection | null = null;
  try {
    const port = await freePort();
    const natsUrl = `nats://127.0.0.1:${port}`;
    const nats = res.spawn("nats-server", natsServerBin(), ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", res.tempDir("inquest-bench-wh-nats-")], { PATH: process.env.PATH ?? "" });
    for (let i = 0; ; i++) {
      try {
        nc = await connect({ servers: natsUrl, timeout: 500 });
        break;
      } catch (err) {
        if (i > 100 || nats.proc.exitCode !== null) throw new Error(`nats-server did not start: ${String(err)}\n${nats.output()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const env = {
      NATS_URL: natsUrl,
      INQUEST_DATA_DIR: res.tempDir("inquest-bench-wh-data-"),
      INQUEST_MASTER_KEY: randomBytes(32).toString("base64"),
      INQUEST_BOOTSTRAP_KEY: BENCH_KEY,
      INQUEST_PORT: "0",
      INQUEST_ALLOW_PRIVATE_TARGETS: "true",
      LOG_LEVEL: "warn",
    };
    const gateway = startService(res, "gateway", env);
    const baseUrl = await gateway.line("INQUEST_GATEWAY_URL=");
    const dispatcherChild = startService(res, "dispatcher", env);
    const created = await fetch(`${baseUrl}/v1/webhooks/subscriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, events: ["agent.connected"] }),
    });
    if (created.status !== 201) throw new Error(`create subscription: ${created.status} ${await created.text()}`);

    const js = jetstream(nc);
    const publish: Publish = (subject, body, id) => js.publish(subject, body, { msgID: id });
    // Warm-up: connections, JIT, the dispatcher's consumers.
    await burst(publish, receiver, "events.agent.connected", "WARM", 500);
    const receiptsBefore = receiver.receipts();
    const distinctBefore = receiver.firstSeen.size;
    const dRate = await burst(publish, receiver, "events.agent.connected", "BURST");
    const dLat = await fixedRate(publish, receiver, "events.agent.connected", "RATE");
    const dDup = receiver.receipts() - receiptsBefore - (receiver.firstSeen.size - distinctBefore);
    const dispatcher = summarize(dRate, dLat, dDup);
    dispatcher.sustainedP99 = percentile(await fixedRate(publish, receiver, "events.agent.connected", "SUST", SUSTAINED_PER_S, SUSTAINED_SECONDS), 0.99);
    dispatcher.steadyRate = await steadyRate(publish, receiver, "events.agent.connected", "STDY");

    const ceiling = await ceilingLoop(nc, js, receiver.url);
    await burst(publish, receiver, "bench.ceiling", "CWARM", 500);
    const cReceipts = receiver.receipts();
    const cDistinct = receiver.firstSeen.size;
    const cRate = await burst(publish, receiver, "bench.ceiling", "CBURST");
    const cLat = await fixedRate(publish, receiver, "bench.ceiling", "CRATE");
    const base = summarize(cRate, cLat, receiver.receipts() - cReceipts - (receiver.firstSeen.size - cDistinct));
    // The same sustained rate through the bare loop: what this machine and this harness (publisher and receiver in
    // this process) allow at all, beside which the dispatcher's p99 is read.
    base.sustainedP99 = percentile(await fixedRate(publish, receiver, "bench.ceiling", "CSUST", SUSTAINED_PER_S, SUSTAINED_SECONDS), 0.99);
    base.steadyRate = await steadyRate(publish, receiver, "bench.ceiling", "CSTDY");
    await ceiling.stop();
    const peak = { gateway: peakRssKb(gateway.proc.pid), dispatcher: peakRssKb(dispatcherChild.proc.pid), nats: peakRssKb(nats.proc.pid), bullmq: null as number | null };
    const peer = await bullmqPeer(res, receiver);
    peak.bullmq = peer?.peakRssKb ?? null;
    return { text: report(dispatcher, base, peer?.measured ?? null), dispatcher, ceiling: base, bullmq: peer?.measured ?? null, peakRssKb: peak };
  } finally {
    await nc?.close().catch(() => undefined);
    await receiver.close();
    await res.cleanup();
    process.off("exit", onExit);
  }
}

const ms = (v: number | undefined): string => (v === undefined ? "n/a" : `${v.toFixed(1)} ms`);
const rate = (v: number | undefined): string => (v === undefined ? "n/a" : v.toFixed(0));

function report(d: Measured, c: Measured, b: Measured | null): string {
  const pct = (a: number, b: number) => (b > 0 ? `${((a / b) * 100).toFixed(0)} %` : "n/a");
  const times = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(1)}×` : "n/a");
  return [
    "## Outbound webhooks",
    "",
    `One subscription (\`agent.connected\`) to a local node:http receiver answering 204, ${cpus().length} CPUs shared by nats-server, gateway, dispatcher and this process.`,
    `Burst: ${BURST} events published to \`events.agent.connected\` as fast as JetStream takes them, after a warm-up of 500; rate = events ÷ (first publish → last event's first receipt). Steady: the median of ${STEADY_BURSTS} more bursts made after every other measure, when each side's code is compiled (the first burst runs partly unoptimised code on every side).`,
    `Fixed rate: ${RATE_PER_S} events/s for ${RATE_SECONDS} s, then ${SUSTAINED_PER_S.toLocaleString("en-US")} events/s for ${SUSTAINED_SECONDS} s; latency = publish call → first receipt of that event (same process clock).`,
    `Ceiling: a bare JetStream consume → signed POST (same HTTP client and signature code) → ack loop in the bench process, ${PARALLEL} POSTs at once (the dispatcher's default per-subscription limit), on a work-queue stream of its own. The dispatcher path adds the fan-out's subscription match, a record check (a KV get, skipped for the first stored copy of a fresh event: docs/architecture.md#flow-events) and the delivery record written with its first attempt (KV create); an attempt that fails goes on as a job (docs/architecture.md#flow-events).`,
    "",
    b
      ? `Peer: a BullMQ ${"worker"} (\`bench/peers/bullmq-worker.ts\`, its own process) on the local Redis, ${PARALLEL} jobs at once, 5 attempts on the spec's schedule, the same signed POST (same signature code; Node's fetch, pooled keep-alive), the same receiver; events are added as jobs (\`Queue.add\`, job id = event id) from the bench process.`
      : "Peer: **skipped, no Redis answered on 127.0.0.1:6379** (start one, e.g. `redis-server`, to measure the BullMQ peer).",
    "",
    "| | dispatcher | BullMQ peer | dispatcher ÷ peer | bare loop (ceiling) | dispatcher vs ceiling |",
    "|---|---:|---:|---:|---:|---:|",
    `| deliveries/s (burst of ${BURST}) | ${d.rate.toFixed(0)} | ${b ? b.rate.toFixed(0) : "skipped"} | ${b ? times(d.rate, b.rate) : "n/a"} | ${c.rate.toFixed(0)} | ${pct(d.rate, c.rate)} |`,
    `| deliveries/s, steady (median of ${STEADY_BURSTS} bursts of ${BURST} made last) | ${rate(d.steadyRate)} | ${b ? rate(b.steadyRate) : "skipped"} | ${b && d.steadyRate !== undefined && b.steadyRate !== undefined ? times(d.steadyRate, b.steadyRate) : "n/a"} | ${rate(c.steadyRate)} | ${d.steadyRate !== undefined && c.steadyRate !== undefined ? pct(d.steadyRate, c.steadyRate) : "n/a"} |`,
    `| latency p50 at ${RATE_PER_S}/s | ${d.p50.toFixed(1)} ms | ${b ? `${b.p50.toFixed(1)} ms` : "skipped"} | ${b ? times(d.p50, b.p50) : "n/a"} | ${c.p50.toFixed(1)} ms | ${times(d.p50, c.p50)} |`,
    `| latency p99 at ${RATE_PER_S}/s | ${d.p99.toFixed(1)} ms | ${b ? `${b.p99.toFixed(1)} ms` : "skipped"} | ${b ? times(d.p99, b.p99) : "n/a"} | ${c.p99.toFixed(1)} ms | ${times(d.p99, c.p99)} |`,
    `| latency p99 at ${SUSTAINED_PER_S.toLocaleString("en-US")}/s for ${SUSTAINED_SECONDS} s (issue 9: < 20 ms) | ${ms(d.sustainedP99)} | ${b ? ms(b.sustainedP99) : "skipped"} | ${b && d.sustainedP99 !== undefined && b.sustainedP99 !== undefined ? times(d.sustainedP99, b.sustainedP99) : "n/a"} | ${ms(c.sustainedP99)} | ${d.sustainedP99 !== undefined && c.sustainedP99 !== undefined ? times(d.sustainedP99, c.sustainedP99) : "n/a"} |`,
    `| duplicate receipts | ${d.duplicates} | ${b ? b.duplicates : "skipped"} | | ${c.duplicates} | |`,
    "",
  ].join("\n");
}
