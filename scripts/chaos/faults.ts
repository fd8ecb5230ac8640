// The faults of a chaos run, one at a time at random moments: SIGKILL of one replica of each service (restarted
// at once, as an orchestrator would), SIGKILL of one NATS node (restarted after a few seconds) and one NATS node
// frozen with SIGSTOP, then thawed. Each fault records when it began and when what it broke was back. The ticker
// killed is the one leading (the lease names its pid) when that can be read: a standby's death tests nothing, and
// due runs must still start within 1 s of their time when the leader dies (docs/operations.md#chaos).
import type { ChaosCluster, Restartable } from "./cluster.js";
import { Rng } from "../../corpus/prng.js";
import { sleep } from "../../shared/clock.js";
import { freeze } from "../dev/processes.js";

export type FaultKind = "kill-gateway" | "kill-runner" | "kill-ticker" | "kill-dispatcher" | "kill-nats" | "freeze-nats";

export interface FaultRecord {
  kind: FaultKind;
  target: string;
  at: number;
  /** When the target was back (ready again, or thawed), ms after `at`. */
  recoveredMs: number;
}

export const ALL_FAULTS: FaultKind[] = ["kill-gateway", "kill-runner", "kill-ticker", "kill-dispatcher", "kill-nats", "freeze-nats"];

export interface FaultOptions {
  /** How long a frozen node stays stopped. */
  freezeMs: number;
  /** How long a killed NATS node stays down. */
  natsDownMs: number;
  /** The pid the ticker leader lease names now (null: none, or it could not be read). */
  tickerLeaderPid?(): Promise<number | null>;
}

/** Injects each fault in `kinds` once, in random order, spread over `windowMs`; resolves when the last recovered. */
export async function runFaults(cluster: ChaosCluster, kinds: FaultKind[], windowMs: number, opts: FaultOptions, rng: Rng): Promise<FaultRecord[]> {
  const order = rng.shuffle(kinds);
  const records: FaultRecord[] = [];
  const slot = windowMs / Math.max(1, order.length);
  const started = Date.now();
  for (let i = 0; i < order.length; i++) {
    const at = started + i * slot + rng.next() * slot * 0.3;
    await sleep(Math.max(0, at - Date.now()));
    records.push(await inject(cluster, order[i] as FaultKind, opts, rng));
  }
  return records;
}

async function inject(cluster: ChaosCluster, kind: FaultKind, opts: FaultOptions, rng: Rng): Promise<FaultRecord> {
  const at = Date.now();
  if (kind === "kill-nats" || kind === "freeze-nats") {
    const node = rng.pick(cluster.nats);
    const pid = node.child.proc.pid as number;
    if (kind === "kill-nats") {
      await node.child.kill("SIGKILL");
      await sleep(opts.natsDownMs);
      await node.restart();
    } else {
      await freeze(pid);
      await sleep(opts.freezeMs);
      process.kill(pid, "SIGCONT");
    }
    return { kind, target: node.label, at, recoveredMs: Date.now() - at };
  }
  const name = kind.slice("kill-".length);
  const replicas = [...cluster.services.values()].filter((s) => s.name === name);
  const leaderPid = kind === "kill-ticker" ? await opts.tickerLeaderPid?.().catch(() => null) : null;
  const leader = replicas.find((r) => r.child.proc.pid === leaderPid);
  const picked = rng.pick(replicas); // drawn either way, so a seed's later draws stay the same
  const victim: Restartable = leader ?? picked;
  await victim.child.kill("SIGKILL");
  await victim.restart();
  return { kind, target: leader ? `${victim.label} (leader)` : victim.label, at, recoveredMs: Date.now() - at };
}
