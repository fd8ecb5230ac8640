// `make bench`: the investigation bench, then the webhook bench when bench/webhooks.ts exists, and
// bench/results.md with the machine, the method and the figures. Everything started is stopped at the end,
// on failure and on Ctrl-C too.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { LoadResult } from "./http-load.js";
import { writeChart, type Bar, type Figure } from "./figures.js";
import type { WebhookBench } from "./webhooks.js";
import { benchInvestigations, natsServerVersion, type InvestigationBench } from "./investigations.js";
import { benchProcess } from "./scale-harness.js";

const HERE = dirname(fileURLToPath(import.meta.url)); // dist/bench
const BENCH_DIR = resolve(HERE, "..", "..", "bench");
const RESULTS = join(BENCH_DIR, "results.md");
/** The ratios of the last run, read by `make bench-check` (bench/check.ts). */
const RESULTS_JSON = join(BENCH_DIR, "results.json");

const { log, res: resources } = benchProcess("bench");

async function webhookSection(): Promise<{ bench: WebhookBench | null; text: string; failed: boolean } | null> {
  const file = join(HERE, "webhooks.js");
  if (!existsSync(file)) {
    log("webhooks: bench/webhooks.ts not present, skipped");
    return null;
  }
  try {
    const mod = (await import(pathToFileURL(file).href)) as { benchWebhooks?: () => Promise<WebhookBench> };
    if (typeof mod.benchWebhooks !== "function") return { bench: null, text: "## Webhooks\n\n`bench/webhooks.js` does not export `benchWebhooks()`; skipped.\n", failed: true };
    log("webhooks: running benchWebhooks()");
    const bench = await mod.benchWebhooks();
    if (bench.bullmq === null) log("webhooks: no Redis answered on 127.0.0.1:6379; the BullMQ peer was skipped");
    return { bench, text: bench.text, failed: false };
  } catch (err) {
    log(`webhooks: failed: ${err instanceof Error ? err.message : String(err)}`);
    return { bench: null, text: `## Webhooks\n\nThe webhook bench failed: \`${err instanceof Error ? err.message.split("\n")[0] : String(err)}\`\n`, failed: true };
  }
}

function ratio(a: number, b: number): string {
  return b > 0 ? `${((a / b) * 100).toFixed(1)} %` : "n/a";
}

function times(a: number, b: number): string {
  return b > 0 ? `${(a / b).toFixed(2)}×` : "n/a";
}

function mib(kb: number | null): string {
  return kb === null ? "n/a" : `${(kb / 1024).toFixed(1)} MiB`;
}

const div = (a: number, b: number): number | null => (b > 0 ? a / b : null);

/** The headline figures (issue 9), each with Inquest, its peer and its ceiling. */
export function figures(b: InvestigationBench, w: WebhookBench | null): Figure[] {
  const out: Figure[] = [
    {
      key: "get_vs_fastify",
      title: "GET /v1/investigations/{id}",
      unit: "req/s",
      bars: [
        { label: "Inquest (uWS)", value: b.get.rps },
        { label: "Fastify peer", value: b.peerGet.rps },
        { label: "uWS hello world", value: b.ceiling.rps },
      ],
      ratio: div(b.get.rps, b.peerGet.rps),
      target: 2,
    },
    {
      key: "get_vs_uws_hello",
      title: "GET by id against the uWS hello world",
      unit: "req/s",
      bars: [
        { label: "Inquest GET", value: b.get.rps },
        { label: "uWS hello world", value: b.ceiling.rps },
      ],
      ratio: div(b.get.rps, b.ceiling.rps),
      target: 0.5,
    },
    {
      key: "post_vs_fastify",
      title: "POST /v1/investigations",
      unit: "req/s",
      bars: [
        { label: "Inquest (uWS)", value: b.create.rps },
        { label: "Fastify peer", value: b.peerCreate.rps },
        { label: "Fastify hello world", value: b.peerHello.rps },
      ],
      ratio: div(b.create.rps, b.peerCreate.rps),
      target: 1.5,
    },
    {
      key: "hello_uws_vs_fastify",
      title: "Hello world (the two ceilings)",
      unit: "req/s",
      bars: [
        { label: "uWS hello world", value: b.ceiling.rps },
        { label: "Fastify hello world", value: b.peerHello.rps },
      ],
      ratio: div(b.ceiling.rps, b.peerHello.rps),
      target: null,
    },
    {
      key: "gateway_rss_vs_fastify",
      title: "Peak RSS of the HTTP server (lower is better)",
      unit: "MiB",
      bars: [
        { label: "Inquest gateway", value: (b.peakRssKb.gateway ?? 0) / 1024 },
        { label: "Fastify peer", value: (b.peakRssKb.fastify ?? 0) / 1024 },
      ],
      ratio: b.peakRssKb.gateway && b.peakRssKb.fastify ? b.peakRssKb.fastify / b.peakRssKb.gateway : null,
      target: null,
    },
  ];
  if (w) {
    out.push(
      {
        key: "deliveries_vs_bullmq",
        title: "Webhook deliveries/s (burst of 3,000)",
        unit: "deliveries/s",
        bars: [
          { label: "Inquest dispatcher", value: w.dispatcher.rate },
          { label: "BullMQ peer", value: w.bullmq?.rate ?? 0 },
          { label: "bare JetStream loop", value: w.ceiling.rate },
        ],
        ratio: w.bullmq ? div(w.dispatcher.rate, w.bullmq.rate) : null,
        target: 2,
      },
      {
        key: "deliveries_steady_vs_bullmq",
        title: "Webhook deliveries/s, steady (median of 3 later bursts)",
        unit: "deliveries/s",
        bars: [
          { label: "Inquest dispatcher", value: w.dispatcher.steadyRate ?? 0 },
          { label: "BullMQ peer", value: w.bullmq?.steadyRate ?? 0 },
          { label: "bare JetStream loop", value: w.ceiling.steadyRate ?? 0 },
        ],
        ratio: w.bullmq?.steadyRate !== undefined && w.dispatcher.steadyRate !== undefined ? div(w.dispatcher.steadyRate, w.bullmq.steadyRate) : null,
        target: 2,
      },
      {
        key: "delivery_p99_vs_bullmq",
        title: "Event → receipt p99 at 200/s (lower is better)",
        unit: "ms",
        bars: [
          { label: "Inquest dispatcher", value: w.dispatcher.p99 },
          { label: "BullMQ peer", value: w.bullmq?.p99 ?? 0 },
          { label: "bare JetStream loop", value: w.ceiling.p99 },
        ],
        ratio: w.bullmq ? div(w.bullmq.p99, w.dispatcher.p99) : null,
        target: null,
      },
    );
  }
  return out;
}

function loadRow(name: string, r: LoadResult, peer: LoadResult | null, ceiling: LoadResult): string {
  const statuses = Object.entries(r.statuses).map(([k, v]) => `${k}: ${v}`).join(", ");
  return `| ${name} | ${r.rps.toFixed(0)} | ${r.p50_ms.toFixed(1)} | ${r.p99_ms.toFixed(1)} | ${peer ? times(r.rps, peer.rps) : ""} | ${ratio(r.rps, ceiling.rps)} | ${r.requests} | ${r.errors} | ${statuses} |`;
}

function report(b: InvestigationBench, wh: { bench: WebhookBench | null; text: string } | null, loadBefore: number[], loadAfter: number[], figs: Figure[], charts: string[]): string {
  const cpu = cpus();
  const s = b.settings;
  const w = wh?.bench ?? null;
  const lines = [
    "# Bench results",
    "",
    `Generated by \`make bench\` (\`node dist/bench/run.js\`) on ${new Date().toISOString()}. Every figure below comes from this one run, the peers`,
    "measured in the same run against the same nats-server (issue 9). Method and profiles: bench/README.md.",
    "",
    "## Machine",
    "",
    `- CPUs: ${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown"}`,
    `- Memory: ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `- OS: ${platform()} ${release()}`,
    `- Node: ${process.version}; uWebSockets.js build loaded: ${b.uws}`,
    `- nats-server: ${b.natsVersion}`,
    `- Load average (1/5/15 min) when the bench started: ${loadBefore.map((l) => l.toFixed(2)).join(" / ")}; when it ended: ${loadAfter.map((l) => l.toFixed(2)).join(" / ")}` +
      ((loadBefore[0] ?? 0) > 0.5 ? ". Other work was running on this shared machine: absolute figures are noisy, the ratios within this run are what count." : ""),
    "",
    "## Headline ratios (higher is better)",
    "",
    "| figure | Inquest | peer | ceiling | ratio | issue 9 target |",
    "|---|---:|---:|---:|---:|---:|",
    ...figs.map((f) => {
      const [a, p, c] = f.bars;
      const v = (x: Bar | undefined) => (x ? `${x.value.toFixed(x.value >= 100 ? 0 : 1)} ${f.unit}` : "");
      return `| ${f.title} | ${v(a)} | ${f.ratio === null && f.key.includes("bullmq") ? "skipped (no Redis)" : v(p)} | ${v(c)} | ${f.ratio === null ? "n/a" : `${f.ratio.toFixed(2)}×`} | ${f.target === null ? "" : `≥ ${f.target}×${f.ratio !== null ? (f.ratio >= f.target ? " (met)" : " (missed)") : ""}`} |`;
    }),
    "",
    "Ratio = Inquest ÷ peer (for latency and memory: peer ÷ Inquest, so higher is better everywhere); for the hello-world row, uWS ÷ Fastify.",
    "",
    ...charts.map((c) => `![${c}](charts/${c}.png)`),
    "",
    "## HTTP figures",
    "",
    `autocannon (its own process), ${s.concurrency} connections, ${s.warmupMs / 1000} s warm-up (not counted) then ${s.durationMs / 1000} s measured, keep-alive, loopback.`,
    "Inquest = the compiled gateway; Fastify peer = `bench/peers/fastify-app.ts`; both against the same fresh nats-server (`-js`, temp store),",
    `no runner working while they are measured. GET reads one finished investigation (\`${b.getTargetStatus}\`); POST sends`,
    "`{\"query\":\"are any prod hosts listening on unexpected ports?\",\"mode\":\"cached\"}` without an idempotency key (every request a new investigation).",
    "",
    "| measurement | req/s | p50 ms | p99 ms | vs peer | vs uWS hello | requests | errors | statuses |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    loadRow("Inquest GET /v1/investigations/{id}", b.get, b.peerGet, b.ceiling),
    loadRow("Fastify GET (bearer + KV read)", b.peerGet, null, b.ceiling),
    loadRow("Inquest POST /v1/investigations", b.create, b.peerCreate, b.ceiling),
    loadRow("Fastify POST (schema + 3 JetStream steps)", b.peerCreate, null, b.ceiling),
    loadRow("uWS hello world (ceiling)", b.ceiling, b.peerHello, b.ceiling),
    loadRow("Fastify hello world", b.peerHello, null, b.ceiling),
    "",
    `Work queue when Inquest's POST run ended: ${b.workQueueAfterCreate ?? "n/a"} accepted investigations waiting (no runner was working). The gateway is stopped before the Fastify peer's POST run: the peer writes the bucket the gateway follows, and the gateway would index the peer's records while it is measured.`,
    "",
    "## Peak RSS (VmHWM) of every process",
    "",
    "| process | peak RSS |",
    "|---|---:|",
    `| gateway (HTTP bench) | ${mib(b.peakRssKb.gateway)} |`,
    `| runner (one investigation) | ${mib(b.peakRssKb.runner)} |`,
    `| nats-server (HTTP bench) | ${mib(b.peakRssKb.nats)} |`,
    `| Fastify peer | ${mib(b.peakRssKb.fastify)} |`,
    ...(w
      ? [
          `| gateway (webhook bench) | ${mib(w.peakRssKb.gateway)} |`,
          `| dispatcher | ${mib(w.peakRssKb.dispatcher)} |`,
          `| nats-server (webhook bench) | ${mib(w.peakRssKb.nats)} |`,
          `| BullMQ peer worker | ${w.bullmq ? mib(w.peakRssKb.bullmq) : "skipped"} |`,
        ]
      : []),
    "",
    `Investigation bench wall time: ${(b.wallMs / 1000).toFixed(1)} s.`,
    "",
  ];
  if (wh) lines.push(wh.text.trimEnd(), "");
  return lines.join("\n");
}

async function main(): Promise<number> {
  const started = Date.now();
  const loadBefore = loadavg();
  log(`machine: ${cpus().length} CPUs, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB, node ${process.version}, nats-server ${natsServerVersion()}`);
  let bench: InvestigationBench;
  try {
    bench = await benchInvestigations(resources, log);
  } finally {
    await resources.cleanup();
  }
  const webhooks = await webhookSection();
  const figs = figures(bench, webhooks?.bench ?? null);
  mkdirSync(join(BENCH_DIR, "charts"), { recursive: true });
  const charts: string[] = [];
  for (const f of figs) {
    if (writeChart(f, join(BENCH_DIR, "charts", f.key))) charts.push(f.key);
    else log(`chart ${f.key}: rsvg-convert missing or failed; SVG only (make bench installs librsvg2-bin)`);
  }
  writeFileSync(RESULTS, report(bench, webhooks, loadBefore, loadavg(), figs, charts));
  writeFileSync(RESULTS_JSON, `${JSON.stringify({ generated_at: new Date().toISOString(), load_average: loadBefore, ratios: Object.fromEntries(figs.map((f) => [f.key, f.ratio])) }, null, 2)}\n`);
  for (const f of figs) log(`${f.key}: ${f.ratio === null ? "n/a" : `${f.ratio.toFixed(2)}×`}${f.target !== null ? ` (target ≥ ${f.target}×)` : ""}`);
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.stdout.write(`${RESULTS}\n`);
  return webhooks?.failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (err: unknown) => {
    process.stderr.write(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await resources.cleanup();
    process.exitCode = 1;
  },
);
