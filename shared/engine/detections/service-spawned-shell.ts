// A database, cache or message broker that is the parent of a shell, an interpreter or a downloader: PostgreSQL
// COPY ... FROM PROGRAM, MySQL UDF sys_exec, Redis MODULE LOAD / replication tricks, Elasticsearch scripting and
// ActiveMQ (CVE-2023-46604) exploitation all end with the service process starting /bin/sh or curl.
// Facts: PostgreSQL docs (COPY FROM PROGRAM runs through the shell; archive_command too), Trend Micro and Aqua
// write-ups on Kinsing/TeamTNT abusing PostgreSQL and Redis, Rapid7 on CVE-2023-46604.
import { basename, rowsOf, str, processTree } from "../rows.js";
import type { Row } from "../types.js";
import { DB_INTERNAL_HELPERS, POSTGRES_ARCHIVE } from "../baselines/service-helpers.js";
import { clip } from "./command-lines.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { NETCAT_LIKE, SHELLS } from "./patterns.js";
import { dataServiceRole, DOWNLOADERS, judgeChild, onlyHelpers } from "./service-roles.js";

const INTERPRETER = /^(?:python[0-9.]*|perl|ruby|php[0-9.]*|lua|node)$/;

/**
 * Erlang's os:cmd port (`sh -s unix:cmd`) and RabbitMQ's disk monitor port (`sh -s rabbit_disk_monitor`): shells the
 * Erlang VM (beam.smp) keeps open and feeds on stdin, running df for the disk monitor. Only under beam.smp, and only
 * while what they run is df.
 */
function erlangPort(service: Row, child: Row, programs: readonly string[]): boolean {
  return (
    basename(str(service, "path")) === "beam.smp" &&
    /^(?:\/\S*\/)?sh -s (?:unix:cmd|rabbit_disk_monitor)$/.test(str(child, "cmdline").trim()) &&
    programs.every((p) => p === "df" || p === "sh" || p === "dash")
  );
}

export const serviceSpawnedShell = defineDetection({
  id: "service-spawned-shell",
  title: "Database or broker spawning a shell or downloader",
  reads: { processes: ["pid", "parent", "name", "path", "cmdline", "uid"] },
  severity: "high",
  attack: ["T1059.004", "T1190"],
  maturity: "test",
  category: "initial-access",
  false_positives:
    "PostgreSQL archive_command/restore_command (cp, rsync, pgBackRest, WAL-G, Barman), Galera SST scripts and RabbitMQ's disk checks are ignored; custom archive scripts or UDFs a DBA installed on purpose can still match.",
  advice: {
    triage: [
      "On {hosts}, record the service, its child command line and user; check the service log at that time (PostgreSQL log for COPY ... PROGRAM, Redis MONITOR/slowlog, MySQL general log).",
      "Check whether the service port is reachable from the internet and whether its password is default or empty.",
    ],
    containment: ["Firewall the service port on {hosts} to its clients only and kill the spawned process tree."],
    investigation: ["Look for what the child fetched or wrote (crontabs, authorized_keys, /tmp binaries) and for new database roles, modules (Redis MODULE LIST) or UDFs."],
    remediation: ["Set authentication, remove superuser from application roles (COPY FROM PROGRAM needs pg_execute_server_program), patch the service, and rebuild if a payload ran."],
  },
  evaluate(host) {
    const procs = rowsOf(host, "processes");
    const { byPid, children } = processTree(host);
    /** The data service a process belongs to: its parent, or its grandparent through erl_child_setup (Erlang). */
    const serviceOf = (child: Row): { row: Row; label: string } | undefined => {
      let parent = byPid.get(str(child, "parent"));
      if (parent !== undefined && basename(str(parent, "name")) === "erl_child_setup") parent = byPid.get(str(parent, "parent"));
      if (parent === undefined || str(parent, "pid") === str(child, "pid")) return undefined;
      const label = dataServiceRole(parent);
      return label === undefined ? undefined : { row: parent, label };
    };
    const hits: DetectionHit[] = [];
    for (const child of procs) {
      const childName = basename(str(child, "name") || str(child, "path")).toLowerCase();
      const shellish = SHELLS.has(childName) || INTERPRETER.test(childName) || DOWNLOADERS.has(childName) || NETCAT_LIKE.has(childName);
      if (!shellish || dataServiceRole(child) !== undefined) continue;
      const service = serviceOf(child);
      if (service === undefined) continue;
      const grandchildren = children.get(str(child, "pid")) ?? [];
      const verdict = judgeChild(child, grandchildren);
      if (!verdict.strong) {
        if (service.label === "PostgreSQL" && onlyHelpers(verdict.programs, POSTGRES_ARCHIVE.programs)) continue;
        if (onlyHelpers(verdict.programs, DB_INTERNAL_HELPERS.programs)) continue;
      }
      const downloads = verdict.programs.some((p) => DOWNLOADERS.has(p) || NETCAT_LIKE.has(p));
      // Erlang's os:cmd port (`sh -s unix:cmd`) and RabbitMQ's disk monitor port (`sh -s rabbit_disk_monitor`, which
      // runs df through it): the shells the VM keeps open, fed on stdin; what they start is judged in `verdict`.
      if (erlangPort(service.row, child, verdict.programs)) continue;
      const why = verdict.why !== "" ? verdict.why : downloads ? "downloads" : `runs ${childName}`;
      let severity: DetectionHit["severity"] = verdict.strong || downloads || INTERPRETER.test(childName) || verdict.why !== "" ? undefined : "medium";
      // archive_command / restore_command run from the archiver or startup process, not from a client backend.
      if (severity === "medium" && /^postgres: (?:\S+: )?(?:archiver|startup|walreceiver)\b/.test(str(service.row, "cmdline"))) severity = "info";
      const pid = str(child, "pid");
      hits.push({
        summary: `${service.label} (pid ${str(service.row, "pid")}, uid ${str(service.row, "uid") || "?"}) started ${childName} (pid ${pid}), which ${why}: ${clip(str(child, "cmdline") || str(child, "path"))}.`,
        evidence: [
          { table: "processes", row: child },
          { table: "processes", row: service.row },
          ...grandchildren.slice(0, 5).map((row) => ({ table: "processes", row })),
        ],
        severity,
        entity: `pid:${pid}`,
      });
    }
    return hits;
  },
});
