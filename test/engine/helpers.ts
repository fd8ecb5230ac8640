// Small builders for engine tests.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CoverageInput, HostData, Row } from "../../shared/engine/index.js";

/** The repository root (tests run from dist/test/engine/). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export function readRepoFile(path: string): string {
  return readFileSync(`${REPO_ROOT}${path}`, "utf8");
}

export function host(tables: Record<string, Row[]>, tags: Record<string, string> = {}, agent_id = "agent-1", hostname = "host-1"): HostData {
  return { agent_id, hostname, tags, collected_at: "2024-11-20T12:00:00Z", tables };
}

export function proc(pid: number, name: string, path: string, cmdline = path, extra: Row = {}): Row {
  return { pid: String(pid), name, path, cmdline, uid: "0", parent: "1", on_disk: "1", start_time: "1731900000", ...extra };
}

export function sock(pid: number, remote: string, remotePort: number, extra: Row = {}): Row {
  return { pid: String(pid), remote_address: remote, remote_port: String(remotePort), local_address: "10.9.9.9", local_port: "40000", state: "ESTABLISHED", ...extra };
}

export function coverage(hosts: number, unreachable: string[] = [], mode: CoverageInput["mode"] = "live"): CoverageInput {
  return {
    mode,
    agents_targeted: hosts + unreachable.length,
    agents_responded: hosts,
    unreachable: unreachable.map((agent_id) => ({ agent_id, hostname: agent_id, reason: "offline" })),
  };
}

interface FleetAgent {
  agent_id: string;
  hostname: string;
  tags: Record<string, string>;
  edr_device_id?: string;
  online?: boolean;
  tables: Record<string, Row[]>;
}

export function loadFleet(): { agents: FleetAgent[]; hosts: HostData[]; offline: FleetAgent[] } {
  const fleet = JSON.parse(readRepoFile("examples/fleet.json")) as { agents: FleetAgent[] };
  const online = fleet.agents.filter((a) => a.online !== false);
  return {
    agents: fleet.agents,
    hosts: online.map((a) => host(a.tables, a.tags, a.agent_id, a.hostname)),
    offline: fleet.agents.filter((a) => a.online === false),
  };
}
