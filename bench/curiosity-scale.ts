// `make bench-curiosity`: the curiosity ticker with a large queue (default 100,000 active items), writing
// bench/curiosity.md. Most items are weekly questions not due during the bench; a few hundred fall due one after
// another over a minute, and each is timed from its next_run_at to the moment its investigation was triggered
// (the investigation's started_at). A real nats-server, the compiled gateway, runner and ticker as child processes;
// everything is stopped and removed at the end, on failure and on Ctrl-C. Targets (issue 9): lateness p99 < 250 ms
// with 100,000 active items, ticker peak RSS < 150 MiB.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { iso } from "../shared/clock.js";
import { CURIOSITY_BUCKETS } from "../shared/curiosity/catalog.js";
import { newRecord } from "../shared/curiosity/schedule.js";
import { forEachLimited } from "../shared/concurrency.js";
import { newId } from "../shared/ids.js";
import { encodeJson } from "../shared/nats/kvjson.js";
import { freePort, natsServerVersion, peakRssKb, startService } from "./investigations.js";
import { benchProcess, envInt, jsonClient, mib, pct, startCore, waitFor } from "./scale-harness.js";

const HERE = dirname(fileURLToPath(import.meta.url)); // dist/bench
const RESULTS = resolve(HERE, "..", "..", "bench", "curiosity.md");
const KEY = `inq_bench_${randomBytes(24).toString("hex")}`;

const ITEMS = envInt("BENCH_CURIOSITY_ITEMS", 100_000);
const DUE = Math.min(ITEMS, envInt("BENCH_CURIOSITY_DUE", 600));
const WINDOW_MS = envInt("BENCH_CURIOSITY_WINDOW_MS", 60_000);
/** The first due item falls due this long after the items are written and the ticker has loaded them. */
const LEAD_MS = 5_000;

const { log, res } = benchProcess("bench-curiosity");
const http = jsonClient(KEY);

async function main(): Promise<void> {
  const t0 = Date.now();
  const { nats, env, gateway, baseUrl, runner } = await startCore(res, "curiosity", KEY);

  // The items, written straight into the bucket as the API would store them (the API at 100,000 POSTs would
  // measure the gateway, not the ticker). The gateway provisioned the bucket.
  const nc = await connect({ servers: env.NATS_URL as string });
  const kv = await new Kvm(nc).open(CURIOSITY_BUCKETS.items.name);
  const writeStart = Date.now();
  const dueAt = new Map<string, number>();
  const ids = Array.from({ length: ITEMS }, (_, i) => ({ i, id: newId("cur") }));
  // Due items get their time once every item is written and the ticker is up (set after), the rest a week out.
  const weekOut = Date.now() + 7 * 86_400_000;
  await forEachLimited(ids, 256, async ({ i, id }) => {
    const record = newRecord(id, { query: `standing question ${i}: any new listeners on unexpected ports?`, interval: "1w", first_run_at: iso(weekOut + i) }, null, Date.now());
    await kv.put(id, encodeJson(record));
  });
  log(`${ITEMS} items written in ${((Date.now() - writeStart) / 1000).toFixed(1)} s`);

  // The ticker is ready once its copy of the queue is loaded (its ops port says so); then DUE items are brought
  // due one after another across the window: each becomes due at its own moment, as in a live queue.
  const opsPort = await freePort();
  const tickerStart = Date.now();
  const ticker = startService(res, "ticker", { ...env, INQUEST_OPS_PORT: String(opsPort) });
  await waitFor("ticker ready", async () => ((await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status === 200 ? true : undefined), 300_000, 250);
  log(`ticker ready with ${ITEMS} items in ${((Date.now() - tickerStart) / 1000).toFixed(1)} s`);
  const windowStart = Date.now() + LEAD_MS;
  const due = ids.slice(0, DUE);
  await forEachLimited(due, 64, async ({ i, id }) => {
    const at = windowStart + Math.floor((i * WINDOW_MS) / DUE);
    const entry = await kv.get(id);
    if (!entry) throw new Error(`item ${id} vanished`);
    const record = JSON.parse(entry.string());
    const next = { ...record, first_run_at: iso(at), next_run_at: iso(at), updated_at: iso(Date.now()) };
    await kv.update(id, encodeJson(next), entry.revision);
    dueAt.set(id, at);
  });
  log(`${DUE} items fall due over ${WINDOW_MS / 1000} s from now + ${LEAD_MS / 1000} s`);

  // Every due item's run, found through the API (trigger_source=curiosity), timed from its due time.
  const lateness = new Map<string, number>();
  await waitFor(`${DUE} curiosity runs triggered`, async () => {
    let cursor: string | null = null;
    do {
      const page = await http("GET", `${baseUrl}/v1/investigations?trigger_source=curiosity&limit=200${cursor ? `&cursor=${cursor}` : ""}`);
      for (const inv of page.json.investigations as Array<{ started_at: string; context: { curiosity_id: string | null } }>) {
        const id = inv.context.curiosity_id;
        const at = id === null ? undefined : dueAt.get(id);
        if (id !== null && at !== undefined && !lateness.has(id)) lateness.set(id, Date.parse(inv.started_at) - at);
      }
      cursor = page.json.next_cursor;
    } while (cursor);
    log(`  ${lateness.size} of ${DUE} runs triggered`);
    return lateness.size >= DUE ? true : undefined;
  }, WINDOW_MS + LEAD_MS + 120_000, 5_000);
  const lates = [...lateness.values()];
  const figures = {
    p50: pct(lates, 50),
    p99: pct(lates, 99),
    max: Math.max(...lates),
    early: lates.filter((l) => l < 0).length,
    tickerRss: peakRssKb(ticker.proc.pid),
    gatewayRss: peakRssKb(gateway.proc.pid),
    runnerRss: peakRssKb(runner.proc.pid),
    natsRss: peakRssKb(nats.proc.pid),
  };
  log(`lateness p50 ${figures.p50} ms, p99 ${figures.p99} ms, max ${figures.max} ms; ticker peak RSS ${mib(figures.tickerRss)}`);
  await nc.close();
  writeResults(figures, Date.now() - t0);
  await res.cleanup();
}

function writeResults(f: { p50: number; p99: number; max: number; early: number; tickerRss: number | null; gatewayRss: number | null; runnerRss: number | null; natsRss: number | null }, totalMs: number): void {
  const met = (ok: boolean): string => (ok ? "met" : "**missed**");
  const md = `# Curiosity-scale bench (\`make bench-curiosity\`)

Measured ${new Date().toISOString()} on ${platform()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load average at the end ${loadavg().map((l) => l.toFixed(2)).join(" ")} (a shared machine), Node ${process.version}, nats-server ${natsServerVersion()}.

One nats-server (JetStream, file store), one gateway, one runner, one ticker. ${ITEMS} active curiosity items (weekly
questions, written straight into \`inq_curiosity\`); ${DUE} of them fall due one after another over ${WINDOW_MS / 1000} s,
the rest a week out. Lateness: from an item's \`next_run_at\` to its investigation's \`started_at\` (the trigger).

| | figure | target |
|---|---|---|
| active items | ${ITEMS} | 100000 |
| runs timed | ${DUE} | |
| lateness p50 | ${f.p50} ms | |
| lateness p99 | ${f.p99} ms | < 250 ms: ${met(f.p99 < 250)} |
| lateness max | ${f.max} ms | < 1000 ms (CONTRACT) : ${met(f.max < 1000)} |
| runs triggered before their time | ${f.early} | 0 |
| ticker peak RSS (VmHWM) | ${mib(f.tickerRss)} | < 150 MiB: ${met(f.tickerRss !== null && f.tickerRss < 150 * 1024)} |
| gateway peak RSS | ${mib(f.gatewayRss)} | |
| runner peak RSS | ${mib(f.runnerRss)} | |
| nats-server peak RSS | ${mib(f.natsRss)} | |

Whole bench: ${(totalMs / 1000).toFixed(0)} s.
`;
  writeFileSync(RESULTS, md);
  log(`wrote ${RESULTS}`);
}

main().catch(async (err: unknown) => {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await res.cleanup();
  process.exit(1);
});
