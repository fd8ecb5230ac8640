// Agents behind a trust boundary on NATS (docs/operations.md#nats-credentials): a real nats-server that requires the
// nkey users `writeNatsAuth` generates. An agent's credential speaks its own side of the agent protocol and nothing
// else: it cannot write the agents bucket, read another agent's plans or the services' replies, publish events or
// pretend to be another agent. The reference agent and the runner's registry work under these credentials.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { PermissionViolationError, type NatsConnection, type RequestOptions } from "@nats-io/transport-node";
import { test } from "tap";
import { BUCKETS, STREAMS, SUBJECTS } from "../../shared/nats/catalog.js";
import { writeNatsAuth, type NatsAuth } from "../../shared/nats/credentials.js";
import { leanRequests } from "../../shared/nats/lean-requests.js";
import { droppedReplyMetric } from "../../services/runner/metrics.js";
import { AgentRegistry } from "../../services/runner/registry.js";
import type { AgentRecord } from "../../shared/agents/record.js";
import { createLogger } from "../../shared/log.js";
import { JsonKv } from "../../shared/nats/kvjson.js";
import { agentInboxPrefix } from "../../shared/nats/permissions.js";
import { Registry } from "../../shared/ops/metrics.js";
import { ensureBucket, ensureStream } from "../../shared/nats/provision.js";
import { freePort } from "../../shared/net.js";
import { natsServerBin } from "../../scripts/dev/processes.js";
import { connectTo, failure } from "../helpers/nats.js";
import { eventually } from "../helpers/stack.js";
import { REPO } from "../helpers/services.js";

let dir: string;
let auth: NatsAuth;
let url: string;
let server: ChildProcess;
let svc: NatsConnection;
let web1: NatsConnection;
const violations: string[] = [];
const enc = new TextEncoder();
const quiet = createLogger("test", "silent");

test("setup: a nats-server that knows only the generated nkey users", async () => {
  dir = mkdtempSync(join(tmpdir(), "inquest-creds-"));
  auth = writeNatsAuth(join(dir, "auth"), { agents: ["web-1", "web-2"], fleet: true });
  const port = await freePort();
  url = `nats://127.0.0.1:${port}`;
  writeFileSync(join(dir, "nats.conf"), [`listen: 127.0.0.1:${port}`, `jetstream { store_dir: "${join(dir, "js")}" }`, 'include "auth/auth.conf"', ""].join("\n"));
  server = spawn(natsServerBin(), ["-c", join(dir, "nats.conf")], { stdio: "ignore" });
  svc = await eventually(() => connectTo(url, auth.services).catch(() => undefined), 10_000, 100);
  const jsm = await jetstreamManager(svc);
  await ensureStream(jsm, STREAMS.events, 1);
  await ensureStream(jsm, STREAMS.snapshots, 1);
  await ensureBucket(svc, BUCKETS.agents, 1);
  web1 = await connectTo(url, auth.agents["web-1"], agentInboxPrefix("web-1"));
  void (async () => {
    for await (const s of web1.status()) if (s.type === "error") violations.push(String((s as { error?: unknown }).error));
  })();
});

test("a client without credentials, or with a seed the server does not know, is refused", async (t) => {
  await t.rejects(connectTo(url), "no credentials");
  const stranger = join(dir, "stranger");
  writeNatsAuth(stranger, { agents: [], fleet: false });
  await t.rejects(connectTo(url, join(stranger, "services.nk")), "an unknown nkey");
});

test("an agent speaks its own side of the protocol: heartbeat, snapshot, and the answer to its own plan", async (t) => {
  const acks = svc.subscribe("agents.*.heartbeat", { callback: (_e, m) => void m.respond(enc.encode('{"ok":true}')) });
  t.teardown(() => acks.unsubscribe());
  await svc.flush(); // the subscription is on the server before the other connection asks
  const ack = await web1.request("agents.web-1.heartbeat", enc.encode("{}"), { timeout: 2_000 });
  t.same(ack.json(), { ok: true }, "its heartbeat is answered");
  web1.publish("snapshots.web-1", enc.encode('{"tables":{}}'));
  await web1.flush();
  const stored = await eventually(() => jetstreamManager(svc).then((m) => m.streams.getMessage(STREAMS.snapshots.name, { last_by_subj: "snapshots.web-1" })).catch(() => undefined), 2_000, 20);
  t.ok((stored?.seq ?? 0) > 0, "its snapshot is stored (a plain publish: INQ_SNAPSHOTS sends no publish ack)");
  const plans = web1.subscribe("agents.web-1.plan", { callback: (_e, m) => void m.respond(enc.encode('{"answer":"web-1"}')) });
  t.teardown(() => plans.unsubscribe());
  await web1.flush();
  const reply = await svc.request("agents.web-1.plan", enc.encode("{}"), { timeout: 2_000 });
  t.same(reply.json(), { answer: "web-1" }, "it answers its own plan");
});

test("an agent cannot write the agents bucket", async (t) => {
  await t.rejects(jetstream(web1).publish(`$KV.${BUCKETS.agents.name}.web-2`, enc.encode('{"agent_id":"web-2","status":"online"}'), { timeout: 1_000 }));
  await t.rejects(new Kvm(web1).open(BUCKETS.agents.name).then((kv) => kv.put("web-2", enc.encode("{}"))), "nor through the KV API");
  const kv = await new Kvm(svc).open(BUCKETS.agents.name);
  t.equal(await kv.get("web-2").then((e) => (e && e.operation === "PUT" ? e.value.length : null)), null, "nothing was written");
});

test("an agent cannot read another agent's plans, nor the services' replies", async (t) => {
  const seen: string[] = [];
  const refused: string[] = [];
  const note = (e: Error | null, subject: string | undefined) => void (e ? refused.push(e.message) : seen.push(subject ?? ""));
  web1.subscribe("agents.web-2.plan", { callback: (e, m) => note(e, m?.subject) });
  web1.subscribe("_INBOX.>", { callback: (e, m) => note(e, m?.subject) });
  await web1.flush();
  await eventually(async () => (refused.length >= 2 ? true : undefined), 2_000, 20);
  t.ok(refused.some((m) => /Permissions Violation for Subscription to "agents\.web-2\.plan"/.test(m)), "subscribing to web-2's plans is refused");
  t.ok(refused.some((m) => /Permissions Violation for Subscription to "_INBOX\.>"/.test(m)), "subscribing to every inbox is refused");
  // Had either subscription stood, these would have reached it.
  await t.rejects(svc.request("agents.web-2.plan", enc.encode("{}"), { timeout: 500 }), "web-2's plan finds no one to answer it");
  const echo = svc.subscribe("ping", { callback: (_e, m) => void m.respond(enc.encode("pong")) });
  t.teardown(() => echo.unsubscribe());
  await svc.request("ping", enc.encode(""), { timeout: 1_000 });
  t.same(seen, [], "nothing reached the agent");
});

test("an agent cannot publish events or speak for another agent", async (t) => {
  const heard: string[] = [];
  const events = svc.subscribe("events.>", { callback: (_e, m) => void heard.push(m.subject) });
  const impostor = svc.subscribe("agents.web-2.>", { callback: (_e, m) => void heard.push(m.subject) });
  t.teardown(() => {
    events.unsubscribe();
    impostor.unsubscribe();
  });
  await svc.flush();
  await t.rejects(jetstream(web1).publish("events.investigation.completed", enc.encode("{}"), { timeout: 1_000 }), "no event through JetStream");
  web1.publish("events.agent.registered", enc.encode("{}"));
  web1.publish("agents.web-2.heartbeat", enc.encode("{}"));
  web1.publish("agents.web-2.hello", enc.encode("{}"));
  await web1.flush();
  await new Promise((r) => setTimeout(r, 300));
  t.same(heard, [], "none of it reached anyone");
  const stream = await (await jetstreamManager(svc)).streams.info(STREAMS.events.name);
  t.equal(stream.state.messages, 0, "EVENTS holds nothing");
  t.ok(violations.some((v) => /Permissions Violation for Publish to "events\.agent\.registered"/.test(v)), "the server refused the publish");
  t.ok(violations.some((v) => /Permissions Violation for Publish to "agents\.web-2\.heartbeat"/.test(v)), "and the impersonation");
});

test("the registry answers an agent only in its own inbox: a reply subject the agent chose elsewhere is not written to", async (t) => {
  // The registry's user may publish anywhere: answering an agent-chosen reply subject made it write for the agent.
  const kv = await new Kvm(svc).open(BUCKETS.agents.name);
  const metrics = new Registry();
  const droppedReplies = droppedReplyMetric(metrics);
  const registry = new AgentRegistry({ nc: svc, js: jetstream(svc), agents: new JsonKv<AgentRecord>(kv), droppedReplies, clock: { now: () => Date.now() }, log: quiet });
  await registry.start();
  t.teardown(() => registry.stop());
  const web2 = await connectTo(url, auth.agents["web-2"], agentInboxPrefix("web-2"));
  t.teardown(() => web2.close());
  const hello = (id: string) => enc.encode(JSON.stringify({ agent_id: id, hostname: `${id}.example`, tags: { env: "prod" }, edr_device_id: null, heartbeat_interval_ms: 5_000 }));
  t.same((await web2.request("agents.web-2.hello", hello("web-2"), { timeout: 2_000 })).json(), { ok: true }, "web-2 registers");
  const before = await kv.get("web-2");
  const cancels: string[] = [];
  const ctl = svc.subscribe("ctl.>", { callback: (_e, m) => void cancels.push(m.subject) });
  t.teardown(() => ctl.unsubscribe());
  await svc.flush();
  const targets = [`$KV.${BUCKETS.agents.name}.web-2`, SUBJECTS.cancel("inv_victim"), "_INBOX_agents.web-2.x", "_INBOX_agents.web-1x.y"];
  const bodies: Array<[string, Uint8Array]> = [
    ["hello", hello("web-1")],
    ["heartbeat", enc.encode('{"agent_id":"web-1","snapshot_collected_at":null}')],
    ["bye", enc.encode('{"agent_id":"web-1"}')],
    ["bye", enc.encode("{}")],
  ];
  for (const reply of targets) for (const [verb, body] of bodies) web1.publish(`agents.web-1.${verb}`, body, { reply });
  await web1.flush();
  // Sent at once, they were more than an agent may have in hand (registry-limits.ts): a message sent beside them is
  // answered `unavailable` until they are handled, and the agent sends it again, as agents do.
  const answered = await eventually(async () => {
    const ack = (await web1.request("agents.web-1.hello", hello("web-1"), { timeout: 2_000 })).json<{ ok: boolean; error?: { code: string } }>();
    return ack.ok || ack.error?.code !== "unavailable" ? ack : undefined;
  }, 10_000, 100);
  t.same(answered, { ok: true }, "a request from its own inbox is answered");
  const after = await kv.get("web-2");
  t.equal(after?.revision, before?.revision, "web-2's record was not written");
  t.same(cancels, [], "no cancel was published");
  t.equal(droppedReplies.get(), targets.length * bodies.length, "each answer not sent is counted");
});

test("an agent cannot have JetStream write for it either: its snapshot's reply subject gets no publish ack", async (t) => {
  // JetStream answers a publish to a stream on the message's reply subject, published by the server in the account:
  // a snapshot sent with reply `$KV.inq_agents.<key>` had the ack `{"stream":"INQ_SNAPSHOTS","seq":n}` stored there.
  const kv = await new Kvm(svc).open(BUCKETS.agents.name);
  const before = await kv.get("web-2");
  web1.publish("snapshots.web-1", enc.encode('{"tables":{}}'), { reply: `$KV.${BUCKETS.agents.name}.web-2` });
  web1.publish("snapshots.web-1", enc.encode('{"tables":{}}'), { reply: `$KV.${BUCKETS.agents.name}.web-9` });
  await web1.flush();
  await new Promise((r) => setTimeout(r, 300));
  t.equal((await kv.get("web-2"))?.revision, before?.revision, "web-2's record was not written");
  t.equal(await kv.get("web-9"), null, "nor a new key");
  const stored = await (await jetstreamManager(svc)).streams.getMessage(STREAMS.snapshots.name, { last_by_subj: "snapshots.web-1" });
  t.ok((stored?.seq ?? 0) > 0, "the snapshot itself is stored");
});

test("a refused request fails at once, as nats-core's own request does (shared/nats/lean-requests.ts)", async (t) => {
  // nats-core's path: an option the lean path leaves to it, which changes nothing.
  const viaLibrary = (timeout: number) => ({ timeout, traceOnly: undefined }) as RequestOptions;
  const reading = (err: Error) => ({ class: err.constructor.name, permission: err.cause instanceof PermissionViolationError });
  const started = performance.now();
  const refused = await failure(web1.request("events.investigation.completed", enc.encode("{}"), { timeout: 5_000 }));
  t.ok(performance.now() - started < 2_000, "not after its timeout");
  t.same(reading(refused), { class: "RequestError", permission: true }, "a publish the server refuses");
  t.same(reading(await failure(web1.request("events.investigation.completed", enc.encode("{}"), viaLibrary(5_000)))), reading(refused), "as nats-core");
  // Without its own inbox prefix, the agent may not subscribe to where replies would come.
  const bare = await connectTo(url, auth.agents["web-1"]);
  t.teardown(() => bare.close());
  const noReplies = await failure(bare.request("agents.web-1.hello", enc.encode("{}"), { timeout: 5_000 }));
  t.same(reading(noReplies), { class: "RequestError", permission: true }, "a reply subscription the server refuses");
  const bareLibrary = await connectTo(url, auth.agents["web-1"]);
  t.teardown(() => bareLibrary.close());
  t.same(reading(await failure(bareLibrary.request("agents.web-1.hello", enc.encode("{}"), viaLibrary(5_000)))), reading(noReplies), "as nats-core");
});

test("a reply subscription refused again and again keeps nothing alive (shared/nats/lean-requests.ts)", async (t) => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const bare = await connectTo(url, auth.agents["web-1"]);
  t.teardown(() => bare.close());
  const made: Array<WeakRef<object>> = [];
  for (let i = 0; i < 20; i++) {
    made.push(new WeakRef(leanRequests(bare))); // the one this request uses: made anew after each refusal
    await failure(bare.request("agents.web-1.hello", enc.encode("{}"), { timeout: 5_000 }));
  }
  t.equal(new Set(made.map((r) => r.deref())).size, 20, "each request after a refusal made its own");
  // Past the deadline sweep (100 ms), which stops once nothing waits.
  await new Promise((r) => setTimeout(r, 250));
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  t.equal(made.filter((r) => r.deref() !== undefined).length, 0, "every refused one was let go, the connection still open");
});

test("the reference agent and the runner's registry work under their own credentials", async (t) => {
  const data = join(dir, "runner");
  const common = { PATH: process.env.PATH, NATS_URL: url, LOG_LEVEL: "warn" };
  const runner = spawn(process.execPath, [join(REPO, "dist", "services", "runner", "main.js")], {
    env: { ...common, NATS_NKEY_SEED_FILE: auth.services, INQUEST_DATA_DIR: data },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const agent = spawn(process.execPath, [join(REPO, "dist", "services", "agent", "main.js")], {
    env: { ...common, NATS_NKEY_SEED_FILE: auth.agents["web-2"], INQUEST_AGENT_ID: "web-2", INQUEST_AGENT_TAGS: "env=test", INQUEST_SNAPSHOT_INTERVAL: "1s", INQUEST_HEARTBEAT_INTERVAL: "1s" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  t.teardown(() => {
    runner.kill("SIGKILL");
    agent.kill("SIGKILL");
  });
  const kv = await new Kvm(svc).open(BUCKETS.agents.name);
  const record = await eventually(async () => {
    const e = await kv.get("web-2");
    const r = e && e.operation === "PUT" ? (e.json() as { agent_id: string; status: string; tags: Record<string, string> }) : undefined;
    return r?.status === "online" ? r : undefined;
  }, 30_000, 200);
  t.match(record, { agent_id: "web-2", status: "online", tags: { env: "test" } }, "registered through its hello");
  const jsm = await jetstreamManager(svc);
  const snap = await eventually(() => jsm.streams.getMessage(STREAMS.snapshots.name, { last_by_subj: "snapshots.web-2" }).catch(() => undefined), 30_000, 200);
  t.ok(snap && snap.data.length > 0, "its snapshot is stored");
  t.equal(agent.exitCode, null, "the agent keeps running");
});

test("an agent whose id is not the one its credentials were made for stops at its hello, naming the subject", async (t) => {
  const agent = spawn(process.execPath, [join(REPO, "dist", "services", "agent", "main.js")], {
    env: { PATH: process.env.PATH, NATS_URL: url, LOG_LEVEL: "warn", NATS_NKEY_SEED_FILE: auth.agents["web-1"], INQUEST_AGENT_ID: "web-9" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  agent.stdout.on("data", (d: Buffer) => (out += d.toString()));
  agent.stderr.on("data", (d: Buffer) => (out += d.toString()));
  t.teardown(() => void agent.kill("SIGKILL"));
  // Retried forever before: a refusal is not a registry that has not started yet.
  const code = await new Promise<number | null | "running">((resolve) => {
    const timer = setTimeout(() => resolve("running"), 30_000);
    agent.once("exit", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  t.not(code, "running", "the agent stops");
  t.not(code, 0, "with a failure");
  t.match(out, /refused this agent's hello on agents\.web-9\.hello/, `the refused subject is named: ${out.slice(-2_000)}`);
  t.match(out, /INQUEST_AGENT_ID/, "and what to set");
});

test("inquest nats-auth writes 0600 seeds and an auth.conf of public keys; running it again keeps every identity", async (t) => {
  const out = join(dir, "cli-auth");
  const cli = (...a: string[]) => spawnSync(process.execPath, [join(REPO, "dist", "cli", "main.js"), "nats-auth", ...a], { encoding: "utf8" });
  const first = cli("--out", out, "--agents", "db-1,db-2", "--fleet");
  t.equal(first.status, 0, first.stderr);
  t.match(first.stdout, /agent db-2:.*agent-db-2\.nk/);
  const conf = readFileSync(join(out, "auth.conf"), "utf8");
  for (const f of ["services.nk", "fleet.nk", "agent-db-1.nk", "agent-db-2.nk"]) {
    t.equal(statSync(join(out, f)).mode & 0o777, 0o600, `${f} is 0600`);
    t.notOk(conf.includes(readFileSync(join(out, f), "utf8").trim()), `${f}'s seed is not in auth.conf`);
  }
  t.equal(cli("--out", out, "--agents", "db-1,db-2,db-3", "--fleet").status, 0);
  const again = readFileSync(join(out, "auth.conf"), "utf8");
  for (const key of conf.match(/U[A-Z2-7]{55}/g) ?? []) t.ok(again.includes(key), `${key.slice(0, 8)}… kept`);
  t.equal((again.match(/U[A-Z2-7]{55}/g) ?? []).length, 5, "one more user: db-3");
  const bad = cli("--out", out, "--agents", "bad.id");
  t.equal(bad.status, 2);
  t.match(bad.stderr, /--agents/);
});

test("teardown", async () => {
  await web1?.close();
  await svc?.close();
  server?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});
