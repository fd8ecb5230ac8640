// The faults of a chaos run, one at a time at random moments: SIGKILL of one replica of each service (restarted
// at once, as an orchestrator would), SIGKILL of one NATS node (restarted after a few seconds) and one NATS node
// frozen with SIGSTOP, then thawed. Each fault records when it began and when what it broke was back.
import type { ChaosCluster, Restartable } from "./cluster.js";
import { sleep } from "./load.js";

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
}

/** Injects each fault in `kinds` once, in random order, spread over `windowMs`; resolves when the last recovered. */
export async function runFaults(cluster: ChaosCluster, kinds: FaultKind[], windowMs: number, opts: FaultOptions, random: () => number): Promise<FaultRecord[]> {
  const order = [...kinds].sort(() => random() - 0.5);
  const records: FaultRecord[] = [];
  const slot = windowMs / Math.max(1, order.length);
  const started = Date.now();
  for (let i = 0; i < order.length; i++) {
    const at = started + i * slot + random() * slot * 0.3;
    await sleep(Math.max(0, at - Date.now()));
    records.push(await inject(cluster, order[i] as FaultKind, opts, random));
  }
  return records;
}

async function inject(cluster: ChaosCluster, kind: FaultKind, opts: FaultOptions, random: () => number): Promise<FaultRecord> {
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const at = Date.now();
  if (kind === "kill-nats" || kind === "freeze-nats") {
    const node = pick(cluster.nats);
    const pid = node.child.proc.pid as number;
    if (kind === "kill-nats") {
      await node.child.kill("SIGKILL");
      await sleep(opts.natsDownMs);
      await node.restart();
    } else {
      process.kill(pid, "SIGSTOP");
      await sleep(opts.freezeMs);
      process.kill(pid, "SIGCONT");
    }
    return { kind, target: node.label, at, recoveredMs: Date.now() - at };
  }
  const name = kind.slice("kill-".length);
  const replicas = [...cluster.services.values()].filter((s) => s.name === name);
  const victim: Restartable = pick(replicas);
  await victim.child.kill("SIGKILL");
  await victim.restart();
  return { kind, target: victim.label, at, recoveredMs: Date.now() - at };
}

/** A small seeded generator (mulberry32), so a run's schedule can be repeated from its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
