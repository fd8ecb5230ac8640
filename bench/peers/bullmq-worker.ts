// The BullMQ peer (issue 9): a webhook dispatcher as a competent Node team would write it on BullMQ, as its own
// process. Each job is one event envelope for one subscription; the worker sends the same signed POST as the
// dispatcher (same headers, same signature code), 16 jobs at once, up to 5 attempts on the spec's schedule
// (docs/api.md#deliveries: immediate, 30 s, 2 min, 10 min, 1 h). Prints READY once the worker is connected.
// Env: REDIS_HOST, REDIS_PORT, PEER_QUEUE, PEER_TARGET_URL, PEER_SECRET.
import { Worker, UnrecoverableError, type Job } from "bullmq";
import { Redis } from "ioredis";
import { signatureHeaders } from "../../shared/signing.js";

const SCHEDULE_MS = [30_000, 120_000, 600_000, 3_600_000];

// BullMQ under native ESM takes a constructed client; workers need maxRetriesPerRequest: null (BullMQ docs).
const connection = new Redis({ host: process.env.REDIS_HOST ?? "127.0.0.1", port: Number(process.env.REDIS_PORT ?? 6379), maxRetriesPerRequest: null });
const target = process.env.PEER_TARGET_URL ?? "";
const secret = process.env.PEER_SECRET ?? "";

async function deliver(job: Job<string>): Promise<void> {
  const body = job.data;
  const eventId = job.id ?? "";
  const res = await fetch(target, {
    method: "POST",
    body,
    signal: AbortSignal.timeout(10_000),
    headers: {
      "Content-Type": "application/json",
      "User-Agent": "Inquest-Webhooks/bench-peer",
      "X-Service-Event": job.name,
      "X-Service-Delivery": eventId,
      ...signatureHeaders({ secret, eventId, timestamp: Math.floor(Date.now() / 1000), body }),
    },
  });
  await res.arrayBuffer();
  if (res.status >= 200 && res.status < 300) return;
  if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) throw new UnrecoverableError(`HTTP ${res.status}`);
  throw new Error(`HTTP ${res.status}`);
}

const worker = new Worker<string>(process.env.PEER_QUEUE ?? "bench-webhooks", deliver, {
  connection,
  concurrency: 16,
  settings: { backoffStrategy: (attemptsMade: number) => SCHEDULE_MS[Math.min(SCHEDULE_MS.length, attemptsMade) - 1] ?? 3_600_000 },
});
await worker.waitUntilReady();
process.stdout.write("READY\n");

const stop = (): void => {
  void worker.close().finally(() => {
    connection.disconnect();
    process.exit(0);
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.stdin.on("end", stop);
process.stdin.resume();
