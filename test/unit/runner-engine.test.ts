// The runner's engine pool (evaluations on worker threads) and the run lease's rules.
import { test } from "tap";
import pino from "pino";
import { routeQuery } from "../../shared/engine/index.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import { EnginePool, HOST_BATCH } from "../../services/runner/engine-pool.js";
import { EvaluationAbortedError, EvaluationFailedError, EvaluationTimeoutError } from "../../services/runner/engine-errors.js";
import { DEFAULT_REPORT_BOUNDS } from "../../shared/investigations/bounded.js";
import { collectedHost, packHosts, serializeEvaluation, serveEvaluations, unpackHosts, type EngineReply, type EngineRequest, type Evaluation, type EvaluationInput, type WorkerReady } from "../../services/runner/engine-protocol.js";
import type { Report } from "../../shared/engine/types.js";
import type { CollectedHost } from "../../services/runner/engine-protocol.js";
import { holdsLease, leaseView, withLease } from "../../services/runner/lease.js";
import { isId } from "../../shared/ids.js";
import { chunkedCount, unpackChunks } from "../../shared/investigations/findings.js";
import { eventually } from "../helpers/stack.js";

const log = pino({ level: "silent" });
const WORKER = new URL("../../services/runner/engine-worker.js", import.meta.url);
const SLOW = new URL("../helpers/slow-engine-worker.js", import.meta.url);

const PLAN = routeQuery("are any hosts listening on unexpected ports?", "quick");

/** A host whose rows hold a backdoor listening on a port: one finding each. */
function backdoored(agentId: string): CollectedHost {
  const tables = {
    processes: [{ pid: 4242, name: "kworker", path: "/tmp/.x/kworker", cmdline: "/tmp/.x/kworker -l 4444", uid: 33, parent: 1, on_disk: 1 }],
    listening_ports: [{ pid: 4242, port: 4444, protocol: 6, address: "0.0.0.0" }],
  };
  const who = { agent_id: agentId, hostname: agentId, tags: {}, collected_at: "2026-11-22T10:00:00.000Z" };
  return collectedHost(who, JSON.stringify({ agent_id: agentId, tables }), tables, PLAN.tables);
}

function input(hosts = 1): EvaluationInput {
  return {
    plan: PLAN,
    hosts: Array.from({ length: hosts }, (_, i) => backdoored(`a-${i + 1}`)),
    coverage: { mode: "live", agents_targeted: hosts, agents_responded: hosts, unreachable: [] },
    depth: "quick",
  };
}

/** An evaluation's findings, parsed from its chunks, in order. */
function findingsOf(evaluation: Evaluation): Array<Record<string, unknown> & { detection_id: string; finding_id: string }> {
  return unpackChunks(evaluation.chunks).map((f) => JSON.parse(f.json) as Record<string, unknown> & { detection_id: string; finding_id: string });
}

/** The same evaluation whatever ids its findings were given (ids are random). */
function withoutIds(evaluation: Evaluation): unknown {
  return { report: evaluation.report, findings: findingsOf(evaluation).map(({ finding_id: _id, ...rest }) => rest) };
}

/** One evaluation of hosts already collected: a session opened, fed every host, and finished. */
function evaluate(pool: EnginePool, input: EvaluationInput, signal?: AbortSignal): Promise<Evaluation> {
  const session = pool.open(input.plan);
  for (const host of input.hosts) session.add(host);
  return session.finish({ coverage: input.coverage, depth: input.depth, previous: input.previous }, signal);
}

test("the compiled engine worker evaluates plain JSON in, plain JSON out", async (t) => {
  const pool = new EnginePool({ size: 1, workerUrl: WORKER, log });
  await pool.start();
  t.teardown(() => pool.stop());
  const evaluation = await evaluate(pool, input(3));
  const findings = findingsOf(evaluation);
  t.ok(findings.some((f) => f.detection_id === "unexpected-listener"), "the engine's findings come back serialized");
  t.ok(findings.every((f) => isId(f.finding_id, "fnd") && Object.keys(f)[0] === "finding_id"), "each with its id, as its first field");
  t.equal(new Set(findings.map((f) => f.finding_id)).size, findings.length, "ids are unique");
  t.same(evaluation.chunks.flatMap((c) => c.ids), findings.map((f) => f.finding_id), "the chunks name each finding's id");
  t.type(evaluation.report.narrative, "string");
  t.notOk("findings" in evaluation.report, "the report travels without its findings");
});

test("an engine error fails its evaluation; the pool goes on", async (t) => {
  const pool = new EnginePool({ size: 1, workerUrl: WORKER, log });
  await pool.start();
  t.teardown(() => pool.stop());
  const broken = { ...input(), plan: null } as unknown as EvaluationInput;
  await t.rejects(evaluate(pool, broken), EvaluationFailedError);
  t.ok(chunkedCount((await evaluate(pool, input())).chunks) > 0);
});

test("an answer is kept as the agent's text, and only with the tables the plan asked for", async (t) => {
  const who = { agent_id: "a-2", hostname: "a-2", tags: { env: "prod" }, collected_at: "2026-11-22T10:00:00.000Z" };
  const wanted = { processes: [{ pid: 1 }] };
  const sent = JSON.stringify({ agent_id: "a-2", collected_at: who.collected_at, tables: wanted });
  const kept = collectedHost(who, sent, wanted, ["processes", "users"]);
  t.equal(kept.answer, sent, "only wanted tables: the agent's text");

  const extra = { processes: [{ pid: 2 }], secrets_dump: [{ blob: "x".repeat(10_000) }] };
  const trimmed = collectedHost({ ...who, agent_id: "a-3" }, JSON.stringify({ tables: extra }), extra, ["processes"]);
  t.ok(trimmed.answer.length < 200, "a table nobody asked for is not kept");

  const cutText = JSON.stringify({ tables: { ...wanted, crontab: [] }, truncated: ["processes", "crontab", "bogus"] });
  const cut = collectedHost({ ...who, agent_id: "a-4" }, cutText, { ...wanted, crontab: [] }, ["processes", "users"], ["processes", "crontab", "bogus"]);
  t.same(unpackHosts(packHosts([cut]), ["processes", "users"])[0]?.truncated, ["processes"], "the cut tables the plan wanted, kept through a trimmed answer");
  t.same(unpackHosts(packHosts([kept]), ["processes", "users"])[0]?.truncated, undefined, "none said: none");
  const packed = packHosts([kept, trimmed]);
  t.same(packed.who.map((w) => w.agent_id), ["a-2", "a-3"], "who each host is travels beside the answers");
  t.same(unpackHosts(packed, ["processes"]), [{ ...who, tables: wanted }, { ...who, agent_id: "a-3", tables: { processes: [{ pid: 2 }] } }], "each host gets its own answer's wanted tables");
});

test("the worker orders findings most severe first (stable) and marks them against the previous run's", async (t) => {
  const f = (detection_id: string, severity: string) => ({ detection_id, title: detection_id, severity, confidence: 1, agent_id: "a-1", hostname: "a-1", summary: detection_id, evidence: [] });
  const report = { findings: [f("one", "low"), f("two", "high"), f("three", "low"), f("four", "critical")], narrative: "n" } as unknown as Report;
  const plain = findingsOf(serializeEvaluation(report, null));
  t.same(plain.map((x) => x.detection_id), ["four", "two", "one", "three"]);
  t.notOk("new_since_last_run" in (plain[0] ?? {}), "not a curiosity run: no mark");
  const marked = findingsOf(serializeEvaluation(report, [f("two", "high")] as never));
  t.same(marked.map((x) => [x.detection_id, x.new_since_last_run]), [["four", true], ["two", false], ["one", true], ["three", true]]);
  t.equal(Object.keys(marked[0] ?? {}).at(-1), "new_since_last_run", "the mark is the last field, as the record shows it");
});

test("the worker gives the findings ids of the time it is told and packs them in chunks within the bound", async (t) => {
  const f = (i: number) => ({ detection_id: `d${i}`, title: "t", severity: "low", confidence: 1, agent_id: "a-1", hostname: "a-1", summary: "é".repeat(50), evidence: [] });
  const report = { findings: Array.from({ length: 30 }, (_, i) => f(i)), narrative: "n" } as unknown as Report;
  const at = Date.parse("2026-11-27T01:02:03.004Z");
  const evaluation = serializeEvaluation(report, null, { idTimeMs: at, chunkBytes: 1_000, reportBounds: DEFAULT_REPORT_BOUNDS });
  t.ok(evaluation.chunks.length > 1, `${evaluation.chunks.length} chunks`);
  t.ok(evaluation.chunks.every((c) => c.bytes.byteLength <= 1_000), "each chunk within the bound, in UTF-8 bytes");
  const findings = findingsOf(evaluation);
  t.same(findings.map((x) => x.detection_id), report.findings.map((x) => x.detection_id), "every finding, in order");
  const sameTime = serializeEvaluation({ findings: [f(0)], narrative: "n" } as unknown as Report, null, { idTimeMs: at, chunkBytes: 1_000, reportBounds: DEFAULT_REPORT_BOUNDS });
  t.equal(findingsOf(sameTime)[0]?.finding_id.slice(0, 14), findings[0]?.finding_id.slice(0, 14), "ids carry the time they were given");
});

test("the report leaves the worker bounded: long lists cut to the bound and named in truncated, long texts cut", async (t) => {
  const input = (i: number) => ({ detection_id: `d${i}`, agent_id: `a-${i}`, score: i });
  const report = { findings: [], narrative: "n".repeat(50), severity_inputs: Array.from({ length: 300 }, (_, i) => input(i)), next_steps: ["one"] } as unknown as Report;
  const { report: bounded } = serializeEvaluation(report, null, { idTimeMs: Date.now(), chunkBytes: 1_000, reportBounds: { ...DEFAULT_REPORT_BOUNDS, maxItems: 100, maxChars: 20 } });
  t.same(bounded.severity_inputs, report.severity_inputs.slice(0, 100), "the first 100 inputs, in order");
  t.same(bounded.truncated, { "/severity_inputs": 300 }, "the cut list and its full length");
  t.same(bounded.next_steps, ["one"], "short lists pass whole");
  t.equal(bounded.narrative, `${"n".repeat(20)} … (30 more characters cut)`);
  const small = serializeEvaluation({ findings: [], narrative: "n" } as unknown as Report, null).report;
  t.notOk("truncated" in small, "nothing cut: no truncated");
});

test("aborting a finishing evaluation alone on its worker terminates the worker; one sharing it is dropped at once", async (t) => {
  const pool = new EnginePool({ size: 1, workerUrl: SLOW, workerData: { spinMs: 60_000 }, log });
  await pool.start();
  t.teardown(() => pool.stop());
  const first = new AbortController();
  const queued = new AbortController();
  const running = evaluate(pool, input(), first.signal);
  const waiting = evaluate(pool, input(), queued.signal);
  queued.abort();
  await t.rejects(waiting, EvaluationAbortedError, "a queued evaluation is dropped");
  first.abort();
  await t.rejects(running, EvaluationAbortedError, "the running one is stopped, not waited for");
  t.equal(pool.aborted, 1);
  await t.rejects(evaluate(pool, input(), AbortSignal.abort()), EvaluationAbortedError, "an aborted signal never starts");
});

test("a finish over the time limit stops its worker: it fails as a timeout, the evaluation sharing the worker fails, the pool goes on", async (t) => {
  const pool = new EnginePool({ size: 1, workerUrl: SLOW, workerData: { spinMs: 60_000 }, timeLimitMs: 300, log });
  await pool.start();
  t.teardown(() => pool.stop());
  const stalled = evaluate(pool, input());
  const sharing = evaluate(pool, input());
  await t.rejects(stalled, EvaluationTimeoutError, "a 60 s evaluation stopped at its 300 ms limit");
  await t.rejects(sharing, EvaluationFailedError, "the one behind it on the stopped worker fails (its run is retried)");
  t.equal(pool.workers, 1, "a fresh worker took the stopped one's place");
});

test("the time limit fails the evaluation whose work stalled the worker, not one queued behind it on the same worker", async (t) => {
  const pool = new EnginePool({ size: 1, workerUrl: SLOW, workerData: { stallHost: "evil" }, timeLimitMs: 500, log });
  await pool.start();
  t.teardown(() => pool.stop());
  const coverage = input().coverage;
  // E's hosts go to the worker while E still collects (a full batch); one of them stalls it.
  const evil = pool.open(PLAN);
  for (let i = 0; i < HOST_BATCH; i++) evil.add(i === 0 ? { ...backdoored("a-evil"), hostname: "evil" } : backdoored(`a-${i}`));
  // I, on the same worker, finishes first: its work waits behind E's batch.
  const innocent = pool.open(PLAN);
  innocent.add(backdoored("a-fine"));
  const innocentEnd = innocent.finish({ coverage, depth: "quick" }).then(() => null, (err: Error) => err);
  await new Promise((r) => setTimeout(r, 100));
  const evilEnd = evil.finish({ coverage, depth: "quick" }).then(() => null, (err: Error) => err);
  const [i, e] = await Promise.all([innocentEnd, evilEnd]);
  t.notOk(i instanceof EvaluationTimeoutError, `the innocent evaluation is not failed as the one that stalled (${i?.name})`);
  t.ok(i instanceof EvaluationFailedError, "its work went with the stopped worker: it fails as retryable");
  t.ok(e instanceof EvaluationTimeoutError, `the evaluation whose host stalled the worker fails as the timeout (${e?.name})`);
  t.equal(pool.workers, 1, "a fresh worker took the stopped one's place");
  t.ok(chunkedCount((await evaluate(pool, input())).chunks) > 0, "and it evaluates");
});

test("the time limit is per unit of work: many batches that each take a while never add up to an overrun", async (t) => {
  const pool = new EnginePool({ size: 1, workerUrl: SLOW, workerData: { spinMs: 200 }, timeLimitMs: 500, log });
  await pool.start();
  t.teardown(() => pool.stop());
  // Three finishes of 200 ms each queued on one worker: the last ends 600 ms after it was asked, none ran 500 ms.
  const all = await Promise.all([evaluate(pool, input()), evaluate(pool, input()), evaluate(pool, input())]);
  t.equal(all.length, 3, "every evaluation ends");
});

test("a worker that dies fails its evaluation and is replaced", async (t) => {
  const pool = new EnginePool({ size: 1, workerUrl: SLOW, workerData: { crash: true }, log });
  await pool.start();
  t.teardown(() => pool.stop());
  await t.rejects(evaluate(pool, input()), EvaluationFailedError);
  await t.rejects(evaluate(pool, input()), EvaluationFailedError, "the replacement (same crashing module) is used");
});

test("one worker is kept ready; a second starts only while evaluations overlap and stops once idle", async (t) => {
  const pool = new EnginePool({ size: 2, workerUrl: SLOW, workerData: { spinMs: 300 }, idleMs: 200, log });
  await pool.start();
  t.teardown(() => pool.stop());
  t.equal(pool.workers, 1, "one worker at start");
  await evaluate(pool, input());
  t.equal(pool.workers, 1, "evaluations one after another need no second worker");
  const both = Promise.all([evaluate(pool, input()), evaluate(pool, input()), evaluate(pool, input())]);
  t.equal(pool.workers, 2, "overlapping evaluations start a second worker, never more than size");
  const reports = await both;
  t.equal(reports.length, 3, "every evaluation ends");
  await eventually(async () => (pool.workers === 1 ? true : undefined), 5_000, 20);
  t.equal(pool.workers, 1, "the idle extra worker stopped; the last one stays");
  await new Promise((r) => setTimeout(r, 400));
  t.equal(pool.workers, 1, "the last worker is never stopped for being idle");
  t.ok(chunkedCount((await evaluate(pool, input())).chunks) > 0, "and it still evaluates");
});

test("aborted workers are not all replaced: one fresh worker is kept ready, more only when work waits", async (t) => {
  const pool = new EnginePool({ size: 2, workerUrl: SLOW, workerData: { spinMs: 60_000 }, log });
  await pool.start();
  t.teardown(() => pool.stop());
  const a = new AbortController();
  const b = new AbortController();
  const first = evaluate(pool, input(), a.signal);
  const second = evaluate(pool, input(), b.signal);
  t.equal(pool.workers, 2);
  a.abort();
  b.abort();
  await t.rejects(first, EvaluationAbortedError);
  await t.rejects(second, EvaluationAbortedError);
  t.equal(pool.workers, 1, "both terminated; one fresh worker kept ready");
});

test("a session's hosts reach the worker in batches while it is still open, and its report covers them all", async (t) => {
  const added = new SharedArrayBuffer(4);
  const count = new Int32Array(added);
  const pool = new EnginePool({ size: 1, workerUrl: SLOW, workerData: { added }, log });
  await pool.start();
  t.teardown(() => pool.stop());
  const hosts = input(2 * HOST_BATCH + 5).hosts;
  const session = pool.open(PLAN);
  for (const host of hosts.slice(0, HOST_BATCH)) session.add(host);
  await eventually(async () => (Atomics.load(count, 0) === HOST_BATCH ? true : undefined), 5_000, 10);
  t.equal(Atomics.load(count, 0), HOST_BATCH, "a full batch is evaluated before the collection ends");
  for (const host of hosts.slice(HOST_BATCH)) session.add(host);
  const streamed = await session.finish({ coverage: input(hosts.length).coverage, depth: "quick" });
  t.equal(Atomics.load(count, 0), hosts.length, "the rest went with the finish");
  t.equal(chunkedCount(streamed.chunks), hosts.length, "one finding per host");
  const whole = await evaluate(pool, { ...input(), hosts: [...hosts].reverse(), coverage: input(hosts.length).coverage });
  t.same(withoutIds(streamed), withoutIds(whole), "the same evaluation as all the hosts at once, in another order");
  await t.rejects(session.finish({ coverage: input().coverage, depth: "quick" }), EvaluationAbortedError, "a session finishes once");
});

test("a session closed before its finish frees its worker; an extra worker then stops", async (t) => {
  const pool = new EnginePool({ size: 2, workerUrl: SLOW, idleMs: 100, log });
  await pool.start();
  t.teardown(() => pool.stop());
  const kept = pool.open(PLAN);
  const given = pool.open(PLAN);
  t.equal(pool.workers, 2, "two open sessions, two workers");
  given.add(backdoored("a-9"));
  given.close();
  await t.rejects(given.finish({ coverage: input().coverage, depth: "quick" }), EvaluationAbortedError, "a closed session cannot finish");
  await eventually(async () => (pool.workers === 1 ? true : undefined), 5_000, 20);
  t.equal(pool.workers, 1, "the worker it held went idle and stopped");
  kept.add(backdoored("a-1"));
  t.equal(chunkedCount((await kept.finish({ coverage: input().coverage, depth: "quick" })).chunks), 1, "the other session is untouched");
});

test("a worker that dies fails every session it held, finishing or still collecting", async (t) => {
  const pool = new EnginePool({ size: 1, workerUrl: SLOW, workerData: { crash: true }, log });
  await pool.start();
  t.teardown(() => pool.stop());
  const collecting = pool.open(PLAN);
  collecting.add(backdoored("a-1"));
  t.notOk(collecting.failed.aborted, "the one still collecting can still be finished");
  await t.rejects(evaluate(pool, input()), EvaluationFailedError, "the finishing one");
  t.ok(collecting.failed.reason instanceof EvaluationFailedError, "the one still collecting is told at once (failed), with its finish's error");
  collecting.add(backdoored("a-2"));
  await t.rejects(collecting.finish({ coverage: input().coverage, depth: "quick" }), EvaluationFailedError, "the one still collecting, when it finishes");
});

test("the worker side: hosts are evaluated as each batch arrives; an error is answered once, at the finish", async (t) => {
  const handlers: Array<(req: EngineRequest) => void> = [];
  const replies: Array<EngineReply | WorkerReady> = [];
  const port = { on: (_: string, fn: (req: EngineRequest) => void) => handlers.push(fn), postMessage: (r: EngineReply) => replies.push(r) };
  const seen: string[] = [];
  serveEvaluations(port as never, {
    start: () => ({
      add(host) {
        if (host.agent_id === "bad") throw new Error("rows the engine cannot read");
        seen.push(host.agent_id);
      },
      finish: () => ({ findings: [], narrative: `${seen.length} hosts` }) as unknown as Report,
    }),
  });
  const send = (req: EngineRequest): void => handlers.forEach((fn) => fn(req));
  t.same(replies.shift(), { ready: true }, "the worker says it is ready before anything else");
  const coverage = input().coverage;
  send({ kind: "open", session: 1, plan: PLAN });
  send({ kind: "hosts", session: 1, hosts: packHosts([backdoored("h1"), backdoored("h2")]) });
  t.same(seen, ["h1", "h2"], "evaluated on arrival, before any finish");
  t.same(replies, [{ session: 1, added: 2 }], "a batch is answered once added (the pool times each one)");
  send({ kind: "finish", session: 1, input: { coverage, depth: "quick" } });
  t.same(replies.slice(1), [{ session: 1, report: { narrative: "2 hosts" } }], "no findings: the report alone");

  send({ kind: "open", session: 2, plan: PLAN });
  send({ kind: "hosts", session: 2, hosts: packHosts([backdoored("bad"), backdoored("h3")]) });
  send({ kind: "hosts", session: 2, hosts: packHosts([backdoored("h4")]) });
  t.same(seen, ["h1", "h2"], "nothing more is evaluated once an evaluation failed");
  t.same(replies.slice(2), [{ session: 2, added: 2 }, { session: 2, added: 1 }], "its batches are still answered");
  send({ kind: "finish", session: 2, input: { coverage, depth: "quick" } });
  t.match(replies[4], { session: 2, error: /rows the engine cannot read/ });

  send({ kind: "open", session: 3, plan: PLAN });
  send({ kind: "drop", session: 3 });
  send({ kind: "finish", session: 3, input: { coverage, depth: "quick" } });
  t.match(replies.slice(5), [{ session: 3, error: /not open/ }], "a dropped evaluation is not evaluated (a finish after its drop is refused)");
});

test("the worker side: a finish with findings is answered chunk by chunk, then the report", async (t) => {
  const handlers: Array<(req: EngineRequest) => void> = [];
  const replies: Array<EngineReply | WorkerReady> = [];
  const port = { on: (_: string, fn: (req: EngineRequest) => void) => handlers.push(fn), postMessage: (r: EngineReply) => replies.push(r) };
  const finding = (i: number) => ({ detection_id: `d${i}`, severity: "low", summary: "x".repeat(100) });
  serveEvaluations(port as never, { start: () => ({ add() {}, finish: () => ({ findings: [0, 1, 2].map(finding), narrative: "n" }) as unknown as Report }) });
  replies.shift(); // ready
  const send = (req: EngineRequest): void => handlers.forEach((fn) => fn(req));
  send({ kind: "open", session: 7, plan: PLAN });
  send({ kind: "finish", session: 7, input: { coverage: input().coverage, depth: "quick", encoding: { idTimeMs: Date.now(), chunkBytes: 250, reportBounds: DEFAULT_REPORT_BOUNDS } } });
  t.same(
    replies.map((r) => Object.keys(r).filter((k) => k !== "session")[0]),
    ["chunk", "chunk", "chunk", "report"],
    "one message per chunk (one finding per chunk at this bound), the report last",
  );
  t.ok(replies.every((r) => "session" in r && r.session === 7));
});

const record = (status: InvestigationRecord["status"], lease: { token: string; until: string } | null): InvestigationRecord =>
  ({ status, internal: { owner_key_id: null, seeds: [], events: { queued: "e", started: null, terminal: null, findings: {} }, run_attempts: 1, lease } }) as unknown as InvestigationRecord;

test("lease: a running record belongs to the attempt holding an unexpired lease", async (t) => {
  const now = Date.parse("2026-11-22T10:00:00.000Z");
  const held = withLease(record("running", null), "tok-a", now, 30_000);
  t.same(leaseView(held, "tok-a", now), { kind: "mine" });
  t.same(leaseView(held, "tok-b", now + 29_999), { kind: "held", untilMs: now + 30_000 });
  t.same(leaseView(held, "tok-b", now + 30_000), { kind: "free" }, "expired: its runner crashed or stalled");
  t.same(leaseView(record("running", null), "tok-b", now), { kind: "free" }, "a record from before leases");
  t.same(leaseView({ ...held, status: "queued" }, "tok-b", now), { kind: "free" });
  t.ok(holdsLease(held, "tok-a"));
  t.notOk(holdsLease(held, "tok-b"));
});
