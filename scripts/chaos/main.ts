// make chaos: steady load on a 3-node NATS cluster with two replicas of every service while faults strike one at a
// time (docs/operations.md#chaos); then checks nothing was lost, writes bench/chaos.md and prints one last line.
// Exits 1 when anything was lost, a run doubled or skipped, or a 5xx other than 503 + Retry-After was answered.
//   node dist/scripts/chaos/main.js [--duration 300] [--short] [--seed N] [--out bench/chaos.md] [--keep]
// --keep leaves the run's directory (stores and every process's log) in place when something was lost.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { CURIOSITY_BUCKETS, LEADER_KEY } from "../../shared/curiosity/catalog.js";
import { seedAuthenticator } from "../../shared/nats/connect.js";
import { parseArgs, flag } from "../../cli/args.js";
import { startChaosCluster, type ChaosCluster } from "./cluster.js";
import { Rng } from "../../corpus/prng.js";
import { ALL_FAULTS, runFaults } from "./faults.js";
import { sleep } from "../../shared/clock.js";
import { runLoad } from "./load.js";
import { startReceiver } from "./receiver.js";
import { curiosityGapLine, lost, summaryLine, writeReport } from "./report.js";
import { verify } from "./verify.js";

const SUBSCRIBED = ["investigation.completed", "investigation.failed", "investigation.cancelled"];
/** The curiosity items' interval. */
const CURIOSITY_INTERVAL_S = 2;

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2), { values: ["duration", "seed", "out"], booleans: ["short", "keep"] });
  const short = args.flags.get("short") === true;
  const durationS = Math.min(600, Number(flag(args, "duration") ?? (short ? 60 : 300)));
  const seed = Number(flag(args, "seed") ?? Date.now() % 100_000);
  const out = flag(args, "out") ?? "bench/chaos.md";
  const dir = mkdtempSync(join(tmpdir(), "inquest-chaos-"));
  const log = (m: string) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${m}\n`);
  let cluster: ChaosCluster | null = null;
  let keep = false;
  const receiver = await startReceiver();
  try {
    log(`seed ${seed}; starting 3 NATS nodes and two replicas of every service in ${dir}`);
    cluster = await startChaosCluster(dir);
    const c = cluster;
    const call = (method: string, path: string, body?: unknown) => retrying(c.gateways, method, path, c.key, body);
    const since = new Date();
    await call("POST", "/v1/webhooks/subscriptions", { url: receiver.url, events: SUBSCRIBED });
    const endpoint = (await call("POST", "/v1/webhooks/incoming/endpoints", { provider: "generic" })) as { url: string };
    const curiosityIds: string[] = [];
    for (let i = 0; i < 3; i++) curiosityIds.push(((await call("POST", "/v1/curiosity", { query: `standing question ${i}: listening ports`, interval: `${CURIOSITY_INTERVAL_S}s`, depth: "quick" })) as { id: string }).id);

    log(`load for ${durationS} s; faults: ${ALL_FAULTS.join(", ")}`);
    const stop = new AbortController();
    const load = runLoad({ gateways: c.gateways, key: c.key, inboundPath: new URL(endpoint.url).pathname, triggerEveryMs: short ? 250 : 150, inboundEveryMs: 1_000 }, stop.signal);
    const began = Date.now();
    // The run's own connection, through the faults (it reconnects for as long as it takes): it reads the ticker lease
    // for them, then checks the outcome.
    const nc = await connect({ servers: c.natsUrl.split(","), authenticator: seedAuthenticator(c.natsSeedFile), maxReconnectAttempts: -1 });
    const faultOptions = { freezeMs: short ? 5_000 : 20_000, natsDownMs: short ? 3_000 : 5_000, tickerLeaderPid: () => tickerLeaderPid(nc) };
    const faults = await runFaults(c, ALL_FAULTS, durationS * 1000 * 0.8, faultOptions, new Rng(seed));
    for (const f of faults) log(`${f.kind} ${f.target}: back after ${(f.recoveredMs / 1000).toFixed(1)} s`);
    await sleep(Math.max(0, began + durationS * 1000 - Date.now()));
    stop.abort();
    const stats = await load;
    for (const id of curiosityIds) await call("PATCH", `/v1/curiosity/${id}`, { active: false });

    log(`load stopped: ${stats.accepted.size} investigations accepted; settling`);
    const verdict = await verify({ gateway: c.gateways[0] as string, key: c.key, nc, accepted: stats.accepted, received: receiver.received, subscribedTypes: SUBSCRIBED, subscribedSince: since, curiosityIds, curiosityIntervalMs: CURIOSITY_INTERVAL_S * 1000, settleTimeoutMs: 120_000 });
    await nc.close();
    const result = { seed, durationS, faults, load: stats, verdict, requeued: requeuedIds(c), requeueStates: gatewayLines(c, "work messages missing") };
    const lostIds = [...verdict.investigationsNotTerminal, ...verdict.eventsUndelivered, ...verdict.ackedWritesLost, ...result.requeued];
    writeReport(out, result, traces(c, lostIds));
    const bad = lost(result) + verdict.ackedWritesLost.length + stats.violations.length + verdict.curiosityDoubled + verdict.curiositySkipped;
    keep = bad > 0 && args.flags.get("keep") === true;
    // On stderr too, which a failing test prints: a list gap next to the bucket's runs says where a run went missing.
    for (const gap of verdict.curiosityGaps) process.stderr.write(`chaos: ${curiosityGapLine(gap)}\n`);
    process.stdout.write(`${summaryLine(result)}\n`);
    return bad === 0 ? 0 : 1;
  } finally {
    await cluster?.stop();
    await receiver.close();
    if (cluster) saveLogs(cluster, join(dir, "logs"));
    if (keep) log(`kept ${dir} (logs in ${join(dir, "logs")})`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** Each process's output, restarts numbered: `<dir>/<label>.<n>.log`. */
function saveLogs(cluster: ChaosCluster, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const seen = new Map<string, number>();
  for (const c of cluster.history) {
    const n = (seen.get(c.label) ?? 0) + 1;
    seen.set(c.label, n);
    writeFileSync(join(dir, `${c.label}.${n}.log`), c.output());
  }
}

/** The log lines of every process that mention a lost id: what the report shows under "Lost". */
function traces(cluster: ChaosCluster, ids: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const id of ids.slice(0, 10)) {
    const lines: string[] = [];
    for (const c of cluster.history) for (const l of c.output().split("\n")) if (l.includes(id)) lines.push(`${c.label}: ${l.slice(0, 400)}`);
    out.set(id, lines.slice(0, 30));
  }
  return out;
}

/**
 * Investigations a gateway queued again because their work message was gone (services/gateway/requeue.ts): not
 * lost, but each is a message NATS acknowledged and no runner got, worth a line in the report.
 */
function requeuedIds(cluster: ChaosCluster): string[] {
  const ids = gatewayLines(cluster, "no work message left").map((l) => /"investigation_id":"([^"]+)"/.exec(l)?.[1]);
  return [...new Set(ids.filter((id): id is string => id !== undefined))];
}

/** The gateways' log lines that hold `text`, each with the replica's label. */
function gatewayLines(cluster: ChaosCluster, text: string): string[] {
  return cluster.history.filter((c) => c.label.startsWith("gateway")).flatMap((c) => c.output().split("\n").filter((l) => l.includes(text)).map((l) => `${c.label}: ${l.slice(0, 600)}`));
}

/** The pid of the ticker whose lease is current (services/ticker/leader.ts), null when none holds it. */
async function tickerLeaderPid(nc: NatsConnection): Promise<number | null> {
  const kv = await new Kvm(nc).open(CURIOSITY_BUCKETS.leader.name);
  const entry = await kv.get(LEADER_KEY);
  if (entry?.operation !== "PUT") return null;
  const pid = (entry.json() as { pid?: unknown }).pid;
  return typeof pid === "number" ? pid : null;
}

/** A management call retried across gateways through 503s and connection errors, for at most 60 s. */
async function retrying(gateways: string[], method: string, path: string, key: string, body?: unknown): Promise<unknown> {
  const deadline = Date.now() + 60_000;
  let last = "";
  for (let i = 0; Date.now() < deadline; i++) {
    try {
      const r = await fetch(`${gateways[i % gateways.length]}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await r.text();
      if (r.status < 300) return text ? JSON.parse(text) : null;
      last = `${r.status} ${text}`;
      if (r.status !== 503) throw new Error(`${method} ${path}: ${last}`);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith(method)) throw err;
      last = String(err);
    }
    await sleep(500);
  }
  throw new Error(`${method} ${path}: still failing after 60 s: ${last}`);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`chaos: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(2);
  },
);
