// The reference agent on this host: real Linux telemetry.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { iso, type Clock } from "../../shared/clock.js";
import type { AgentIdentity, Collected, TelemetrySource, Tables } from "./agent.js";
import { collectLinux, LINUX_TABLES } from "./telemetry/linux.js";

export function hostIdentity(opts: { agentId?: string | undefined; tags: Record<string, string>; edrDeviceId?: string | undefined }): AgentIdentity {
  const name = hostname();
  let machineId = "";
  try {
    machineId = readFileSync("/etc/machine-id", "utf8").trim().slice(0, 12);
  } catch {
    /* containers may lack it */
  }
  const fallback = `${name}${machineId ? `-${machineId}` : ""}`.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 128);
  return { agent_id: opts.agentId ?? fallback, hostname: name, tags: opts.tags, edr_device_id: opts.edrDeviceId ?? null };
}

export class LinuxTelemetry implements TelemetrySource {
  readonly snapshotTables = LINUX_TABLES;
  constructor(private readonly clock: Clock) {}

  async collect(tables: readonly string[], budgetMs?: number): Promise<Collected> {
    const collected_at = iso(this.clock.now());
    const capped: string[] = [];
    const rows = (await collectLinux(tables, { budgetMs, onCapped: (table) => capped.push(table) })) as Tables;
    return capped.length > 0 ? { collected_at, tables: rows, truncated: capped.sort() } : { collected_at, tables: rows };
  }
}

/** `k=v,k2=v2` to a tag map; a clear message on a malformed pair. */
export function parseTags(text: string | undefined): Record<string, string> | string {
  const tags: Record<string, string> = {};
  if (!text) return tags;
  for (const pair of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const eq = pair.indexOf("=");
    if (eq <= 0) return `tag ${JSON.stringify(pair)} is not key=value`;
    tags[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return tags;
}
