// The chaos run's curiosity lateness (scripts/chaos/verify.ts, report.ts): each run after an item's first is due at
// the previous run's end + the interval, as the ticker re-queues it; the report lists every run more than a second
// late beside the fault around its due time.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "tap";
import { writeReport, type ChaosResult } from "../../scripts/chaos/report.js";
import { lateness, type Run, type Verdict } from "../../scripts/chaos/verify.js";
import { tempDir } from "../helpers/services.js";

const run = (id: string, n: number, startedMs: number | null, completedMs: number | null): Run => ({ curiosity_id: id, run: n, startedMs, completedMs });

test("a run is due at its predecessor's end + the interval; first runs and runs after an unfinished one are left out", async (t) => {
  const runs = [run("a", 1, 0, 500), run("a", 2, 2_600, 3_000), run("a", 3, 6_400, null), run("a", 4, 9_000, 9_500), run("b", 2, 4_000, 4_100), run("b", 1, 100, 1_990)];
  t.same(lateness(runs, 2_000), [
    { id: "a", run: 2, dueMs: 2_500, lateMs: 100 },
    { id: "b", run: 2, dueMs: 3_990, lateMs: 10 },
    { id: "a", run: 3, dueMs: 5_000, lateMs: 1_400 },
  ]);
});

test("the report gives the spread and names the fault around each run more than a second late", async (t) => {
  const dir = tempDir("inquest-chaos-lateness-");
  t.teardown(() => dir.remove());
  const verdict: Verdict = {
    investigationsAccepted: 0,
    investigationsNotTerminal: [],
    ackedWritesLost: [],
    notTerminalStatus: new Map(),
    eventsExpected: 0,
    eventsUndelivered: [],
    deliveriesReceived: 0,
    duplicateDeliveries: 0,
    curiosityRuns: 3,
    curiosityDoubled: 0,
    curiositySkipped: 0,
    curiosityListedLate: 0,
    curiosityGaps: [],
    curiosityLateness: [
      { id: "cur_a", run: 2, dueMs: 10_500, lateMs: 40 },
      { id: "cur_a", run: 3, dueMs: 21_000, lateMs: 6_000 },
      { id: "cur_b", run: 2, dueMs: 40_000, lateMs: 1_500 },
    ],
    settleMs: 0,
  };
  const result: ChaosResult = {
    seed: 1,
    durationS: 60,
    faults: [
      { kind: "kill-ticker", target: "ticker-1 (leader)", at: 10_000, recoveredMs: 1_000 },
      { kind: "freeze-nats", target: "nats-2", at: 20_000, recoveredMs: 5_000 },
    ],
    load: { accepted: new Set(), calls: [], violations: [], abandoned: 0 },
    verdict,
    requeued: ["inv_01REQUEUED0000000000000000"],
    requeueStates: ['gateway-1: {"level":40,"missing":1,"stream":{"messages":3},"msg":"work messages missing for queued investigations"}'],
  };
  const file = join(dir.path, "chaos.md");
  writeReport(file, result);
  const text = readFileSync(file, "utf8");
  t.match(text, "1 investigations queued again (work message lost)", "the verdict line names a requeue");
  t.match(text, "| investigations queued again, their work message gone (services/gateway/requeue.ts) | 1 |");
  t.match(text, /## Work messages missing\n\n1 investigations queued again: inv_01REQUEUED0000000000000000\.\n\n[^\n]*\n\n```\ngateway-1: \{"level":40,"missing":1,"stream":\{"messages":3\}/, "with what the stream and consumer held");
  t.match(text, "3 runs after each item's first");
  t.match(text, "max 6000 ms; 2 more than 1 s late.");
  t.match(text, "| cur_a | 3 | 11.0 | 6.0 s | freeze-nats nats-2 |");
  t.match(text, "| cur_b | 2 | 30.0 | 1.5 s | none |");
  t.notMatch(text, "| cur_a | 2 |", "a run 40 ms late is not listed");
});
