// The gateway's safety net (services/gateway/requeue.ts): an investigation accepted and still queued long after,
// while the runner consumer has nothing pending, has lost its work message and is queued again; one still
// waiting behind other work, one too young, or one a runner already took, is left alone.
import { AckPolicy, DeliverPolicy, type Consumer, type JsMsg } from "@nats-io/jetstream";
import { pino } from "pino";
import { test } from "tap";
import { triggerInvestigation } from "../../shared/investigations/trigger.js";
import { triggerDeps } from "../../shared/investigations/trigger-deps.js";
import { LocalStore } from "../../shared/local-store.js";
import { CONSUMERS } from "../../shared/nats/catalog.js";
import { ReadModel } from "../../shared/readmodel.js";
import { openRuntime } from "../../shared/runtime.js";
import { investigationIndex } from "../../services/gateway/investigation-index.js";
import { requeueLost, type RequeueOptions } from "../../services/gateway/requeue.js";
import { connectTo, startNats } from "../helpers/nats.js";
import { tempDir } from "../helpers/services.js";

const log = pino({ level: "silent" });
const OPTS: RequeueOptions = { intervalMs: 1_000, queuedForMs: 60_000, batch: 10 };

test("an investigation whose work message was lost is queued again once the runner consumer has nothing pending", async (t) => {
  const nats = await startNats();
  const nc = await connectTo(nats.url);
  const dir = tempDir("inquest-requeue-");
  const rt = await openRuntime(nc, { replicas: 1 });
  const lmdb = new LocalStore(dir.path, { mappedBudgetBytes: 0, log });
  lmdb.start();
  const index = new ReadModel(lmdb, rt.buckets.investigations, investigationIndex, log);
  await index.start();
  t.teardown(async () => {
    await index.stop();
    lmdb.close();
    await nc.close();
    await nats.stop();
    dir.remove();
  });
  let offsetMs = 0;
  // Frozen for the two gateways' pass: both within one interval, as the test means (a pass straddling an interval's
  // end gives each gateway its own message id, a bounded duplicate the runners drop; on a slow machine a 1 s interval
  // made that a flake).
  let frozen: number | null = null;
  const clock = { now: () => (frozen ?? Date.now()) + offsetMs };
  // The runners' consumer, as a runner creates it; this test plays the runner.
  await rt.jsm.consumers.add(CONSUMERS.runner.stream, { durable_name: CONSUMERS.runner.durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All });
  const runnerConsumer: Consumer = await rt.js.consumers.get(CONSUMERS.runner.stream, CONSUMERS.runner.durable);
  const take = async (): Promise<string[]> => {
    const ids: string[] = [];
    for await (const m of await runnerConsumer.fetch({ max_messages: 10, expires: 1_000 })) {
      ids.push((m.json() as { investigation_id: string }).investigation_id);
      await m.ackAck();
    }
    return ids;
  };
  const trigger = triggerDeps({ rt, listAgents: () => [], maxBacklog: 1_000, clock });
  const queue = async (query: string): Promise<string> => {
    const outcome = await triggerInvestigation(trigger, { request: { query, mode: "live" }, idempotencyScope: "test", ownerKeyId: null, context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null } });
    if (outcome.kind !== "queued") throw new Error(`not queued: ${outcome.kind}`);
    return outcome.investigationId;
  };
  const deps = { js: rt.js, jsm: rt.jsm, investigations: rt.investigations, index, clock, log };

  const lost = await queue("are any prod hosts listening on unexpected ports?");
  t.same(await take(), [lost], "its work message taken and acknowledged, the run never done: lost");
  t.same(await requeueLost(deps, OPTS), [], "queued for less than queuedForMs: left alone");

  offsetMs = OPTS.queuedForMs + 1_000;
  // A run that stopped on an error before it started waits out its retry delay: its message is nak'ed with a delay,
  // delivered and unacknowledged, not pending. (A chaos run's NATS faults put 64 runs there, all queued again.)
  const backingOff = await queue("any unexpected cron jobs?");
  let held: JsMsg | null = null;
  for await (const m of await runnerConsumer.fetch({ max_messages: 1, expires: 1_000 })) held = m;
  held?.nak(2_000);
  t.equal((await rt.jsm.consumers.info(CONSUMERS.runner.stream, CONSUMERS.runner.durable)).num_pending, 0, "nothing pending...");
  t.same(await requeueLost(deps, OPTS), [], "...but a message backing off in a runner's hands: nothing can be told lost");
  // Back after its delay, then done with (a nak'ed message takes no ack from the client that nak'ed it).
  for await (const m of await runnerConsumer.fetch({ max_messages: 1, expires: 5_000 })) await m.ackAck();
  await rt.investigations.update(backingOff, (r) => ({ ...r, status: "running" }));
  const waiting = await queue("any cryptominers on prod?");
  t.same(await requeueLost(deps, OPTS), [], "another message still pending for the runners: nothing can be told lost");

  t.same(await take(), [waiting], "the waiting one taken (and lost too)");
  const taken = await queue("any new admin accounts?");
  t.same(await take(), [taken], "a third one taken by a runner...");
  await index.catchUp();
  const queuedView = index.get(taken);
  await rt.investigations.update(taken, (r) => ({ ...r, status: "running" }));
  offsetMs += OPTS.queuedForMs + 1_000;
  // An index that has not seen the run start yet still lists it as queued: the bucket has the last word.
  const lagging = { catchUp: async () => {}, page: () => ({ items: queuedView ? [queuedView] : [], next: null }) };
  t.equal(queuedView?.status, "queued");
  t.same(await requeueLost({ ...deps, index: lagging }, OPTS), [], "listed as queued by a lagging index, running in the bucket: left alone");
  // Two gateways in the same pass.
  const logged: Array<Record<string, unknown>> = [];
  const capturing = pino({ level: "warn" }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  frozen = Date.now();
  const [one, two] = await Promise.all([requeueLost({ ...deps, log: capturing }, OPTS), requeueLost(deps, OPTS)]);
  frozen = null;
  const described = logged.findIndex((l) => String(l.msg).startsWith("work messages missing"));
  const firstCopy = logged.findIndex((l) => String(l.msg).startsWith("investigation queued with no work message"));
  t.equal(logged.filter((l) => String(l.msg).startsWith("work messages missing")).length, 1, "the state logged once a pass");
  t.ok(described >= 0 && described < firstCopy, "before the first copy is published");
  t.match(logged[described], { missing: 2, stream: { messages: 0 }, consumer: { delivered_stream_seq: Number, ack_floor_stream_seq: Number } }, "what the stream and consumer held is logged once, before the copies: here the messages were acknowledged and removed");
  t.equal(logged.filter((l) => String(l.msg).startsWith("investigation queued with no work message")).length, 2, "and each one queued again");
  t.same(one.sort(), [lost, waiting].sort(), "both lost ones queued again; the running one left alone");
  t.same(two.sort(), one, "by the other gateway too");
  t.equal((await rt.jsm.streams.info(CONSUMERS.runner.stream)).state.messages, 2, "one work message each: the other gateway's copies were duplicates");
  t.same(await requeueLost(deps, OPTS), [], "a pass while those wait for a runner does nothing");
  t.same((await take()).sort(), [lost, waiting].sort(), "the runner gets each once");

  offsetMs += OPTS.intervalMs;
  t.same((await requeueLost(deps, OPTS)).sort(), [lost, waiting].sort(), "taken again and never run: queued again a pass later");
  t.same((await take()).sort(), [lost, waiting].sort());
});
