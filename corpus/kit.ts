// The vocabulary scenarios are written in: a family describes how to build its hosts and what to ask.
import type { Rng } from "./prng.js";
import type { HostBuilder, ProcIn } from "./host.js";
import { buildBaseHost, type Base, type BaseOpts } from "./base-host.js";
import type { Fleet, Role } from "./fleet.js";

export interface Ctx {
  rng: Rng;
  fleet: Fleet;
  now: number;
  base(role: Role, opts?: Partial<BaseOpts>): Base;
}

export interface Built {
  /** Hosts in the scenario; the first is the one the questions are about. */
  hosts: Array<{ b: Base; compromised: boolean }>;
  /** IOCs an analyst could paste into a question: IPs, paths, hashes (each present in a row). */
  indicators?: string[];
}

export interface QuestionPool {
  direct: string[];
  paraphrase: string[];
}

export interface Family {
  name: string;
  kind: "attack" | "benign";
  attack: string[];
  sources: string[];
  count: number;
  build(ctx: Ctx): Built;
  q: QuestionPool;
}

export function makeCtx(rng: Rng, fleet: Fleet, now: number): Ctx {
  return { rng, fleet, now, base: (role, opts) => buildBaseHost(rng, fleet, role, { now, ...opts }) };
}

/** Add 0..n clean hosts of other roles: attacks rarely sit alone in a question's scope. */
export function withDecoys(ctx: Ctx, built: Built, max = 2): Built {
  const n = ctx.rng.int(0, Math.max(0, Math.min(max, 4 - built.hosts.length)));
  for (let i = 0; i < n; i++) built.hosts.push({ b: ctx.base(ctx.rng.pick(["web", "app", "db", "cache", "monitoring", "broker"] as const)), compromised: false });
  return built;
}

export function cron(h: HostBuilder, path: string, schedule: string, command: string): void {
  const [minute = "*", hour = "*", dom = "*", month = "*", dow = "*"] = schedule.split(" ");
  const ev = schedule.startsWith("@") ? schedule : "";
  h.add("crontab", { event: ev, minute: ev ? "" : minute, hour: ev ? "" : hour, day_of_month: ev ? "" : dom, month: ev ? "" : month, day_of_week: ev ? "" : dow, command, path });
}

/** A process started by an attacker (or an admin) some minutes/hours ago. */
export function run(h: HostBuilder, p: ProcIn & { ageMin?: number; ageMax?: number }): number {
  const start = p.start ?? h.recent(p.ageMin ?? 300, p.ageMax ?? 86_400 * 2);
  return h.proc({ cgroup: p.uid && p.uid >= 1000 ? `/user.slice/user-${p.uid}.slice` : "/system.slice", ...p, start });
}

export function pick<T>(rng: Rng, xs: readonly T[]): T {
  return rng.pick(xs);
}

export function randName(rng: Rng, n = 6): string {
  return rng.alnum(n, "abcdefghijklmnopqrstuvwxyz");
}

/** Plausible-looking tool names attackers rename payloads to. */
export const DISGUISES = ["kworkerd", "dbused", "sysupdate", "networkservice", "systemd-helper", "kthreaddi", "xmrd", "khugepageds", "auditd-worker", "syslogd", "cron-update", "sshd-agent", "php-cgi", "kswapd01"];
