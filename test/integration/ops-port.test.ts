// The ops port of the runner, dispatcher and ticker (INQUEST_OPS_PORT) and the gateway's /metrics, over real HTTP
// against real processes: health, readiness, the metrics worth paging on with live values, and a SIGTERM that
// turns readiness false (never 200 again) and exits 0 for every service.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "tap";
import { freePort } from "../../shared/net.js";
import { REPO, type ServiceName, type ServiceProcess } from "../helpers/services.js";
import { sample } from "../helpers/metrics.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

let stack: Stack;
let receiver: Receiver;
const ports = new Map<ServiceName, number>();
const SERVICES: ServiceName[] = ["runner", "dispatcher", "ticker"];

async function get(port: number, path: string, method = "GET"): Promise<{ status: number; type: string; text: string; retryAfter: string | null }> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return { status: r.status, type: r.headers.get("content-type") ?? "", text: await r.text(), retryAfter: r.headers.get("retry-after") };
}

test("setup: gateway, and runner, dispatcher and ticker each with an ops port", async () => {
  receiver = await startReceiver();
  stack = await startStack({ services: ["gateway"], env: { INQUEST_CURIOSITY_MIN_INTERVAL: "1s", INQUEST_ALLOW_PRIVATE_TARGETS: "true" } });
  const started: ServiceProcess[] = [];
  for (const name of SERVICES) {
    const port = await freePort();
    ports.set(name, port);
    started.push(stack.start(name, { INQUEST_OPS_PORT: String(port) }));
  }
  await Promise.all(started.map((p) => p.ready()));
});

test("health, readiness and errors on every ops port", async (t) => {
  for (const [name, port] of ports) {
    t.same(JSON.parse((await get(port, "/healthz")).text), { ok: true }, `${name} /healthz`);
    const ready = await get(port, "/readyz");
    t.equal(ready.status, 200, `${name} /readyz: ${ready.text}`);
    const missing = await get(port, "/nope");
    t.equal(missing.status, 404);
    t.match(JSON.parse(missing.text), { error: { code: "not_found" } }, "the standard error body");
    t.equal((await get(port, "/metrics", "POST")).status, 405);
  }
});

test("metrics: memory, NATS and consumer lag everywhere; each service's own", async (t) => {
  for (const [name, port] of ports) {
    const m = await get(port, "/metrics");
    t.match(m.type, /^text\/plain; version=0\.0\.4/);
    t.ok((sample(m.text, "process_resident_memory_bytes ") ?? 0) > 1_000_000, `${name}: RSS`);
    t.equal(sample(m.text, "inquest_nats_connected "), 1, `${name}: NATS connected`);
    t.match(m.text, /# TYPE inquest_nats_reconnects_total counter/);
  }
  // Consumer info is refreshed every few seconds, and the durables appear once their services started them.
  const scrapeUntil = (name: ServiceName, re: RegExp) => eventually(async () => {
    const text = (await get(ports.get(name) as number, "/metrics")).text;
    return re.test(text) ? text : undefined;
  });
  const runner = await scrapeUntil("runner", /inquest_consumer_pending_messages\{stream="INQ_WORK"/);
  t.equal(sample(runner, 'inquest_consumer_pending_messages{stream="INQ_WORK",consumer="runner"} '), 0, "runner: its work-queue lag");
  t.match(runner, /inquest_agents\{status="online"\} 0/);
  const dispatcher = await scrapeUntil("dispatcher", /consumer="dispatcher-deliveries"\}[^\n]*\n[\s\S]*consumer="dispatcher-fanout"|consumer="dispatcher-fanout"\}[\s\S]*consumer="dispatcher-deliveries"/);
  t.match(dispatcher, /inquest_consumer_pending_messages\{stream="EVENTS",consumer="dispatcher-fanout"\} \d+/, "dispatcher: fan-out lag");
  t.match(dispatcher, /inquest_consumer_ack_pending_messages\{stream="[A-Z_]+",consumer="dispatcher-deliveries"\} \d+/, "dispatcher: deliveries in hand");
  const gateway = await api(stack.baseUrl, "GET", "/metrics");
  t.match(gateway.text, /inquest_http_requests_total/);
  t.equal(sample(gateway.text, "inquest_nats_connected "), 1, "the gateway's /metrics carries the NATS gauge too");
  t.equal(sample(gateway.text, "inquest_lmdb_reopens_total "), 0, "its LMDB reopens, 0 while its read models are small");

  // A curiosity run: the ticker leads, claims it and counts its lateness; the work queue shows the waiting run.
  const tickerPort = ports.get("ticker") as number;
  t.equal(sample((await get(tickerPort, "/metrics")).text, "inquest_ticker_leader "), 1, "the only ticker leads");
  // Its end is delivered to a webhook subscription: the dispatcher counts the attempt.
  const sub = await api(stack.baseUrl, "POST", "/v1/webhooks/subscriptions", { key: stack.key, body: { url: receiver.url("/ops"), events: ["investigation.completed"] } });
  t.equal(sub.status, 201, sub.text);
  const item = await api(stack.baseUrl, "POST", "/v1/curiosity", { key: stack.key, body: { query: "any cryptominers?", interval: "1h" } });
  t.equal(item.status, 201);
  const ticked = await eventually(async () => {
    const text = (await get(tickerPort, "/metrics")).text;
    return (sample(text, "inquest_ticker_runs_triggered_total ") ?? 0) >= 1 ? text : undefined;
  });
  t.equal(sample(ticked, "inquest_ticker_lateness_seconds_count "), 1, "one claim, one lateness sample");
  t.ok((sample(ticked, 'inquest_ticker_lateness_seconds_bucket{le="1"} ') ?? 0) >= 1, "within the contract's second");
  // The runner ends that run and times it, by mode, depth and outcome.
  const ended = await eventually(async () => {
    const text = (await get(ports.get("runner") as number, "/metrics")).text;
    return /inquest_investigation_duration_seconds_count\{[^}]*status="completed"\} 1/.test(text) ? text : undefined;
  });
  t.match(ended, /inquest_investigation_duration_seconds_count\{mode="(auto|live|cached)",depth="(quick|standard|deep)",status="completed"\} 1/);
  t.match(ended, /inquest_investigation_duration_seconds_bucket\{[^}]*le="\+Inf"\} 1/);
  // And each of its phases, once the run's events are out.
  const phased = await eventually(async () => {
    const text = (await get(ports.get("runner") as number, "/metrics")).text;
    return /inquest_investigation_phase_seconds_count\{phase="announce"\} 1/.test(text) ? text : undefined;
  });
  for (const phase of ["collect", "evaluate", "store", "announce"]) t.match(phased, new RegExp(`inquest_investigation_phase_seconds_count\\{phase="${phase}"\\} 1`), `the ${phase} phase timed`);
  const delivered = await eventually(async () => {
    const text = (await get(ports.get("dispatcher") as number, "/metrics")).text;
    return /inquest_delivery_attempts_total\{outcome="delivered",status_class="2xx"\} 1/.test(text) ? text : undefined;
  });
  t.match(delivered, /inquest_delivery_attempt_duration_seconds_count 1/);
  t.match(delivered, /inquest_delivery_first_attempts_total\{outcome="made"\} 1/, "the fan-out made that first attempt itself");
});

test("every metric the alert rules and the dashboard use is one the services expose", async (t) => {
  const exposed = new Set<string>();
  const scrapes = [...[...ports.values()].map(async (port) => (await get(port, "/metrics")).text), api(stack.baseUrl, "GET", "/metrics").then((r) => r.text)];
  for (const text of await Promise.all(scrapes)) for (const m of text.matchAll(/^# TYPE (\S+) /gm)) exposed.add(m[1] as string);
  for (const file of ["deploy/prometheus/alerts.yaml", "deploy/grafana/inquest-dashboard.json"]) {
    const used = new Set([...readFileSync(join(REPO, file), "utf8").matchAll(/\b(inquest_[a-z_]+|process_[a-z_]+)\b/g)].map((m) => (m[1] as string).replace(/_(bucket|sum|count)$/, "")));
    t.ok(used.size >= 5, `${file} uses ${used.size} metrics`);
    for (const name of used) t.ok(exposed.has(name), `${file}: ${name} is exposed`);
  }
});

test("SIGTERM: readiness never 200 again, and every service exits 0", async (t) => {
  for (const name of SERVICES) {
    const port = ports.get(name) as number;
    const proc = [...stack.services.values()].find((p) => p.name === name) as ServiceProcess;
    const exited = proc.kill("SIGTERM");
    let gone = false;
    void exited.then(() => (gone = true));
    // From the moment the process says it is shutting down (signals are handled on its event loop's next turn).
    await eventually(async () => (gone || proc.output().includes('"msg":"shutting down"') ? true : undefined), 10_000, 5);
    const answers: number[] = [];
    let unavailableWithoutRetry = 0;
    while (!gone) {
      const r = await get(port, "/readyz").catch(() => undefined);
      const status = r?.status ?? 0;
      if (status === 503 && r?.retryAfter !== "1") unavailableWithoutRetry++;
      answers.push(status);
      if (status === 0) break;
    }
    t.equal(unavailableWithoutRetry, 0, `${name}: every 503 from /readyz carries Retry-After`);
    t.equal(await exited, 0, `${name} exits 0 on SIGTERM`);
    t.notOk(answers.includes(200), `${name}: /readyz never 200 after SIGTERM (${[...new Set(answers)].join(", ")})`);
  }
  const gw = [...stack.services.values()].find((p) => p.name === "gateway") as ServiceProcess;
  t.equal(await gw.kill("SIGTERM"), 0, "gateway exits 0 on SIGTERM");
});

test("teardown", async () => {
  await stack.stop();
  await receiver.close();
});
