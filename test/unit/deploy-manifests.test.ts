// deploy/ checked without a cluster (images cannot be pulled here): every Kubernetes object against its schema
// (kubernetes-models, the Kubernetes OpenAPI schemas), the kustomization's resources, every setting the manifests
// and the compose file give a service is one that service reads, every probe points at a port the pod opens, the
// NATS values carry what the official chart needs for a JetStream cluster, and the alert rules are well formed.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "tap";
import { ConfigMap, Namespace, Secret, Service } from "kubernetes-models/v1";
import { DaemonSet, Deployment } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { parseAllDocuments, parse } from "yaml";
import { commonEnv, opsEnv } from "../../shared/config.js";
import { agentEnv } from "../../services/agent/config.js";
import { dispatcherEnv } from "../../services/dispatcher/config.js";
import { gatewayEnv } from "../../services/gateway/config.js";
import { runnerEnv } from "../../services/runner/config.js";
import { tickerEnv } from "../../services/ticker/config.js";
import { REPO } from "../helpers/services.js";
import { SERVICE_ENV, SERVICE_NAMES, serviceArgs, serviceEnv, type ServiceName } from "../../shared/launch.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

const K8S = join(REPO, "deploy", "k8s", "base");
const OVERLAYS = join(REPO, "deploy", "k8s", "overlays");
const MODELS: Record<string, new (data: Obj) => { validate(): void }> = {
  "v1/Namespace": Namespace,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "apps/v1/DaemonSet": DaemonSet,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler as unknown as new (data: Obj) => { validate(): void },
};
/** Variables a service reads (its env spec); NODE_OPTIONS and the like are Node's own. */
const KNOWN_ENV = new Set([
  ...Object.keys({ ...commonEnv, ...opsEnv, ...gatewayEnv, ...runnerEnv, ...tickerEnv, ...dispatcherEnv, ...agentEnv }),
  "NODE_OPTIONS",
  "NODE_ENV",
  // Read by the C library (shared/launch.ts SERVICE_ENV).
  ...Object.values(SERVICE_ENV).flatMap((e) => Object.keys(e)),
]);

function docs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join("; ")}`);
      return d.toJS() as Obj | null;
    })
    .filter((d): d is Obj => d !== null);
}

const manifests = readdirSync(K8S)
  .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml" && f !== "nats-values.yaml")
  .flatMap((f) => docs(join(K8S, f)).map((o) => ({ file: f, o })));

function podSpecs(): Array<{ name: string; spec: Obj }> {
  return manifests.filter(({ o }) => o.kind === "Deployment" || o.kind === "DaemonSet").map(({ o }) => ({ name: `${o.kind}/${o.metadata.name}`, spec: o.spec.template.spec }));
}

test("every Kubernetes object is valid against its schema", async (t) => {
  t.ok(manifests.length >= 10, `${manifests.length} objects`);
  for (const { file, o } of manifests) {
    const model = MODELS[`${o.apiVersion}/${o.kind}`];
    if (!model) {
      t.fail(`${file}: ${o.apiVersion} ${o.kind} has no validator here (add its model)`);
      continue;
    }
    t.doesNotThrow(() => new model(o).validate(), `${file}: ${o.kind}/${o.metadata?.name}`);
  }
});

test("the validator catches what a broken manifest looks like", async (t) => {
  const deployment = manifests.find(({ o }) => o.kind === "Deployment")?.o as Obj;
  const broken = structuredClone(deployment);
  broken.spec.replicas = "two";
  t.throws(() => new Deployment(broken).validate(), /replicas must be integer/);
  const policy = structuredClone(deployment);
  policy.spec.template.spec.containers[0].imagePullPolicy = "Sometimes";
  t.throws(() => new Deployment(policy).validate());
});

test("the kustomization lists files that exist, and every manifest is listed or said not to be", async (t) => {
  const k = parse(readFileSync(join(K8S, "kustomization.yaml"), "utf8")) as Obj;
  const text = readFileSync(join(K8S, "kustomization.yaml"), "utf8");
  const files = new Set(readdirSync(K8S));
  for (const r of k.resources as string[]) t.ok(files.has(r), `${r} exists`);
  for (const f of files) {
    if (!f.endsWith(".yaml") || f === "kustomization.yaml" || f === "nats-values.yaml") continue;
    t.ok((k.resources as string[]).includes(f) || text.includes(`#   ${f}`), `${f} is applied or named as not applied`);
  }
  t.ok((k.images as Obj[]).some((i) => i.name === "inquest"), "the image is pinned in one place");
});

test("every setting the manifests give a service is one it reads; every referenced map and secret exists", async (t) => {
  const maps = new Set(manifests.filter(({ o }) => o.kind === "ConfigMap").map(({ o }) => o.metadata.name as string));
  const secrets = new Set(manifests.filter(({ o }) => o.kind === "Secret").map(({ o }) => o.metadata.name as string));
  for (const { o } of manifests.filter(({ o }) => o.kind === "ConfigMap" || o.kind === "Secret")) {
    // *.nk keys are files (NATS seeds, mounted as volumes: checked below), not variables.
    for (const key of Object.keys(o.data ?? o.stringData ?? {}).filter((k) => !k.endsWith(".nk"))) t.ok(KNOWN_ENV.has(key), `${o.kind}/${o.metadata.name}: ${key} is read by a service`);
  }
  for (const { name, spec } of podSpecs()) {
    for (const c of spec.containers as Obj[]) {
      for (const e of (c.env ?? []) as Obj[]) t.ok(KNOWN_ENV.has(e.name), `${name}: env ${e.name} is read by a service`);
      for (const from of (c.envFrom ?? []) as Obj[]) {
        if (from.configMapRef) t.ok(maps.has(from.configMapRef.name), `${name}: ConfigMap ${from.configMapRef.name} exists`);
        if (from.secretRef) t.ok(secrets.has(from.secretRef.name), `${name}: Secret ${from.secretRef.name} exists (template)`);
      }
    }
  }
});

test("every service and the fleet connect to NATS as their own nkey user, from a mounted Secret that exists", async (t) => {
  const secrets = new Map(manifests.filter(({ o }) => o.kind === "Secret").map(({ o }) => [o.metadata.name as string, Object.keys(o.stringData ?? o.data ?? {})]));
  for (const { name, spec } of podSpecs().filter(({ name }) => name.startsWith("Deployment/"))) {
    const c = (spec.containers as Obj[])[0] as Obj;
    const seed = ((c.env ?? []) as Obj[]).find((e) => e.name === "NATS_NKEY_SEED_FILE")?.value as string | undefined;
    if (!t.ok(seed, `${name}: NATS_NKEY_SEED_FILE is set`) || !seed) continue;
    const mount = ((c.volumeMounts ?? []) as Obj[]).find((m) => seed.startsWith(`${m.mountPath}/`));
    if (!t.ok(mount, `${name}: ${seed} is on a mounted volume`) || !mount) continue;
    t.equal(mount.readOnly, true, `${name}: mounted read-only`);
    const volume = ((spec.volumes ?? []) as Obj[]).find((v) => v.name === mount.name);
    const secretName = volume?.secret?.secretName as string;
    t.ok(secrets.has(secretName), `${name}: Secret ${secretName} exists (template)`);
    const key = seed.slice(mount.mountPath.length + 1);
    t.ok(((volume?.secret?.items ?? []) as Obj[]).some((i) => i.key === key && i.path === key), `${name}: the Secret's ${key} is mounted as ${seed}`);
    t.ok(secrets.get(secretName)?.includes(key), `${name}: the template holds ${key}`);
    t.equal(key, name === "Deployment/agent-fleet" ? "fleet.nk" : "services.nk", `${name}: the right user`);
  }
});

test("every probe points at a port the container opens", async (t) => {
  let probes = 0;
  for (const { name, spec } of podSpecs()) {
    for (const c of spec.containers as Obj[]) {
      const ports = new Map<string | number, number>();
      for (const p of (c.ports ?? []) as Obj[]) {
        ports.set(p.containerPort, p.containerPort);
        if (p.name) ports.set(p.name, p.containerPort);
      }
      for (const kind of ["readinessProbe", "livenessProbe", "startupProbe"]) {
        const probe = c[kind] as Obj | undefined;
        const port = probe?.httpGet?.port;
        if (port === undefined) continue;
        probes++;
        t.ok(ports.has(port), `${name} ${kind}: port ${port} is one of the container's ports`);
        t.match(probe?.httpGet.path, /^\/(healthz|readyz)$/, `${name} ${kind}: a health path the ops port serves`);
      }
    }
  }
  t.ok(probes >= 8, `${probes} probes checked`);
});

test("the NATS values give the official chart a three-node JetStream cluster on file storage", async (t) => {
  const v = parse(readFileSync(join(K8S, "nats-values.yaml"), "utf8")) as Obj;
  t.match(v.config, { cluster: { enabled: true, replicas: 3 }, jetstream: { enabled: true, fileStore: { enabled: true, pvc: { enabled: true } } } });
  t.ok(Number(v.config.merge?.max_payload) >= 1024 * 1024, "max_payload at least the 1 MiB the agents fit answers to");
  const cm = manifests.find(({ o }) => o.kind === "ConfigMap")?.o as Obj;
  t.equal(cm.data.INQUEST_NATS_REPLICAS, String(v.config.cluster.replicas), "services provision as many replicas as the cluster has nodes");
});

test("compose: every service runs the image with settings it reads, on three NATS nodes", async (t) => {
  const c = parse(readFileSync(join(REPO, "deploy", "compose", "docker-compose.yml"), "utf8"), { merge: true }) as Obj;
  const services = c.services as Obj;
  for (const name of ["nats-1", "nats-2", "nats-3", "gateway", "runner", "ticker", "dispatcher", "agent"]) t.ok(services[name], `${name} is defined`);
  for (const [name, s] of Object.entries(services) as Array<[string, Obj]>) {
    t.ok(typeof s.image === "string", `${name}: an image`);
    const env = Array.isArray(s.environment) ? Object.fromEntries((s.environment as string[]).map((e) => e.split("="))) : (s.environment ?? {});
    if (name.startsWith("nats")) continue;
    for (const key of Object.keys(env)) t.ok(KNOWN_ENV.has(key), `${name}: ${key} is read by a service`);
    for (const file of (s.env_file ?? []) as Array<string | Obj>) {
      const path = typeof file === "string" ? file : (file.path as string);
      const example = join(REPO, "deploy", "compose", `${path.replace(/^\.\//, "")}.example`);
      t.doesNotThrow(() => readFileSync(example), `${name}: ${path} has its .example`);
    }
  }
  t.match(services.gateway.environment.NATS_URL, /nats-1.*nats-2.*nats-3/);
  for (const name of ["runner", "ticker", "dispatcher"]) {
    const s = services[name] as Obj;
    t.match(s.environment, { INQUEST_OPS_HOST: "0.0.0.0", INQUEST_OPS_PORT: "9090" }, `${name}: its ops port`);
    t.match(s.healthcheck?.test?.join(" "), /127\.0\.0\.1:9090\/readyz/, `${name}: Docker reads readiness from it`);
  }
});

/** The service a `node ... dist/services/<name>/main.js` command starts, and that command as shared/launch.ts has it. */
function expectedCommand(command: readonly string[]): { service: ServiceName; expected: string[] } | null {
  const main = command.find((a) => /^dist\/services\/[a-z]+\/main\.js$/.test(a));
  const service = main?.split("/")[2] as ServiceName | undefined;
  if (!service || !SERVICE_NAMES.includes(service)) return null;
  return { service, expected: ["node", ...serviceArgs(service, "dist")] };
}

test("every container, compose service, image default and unit starts its service with the Node flags of shared/launch.ts", async (t) => {
  const commands: Array<{ where: string; command: string[] }> = [];
  for (const { name, spec } of podSpecs()) for (const c of spec.containers as Obj[]) commands.push({ where: `${name}/${c.name}`, command: c.command as string[] });
  const compose = parse(readFileSync(join(REPO, "deploy", "compose", "docker-compose.yml"), "utf8"), { merge: true }) as Obj;
  for (const [name, s] of Object.entries(compose.services as Obj).filter(([n]) => !n.startsWith("nats"))) commands.push({ where: `compose ${name}`, command: s.command as string[] });
  const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(REPO, "deploy", "Dockerfile"), "utf8"));
  commands.push({ where: "Dockerfile CMD", command: cmd ? (JSON.parse(cmd[1] as string) as string[]) : [] });
  const exec = /^ExecStart=(.*)$/m.exec(readFileSync(join(REPO, "deploy", "systemd", "inquest-agent.service"), "utf8"));
  commands.push({ where: "systemd agent", command: (exec?.[1] ?? "").split(/\s+/).map((a, i) => (i === 0 && a.endsWith("/node") ? "node" : a)) });
  const started = new Set<ServiceName>();
  for (const { where, command } of commands) {
    const e = expectedCommand(command ?? []);
    if (!t.ok(e, `${where}: starts a service (${JSON.stringify(command)})`) || !e) continue;
    started.add(e.service);
    t.same(command, e.expected, `${where}: ${e.expected.join(" ")}`);
  }
  t.same([...started].sort(), [...SERVICE_NAMES].sort(), "every service is started somewhere in deploy/");
});

test("every container and compose service of a service sets the environment shared/launch.ts gives it", async (t) => {
  const envs: Array<{ where: string; command: string[]; env: Record<string, unknown> }> = [];
  for (const { name, spec } of podSpecs()) {
    for (const c of spec.containers as Obj[]) envs.push({ where: `${name}/${c.name}`, command: c.command as string[], env: Object.fromEntries(((c.env ?? []) as Obj[]).map((e) => [e.name, e.value])) });
  }
  const compose = parse(readFileSync(join(REPO, "deploy", "compose", "docker-compose.yml"), "utf8"), { merge: true }) as Obj;
  for (const [name, s] of Object.entries(compose.services as Obj).filter(([n]) => !n.startsWith("nats"))) envs.push({ where: `compose ${name}`, command: s.command as string[], env: (s.environment ?? {}) as Record<string, unknown> });
  let checked = 0;
  for (const { where, command, env } of envs) {
    const e = expectedCommand(command ?? []);
    if (!e) continue;
    for (const [k, v] of Object.entries(SERVICE_ENV[e.service])) {
      t.equal(env[k], v, `${where}: ${k}=${v}`);
      checked++;
    }
  }
  t.ok(checked > 0, "at least one service has environment of its own (the runner's GLIBC_TUNABLES)");
});

test("serviceEnv: a service's own environment under what the caller sets", async (t) => {
  t.same(serviceEnv("runner", { PATH: "/bin" }), { ...SERVICE_ENV.runner, PATH: "/bin" });
  t.same(serviceEnv("runner", { GLIBC_TUNABLES: "glibc.malloc.arena_max=2", X: undefined }), { GLIBC_TUNABLES: "glibc.malloc.arena_max=2" }, "the operator's value wins; unset variables are left out");
  t.same(serviceEnv("gateway", { A: "1" }), { A: "1" });
});

test("alert rules: each has a name, an expression, a severity and a summary", async (t) => {
  const rules = parse(readFileSync(join(REPO, "deploy", "prometheus", "alerts.yaml"), "utf8")) as Obj;
  const all = (rules.groups as Obj[]).flatMap((g) => g.rules as Obj[]);
  t.ok(all.length >= 5);
  for (const r of all) {
    t.match(r, { alert: /^[A-Za-z][A-Za-z0-9]*$/, expr: String, labels: { severity: /^(page|ticket|critical|warning|info)$/ }, annotations: { summary: String } }, r.alert);
    // A runbook link names a section that exists.
    const runbook = r.annotations?.runbook as string | undefined;
    if (runbook === undefined) continue;
    const [file, anchor] = runbook.split("#");
    const doc = readFileSync(join(REPO, file as string), "utf8");
    t.ok(anchor === undefined || doc.includes(`<a id="${anchor}"></a>`), `${r.alert}: runbook ${runbook} exists`);
  }
});

test("alert rules: the 5xx ratio leaves out every ops route of the gateway, and the leader rule fires with no ticker scraped", async (t) => {
  const rules = parse(readFileSync(join(REPO, "deploy", "prometheus", "alerts.yaml"), "utf8")) as Obj;
  const expr = (name: string) => String((rules.groups as Obj[]).flatMap((g) => g.rules as Obj[]).find((r) => r.alert === name)?.expr ?? "");
  const fivexx = expr("InquestGateway5xx");
  const excluded = [...fivexx.matchAll(/route!~"([^"]+)"/g)].map((m) => new RegExp(`^(?:${m[1] as string})$`));
  t.equal(excluded.length, 2, "both sides of the ratio leave them out");
  const ops = readFileSync(join(REPO, "services", "gateway", "routes", "ops.ts"), "utf8");
  const paths = [...ops.matchAll(/path: "(\/[a-z]+)"/g)].map((m) => `GET ${m[1] as string}`);
  t.ok(paths.length >= 3, `ops routes: ${paths.join(", ")}`);
  for (const route of paths) for (const re of excluded) t.ok(re.test(route), `${route} left out`);
  t.notOk(excluded.some((re) => re.test("POST /v1/investigations")), "API routes counted");
  t.match(expr("InquestTickerNoLeader"), /or vector\(0\)/, "no series at all counts as no leader");
});

test("dashboard: no query puts `or` between two aggregations by the same labels (PromQL drops the right side)", async (t) => {
  const dashboard = JSON.parse(readFileSync(join(REPO, "deploy", "grafana", "inquest-dashboard.json"), "utf8")) as Obj;
  const exprs = (dashboard.panels as Obj[]).flatMap((p) => ((p.targets ?? []) as Obj[]).map((x) => ({ panel: p.title as string, expr: x.expr as string })));
  t.ok(exprs.length >= 5, `${exprs.length} queries`);
  const grouping = (side: string) => /\bby\s*\(([^)]*)\)/.exec(side)?.[1]?.split(",").map((l) => l.trim()).sort().join(",") ?? "";
  for (const { panel, expr } of exprs) {
    const sides = expr.split(/\bor\b/).map(grouping);
    // `a or b` keeps b's series only where a has none with the same labels: same grouping, and b never shows.
    t.equal(new Set(sides).size, sides.length, `${panel}: ${expr}`);
  }
  // Two different things on one axis joined by `or` (a 0/1 gauge and a reconnect count) hide one behind the other
  // whatever the grouping: one query per series.
  for (const { panel, expr } of exprs) t.notMatch(expr, /\bor\b/, `${panel}: one query per series, no \`or\``);
  // A panel titled with percentiles draws each of them.
  for (const p of dashboard.panels as Obj[]) {
    const title = String(p.title ?? "");
    const wanted = [...title.matchAll(/\bp(\d{2})\b/g)].map((m) => Number(m[1]) / 100);
    const drawn = ((p.targets ?? []) as Obj[]).map((x) => String(x.expr));
    for (const q of wanted) t.ok(drawn.some((e) => e.includes(`histogram_quantile(${q},`)), `${title}: a p${q * 100} query`);
  }
  const both = exprs.filter((e) => e.panel === "Messages in hand / redelivered").map((e) => e.expr).join("\n");
  for (const name of ["inquest_consumer_ack_pending_messages", "inquest_consumer_redelivered_messages"]) t.match(both, name, `the in-hand panel shows ${name}`);
});

test("the memory alert fires for each scraped service near its own container's memory limit, not one for all", async (t) => {
  const rules = parse(readFileSync(join(REPO, "deploy", "prometheus", "alerts.yaml"), "utf8")) as Obj;
  const rule = (rules.groups as Obj[]).flatMap((g) => g.rules as Obj[]).find((r) => r.alert === "InquestMemoryHigh") as Obj;
  const thresholds = new Map<string, number>();
  for (const m of (rule.expr as string).matchAll(/process_resident_memory_bytes\{pod=~"\(?([a-z|-]+?)\)?-\.\*"\}\)\s*>\s*([0-9.e]+)/g)) {
    for (const name of (m[1] as string).split("|")) thresholds.set(name, Number(m[2]));
  }
  const mebibytes = (q: string) => Number(/^(\d+)Mi$/.exec(q)?.[1] ?? NaN) * 2 ** 20;
  const scraped = manifests.filter(({ o }) => o.kind === "Deployment" && o.spec.template.metadata?.annotations?.["prometheus.io/scrape"] === "true");
  t.ok(scraped.length >= 4, `${scraped.length} scraped deployments`);
  for (const { o } of scraped) {
    const limit = mebibytes(o.spec.template.spec.containers[0].resources.limits.memory as string);
    const threshold = thresholds.get(o.metadata.name as string);
    if (!t.ok(threshold !== undefined, `${o.metadata.name}: a threshold of its own`) || threshold === undefined) continue;
    t.ok(threshold < limit && threshold >= 0.8 * limit, `${o.metadata.name}: ${threshold} bytes is 80-100 % of its limit (${limit})`);
  }
});

const KUBECTL = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].find((p) => existsSync(p));
/** Overlays are built with kubectl's kustomize (offline: it only reads files); said, not hidden, when it is missing. */
const needsKubectl = { skip: KUBECTL ? false : "kubectl is not installed: the overlays cannot be built here" };

function kustomize(overlay: string): Obj[] {
  if (!KUBECTL) throw new Error("kubectl is not installed");
  const out = execFileSync(KUBECTL, ["kustomize", join(OVERLAYS, overlay)], { encoding: "utf8" });
  return parseAllDocuments(out).map((d) => d.toJS() as Obj).filter((d) => d !== null);
}

const byKind = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);
const deployments = (objs: Obj[]) => byKind(objs, "Deployment");

for (const overlay of ["dev", "prod"]) {
  test(`the ${overlay} overlay builds, and every object it makes is valid`, needsKubectl, async (t) => {
    const objs = kustomize(overlay);
    t.ok(objs.length >= 7, `${objs.length} objects`);
    for (const o of objs) {
      const model = MODELS[`${o.apiVersion}/${o.kind}`];
      if (!model) t.fail(`${o.apiVersion} ${o.kind} has no validator here`);
      else t.doesNotThrow(() => new model(o).validate(), `${o.kind}/${o.metadata?.name}`);
    }
  });
}

test("dev: one replica of each service on one NATS node, debug logs, private targets allowed, no budgets", needsKubectl, async (t) => {
  const objs = kustomize("dev");
  for (const d of deployments(objs)) t.equal(d.spec.replicas, 1, `${d.metadata.name}: 1 replica`);
  const cm = byKind(objs, "ConfigMap")[0] as Obj;
  t.match(cm.data, { INQUEST_NATS_REPLICAS: "1", LOG_LEVEL: "debug", INQUEST_ALLOW_PRIVATE_TARGETS: "true" });
  t.same(byKind(objs, "PodDisruptionBudget"), [], "no disruption budget a single replica could not keep");
  t.ok(deployments(objs).some((d) => d.metadata.name === "agent-fleet"), "the simulated fleet comes along");
  const v = parse(readFileSync(join(OVERLAYS, "dev", "nats-values.yaml"), "utf8")) as Obj;
  t.match(v.config, { cluster: { enabled: false }, jetstream: { enabled: true } }, "its NATS values: one node, matching INQUEST_NATS_REPLICAS 1");
});

test("prod: every service replicated behind a budget, three NATS replicas, no simulated fleet, private targets refused, a pinned image", needsKubectl, async (t) => {
  const objs = kustomize("prod");
  const ds = deployments(objs);
  t.notOk(ds.some((d) => d.metadata.name === "agent-fleet"), "no simulated fleet in production");
  const pdbs = byKind(objs, "PodDisruptionBudget");
  for (const d of ds) {
    t.ok(d.spec.replicas >= 2, `${d.metadata.name}: ${d.spec.replicas} replicas`);
    const budget = pdbs.find((p) => p.spec.selector.matchLabels["app.kubernetes.io/name"] === d.spec.selector.matchLabels["app.kubernetes.io/name"]);
    t.ok(budget, `${d.metadata.name}: a disruption budget selects it`);
    if (budget) t.ok(budget.spec.minAvailable < d.spec.replicas, `${d.metadata.name}: the budget leaves room for a drain`);
    for (const c of d.spec.template.spec.containers as Obj[]) {
      t.notMatch(c.image, /:(latest|dev)$|^[^:]+$/, `${d.metadata.name}: image ${c.image} is pinned`);
      t.ok(c.resources?.limits?.memory, `${d.metadata.name}: a memory limit`);
    }
  }
  const cm = byKind(objs, "ConfigMap")[0] as Obj;
  t.match(cm.data, { INQUEST_NATS_REPLICAS: "3", INQUEST_ALLOW_PRIVATE_TARGETS: "false" });
  const hpa = byKind(objs, "HorizontalPodAutoscaler")[0] as Obj | undefined;
  t.equal(hpa?.spec.scaleTargetRef.name, "gateway", "the gateway scales on CPU");
  const gateway = ds.find((d) => d.metadata.name === "gateway") as Obj;
  t.ok((hpa?.spec.minReplicas ?? 0) <= gateway.spec.replicas, "the autoscaler's floor is not above the replicas");
});
