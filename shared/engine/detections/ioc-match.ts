// Exact matches of the indicators named in the question (IPs, sha256, domains, file paths) against the rows: addresses in
// socket and login columns and as whole tokens in command lines, cron lines, history and unit files; hashes in the
// hash table; domains as names in the same free text and in /etc/hosts; paths as executables, files, mapped libraries, mounts and inside command lines. A path named in the
// question is a place to look, not an indicator: a match is low on its own, and system directories named as places
// ("/tmp", "/usr/lib") are left to the detections that know what is wrong there. An indicator found only in shell
// history that searches for it, looks it up or blocks it (indicator-hunts.ts) is an observation at info. A port named
// ("beaconing on port 8888") finds connections out to outside addresses on it, unless every host uses it (443, 53).
import { basename, processIndex, rowsOf, str, withoutTrailingSlashes } from "../rows.js";
import { isLoopback, isPrivate, isPublic, isWildcard, normalizeIp } from "../net.js";
import type { HostData } from "../types.js";
import { defineDetection, type DetectionHit, type EvidenceRow } from "./detection.js";
import { huntChecker } from "./indicator-hunts.js";

/** Columns holding exactly one address. */
const IP_EXACT: Readonly<Record<string, readonly string[]>> = {
  process_open_sockets: ["remote_address"],
  last: ["host"],
  logged_in_users: ["host"],
  etc_hosts: ["address"],
};
/** Tables that mention an address as configuration (a key's from=, a hosts line, an environment value), not a use. */
const CONFIGURATION_TABLES: ReadonlySet<string> = new Set(["authorized_keys", "etc_hosts", "process_envs"]);
/** Ports every host connects out on: a question naming one names every web, mail, DNS or database client. */
const COMMON_PORTS: ReadonlySet<number> = new Set([20, 21, 22, 25, 53, 80, 110, 123, 143, 389, 443, 465, 587, 636, 853, 993, 995, 1433, 1521, 3306, 5432, 6379, 8080, 8443, 9200, 27017]);
/** Where a login's source address is recorded. */
const LOGIN_SOURCES: Readonly<Record<string, readonly string[]>> = { last: ["host"], logged_in_users: ["host"] };
/** Columns of commands: command lines, cron, history, unit files. */
const COMMAND_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  processes: ["cmdline"],
  crontab: ["command"],
  shell_history: ["command"],
  augeas: ["value"],
};
/** Columns of free text where an address appears as a token (the commands, key options, environment values). */
const TEXT_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  ...COMMAND_COLUMNS,
  authorized_keys: ["options"],
  process_envs: ["value"],
};
/** Columns holding exactly one path. */
const PATH_EXACT: Readonly<Record<string, readonly string[]>> = {
  processes: ["path"],
  hash: ["path"],
  suid_bin: ["path"],
  file: ["path"],
  process_memory_map: ["path"],
  systemd_units: ["fragment_path"],
  docker_container_mounts: ["source"],
};

/** Directories people name as places to look ("anything in /tmp?"); never an indicator by themselves. */
const PLACES: ReadonlySet<string> = new Set([
  "/", "/tmp", "/var/tmp", "/dev/shm", "/dev", "/etc", "/var", "/var/lib", "/var/log", "/var/run", "/run", "/usr", "/usr/lib",
  "/usr/lib64", "/lib", "/lib64", "/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/share", "/usr/local", "/usr/local/bin",
  "/usr/local/lib", "/opt", "/home", "/root", "/srv", "/boot", "/proc", "/etc/cron.d", "/etc/systemd/system", "/var/spool/cron",
  "/etc/ssh", "/var/www", "/var/www/html",
  // System files people name as where to look ("check /etc/hosts for ..."), not as indicators.
  "/etc/hosts", "/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/crontab",
  "/etc/ld.so.preload", "/etc/ssh/sshd_config", "/etc/resolv.conf", "/etc/rc.local", "/etc/profile", "/etc/bash.bashrc",
  "/root/.ssh", "/root/.ssh/authorized_keys", "/root/.bash_history", "/var/run/docker.sock", "/run/docker.sock",
  "/var/log/auth.log", "/var/log/secure", "/var/log/syslog", "/var/log/wtmp", "/var/log/btmp", "/var/log/lastlog",
  "/proc/self/environ", "/etc/cron.hourly", "/etc/cron.daily", "/var/spool/cron/crontabs",
  // bash's pseudo-devices: named as a technique ("any /dev/tcp usage?"), judged by reverse-shell and the command signals.
  "/dev/tcp", "/dev/udp", "/dev/null",
]);

function merge(into: Map<string, EvidenceRow[]>, key: string, row: EvidenceRow): void {
  const list = into.get(key) ?? [];
  if (!list.some((e) => e.row === row.row)) list.push(row);
  into.set(key, list);
}

function scan(host: HostData, columns: Readonly<Record<string, readonly string[]>>, wanted: (value: string) => string[], into: Map<string, EvidenceRow[]>): void {
  for (const table of Object.keys(columns).sort()) {
    for (const row of rowsOf(host, table)) {
      for (const column of columns[table] ?? []) for (const ioc of wanted(str(row, column))) merge(into, ioc, { table, row });
    }
  }
}

interface TokenEdges {
  /** A character that may not precede the needle. */
  before: RegExp;
  /** A character that may not follow it. */
  after: RegExp;
  /** After a following ".", a character that makes the needle part of a longer token (1.2.3.4.5, x.com.evil). */
  continued: RegExp;
}

/** Whether `needle` occurs in `text` as a whole token, by the edges given. */
function occursAsToken(text: string, needle: string, edges: TokenEdges): boolean {
  let at = text.indexOf(needle);
  while (at >= 0) {
    const before = text[at - 1] ?? "";
    const after = text[at + needle.length] ?? "";
    if (!edges.before.test(before) && !edges.after.test(after) && !(after === "." && edges.continued.test(text[at + needle.length + 1] ?? ""))) return true;
    at = text.indexOf(needle, at + 1);
  }
  return false;
}

const IP_EDGES: TokenEdges = { before: /[\w.:]/, after: /\w/, continued: /\d/ };
/** A domain also matches as the parent of a longer name (evil.example.com matches example.com). */
const DOMAIN_EDGES: TokenEdges = { before: /[\w-]/, after: /[\w-]/, continued: /[a-z0-9]/ };

/** Addresses appearing in free text as whole tokens (not part of a longer number or address). */
function ipsInText(text: string, wanted: ReadonlySet<string>): string[] {
  return text === "" ? [] : [...wanted].filter((ip) => occursAsToken(text, ip, IP_EDGES));
}

/** Domains appearing in free text as a name or a parent of one. */
function domainsInText(text: string, domains: readonly string[]): string[] {
  if (text === "") return [];
  const lower = text.toLowerCase();
  return domains.filter((d) => occursAsToken(lower, d, DOMAIN_EDGES));
}

function pathHit(value: string, paths: readonly string[]): string[] {
  const clean = value.replace(/ \(deleted\)$/, "");
  return paths.filter((p) => clean === p || clean.startsWith(`${p}/`));
}

/** Whether a row names the path itself (a file at it, or the path as a word of a command), not only something under it. */
function namesExactly(e: EvidenceRow, path: string): boolean {
  const columns = { ...PATH_EXACT, ...TEXT_COLUMNS }[e.table] ?? [];
  return columns.some((c) => {
    const v = str(e.row, c).replace(/ \(deleted\)$/, "");
    if (v === path) return true;
    if (!(e.table in TEXT_COLUMNS)) return false;
    for (let at = v.indexOf(path); at >= 0; at = v.indexOf(path, at + 1)) {
      const after = v[at + path.length] ?? "";
      if (after === "" || /[\s'";:|&)]/.test(after)) return true;
    }
    return false;
  });
}

/**
 * Cloud instance-metadata addresses: every cloud agent on the host talks to them (the SSM agent, Thanos and Loki for
 * credentials, cloud-init), so their being in the rows is context, not an indicator: cloud-credential-access judges
 * what fetched credentials from them (AWS, GCP, Azure 169.254.169.254 and fd00:ec2::254; ECS task 169.254.170.2;
 * Alibaba 100.100.100.200).
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set(["169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200"]);

/** The host's own addresses: the local ends of its sockets and its listeners (never /etc/hosts, which root writes). */
function ownAddresses(host: HostData): Set<string> {
  const own = new Set<string>();
  for (const table of ["process_open_sockets", "listening_ports"]) {
    for (const row of rowsOf(host, table)) {
      const ip = normalizeIp(str(row, table === "listening_ports" ? "address" : "local_address"));
      if (ip !== "" && !isLoopback(ip) && !isWildcard(ip)) own.add(ip);
    }
  }
  return own;
}

/** File names that are the last component of the path (a mapped library, a running program, a listed file). */
function fileHit(value: string, files: readonly string[]): string[] {
  const name = basename(value);
  // A relative path named (node_modules/nx/telemetry.js) is the end of the value's path.
  return files.filter((f) => (f.includes("/") ? value === f || value.endsWith(`/${f}`) : name === f));
}

/** File names as a word of a command line (`insmod diamorphine.ko`, `cp pam_x.so /lib/...`, `/tmp/x/kinsing.sh`). */
function filesInText(text: string, files: readonly string[]): string[] {
  return files.filter((f) => {
    for (let at = text.indexOf(f); at >= 0; at = text.indexOf(f, at + 1)) {
      const before = text[at - 1] ?? "";
      const after = text[at + f.length] ?? "";
      if ((before === "" || /[\s/'"=]/.test(before)) && (after === "" || /[\s'";:|&)]/.test(after))) return true;
    }
    return false;
  });
}

function pathsInText(text: string, paths: readonly string[]): string[] {
  return paths.filter((p) => {
    const at = text.indexOf(p);
    if (at < 0) return false;
    const after = text[at + p.length] ?? "";
    return after === "" || /[\s/'";:|&)]/.test(after);
  });
}

export const iocMatch = defineDetection({
  id: "ioc-match",
  title: "Indicator from the question found",
  reads: {
    processes: ["pid", "path", "cmdline"],
    process_open_sockets: ["pid", "remote_address", "remote_port", "local_address"],
    listening_ports: ["address"],
    hash: ["path", "sha256"],
    last: ["host"],
    logged_in_users: ["host"],
    etc_hosts: ["address", "hostnames"],
    suid_bin: ["path"],
    file: ["path"],
    process_memory_map: ["path"],
    systemd_units: ["fragment_path"],
    docker_container_mounts: ["source"],
    docker_containers: ["image"],
    crontab: ["command"],
    shell_history: ["command"],
    augeas: ["value"],
    authorized_keys: ["options"],
    process_envs: ["value"],
  },
  severity: "medium",
  attack: [],
  maturity: "stable",
  category: "indicator",
  false_positives: "Indicators that are shared infrastructure (CDN or cloud addresses) rather than attacker-owned; paths that are ordinary places. An analyst's searches, lookups and firewall blocks of the indicator in shell history are kept at info.",
  advice: {
    triage: ["Confirm the indicator's provenance (threat report, alert) and its first and last sighting on {hosts}."],
    containment: ["Block the indicator at the egress and isolate {hosts} if it is attacker infrastructure."],
    investigation: ["Follow the indicator through the pathfinder to the processes and hosts it touches."],
    remediation: ["Add the indicator to the blocklist and to standing questions."],
  },
  evaluate(host, ctx) {
    if (!ctx) return [];
    const ips = new Set(ctx.entities.ips.map(normalizeIp));
    const hashes = new Set(ctx.entities.sha256.map((h) => h.toLowerCase()));
    const paths = ctx.entities.paths.filter((p) => p.length > 1 && !PLACES.has(withoutTrailingSlashes(p)));
    const hits: DetectionHit[] = [];
    const huntedFor = huntChecker();
    // A domain the host itself is named under is how the question names the fleet ("the example.org mail hosts"), not
    // an indicator: its own /etc/hosts lines and lookups carry it everywhere.
    const self = host.hostname.toLowerCase();
    const domains = ctx.entities.domains.filter((d) => self !== d.toLowerCase() && !self.endsWith(`.${d.toLowerCase()}`));
    const files = ctx.entities.files ?? [];
    const accessKeys = ctx.entities.access_keys ?? [];
    const emit = (kind: "address" | "hash" | "path" | "domain" | "file" | "access key", found: Map<string, EvidenceRow[]>): void => {
      for (const ioc of [...found.keys()].sort()) {
        const evidence = found.get(ioc) ?? [];
        const rows = `${evidence.length} row${evidence.length === 1 ? "" : "s"}`;
        // Someone on the host grepped for it, looked it up or blocked it: a hunt, not a use (indicator-hunts.ts).
        const hunted = evidence.every((e) => e.table === "shell_history" && huntedFor(str(e.row, "command"), ioc));
        hits.push({
          summary: hunted
            ? `The ${kind} ${ioc} named in the question appears only in ${rows} of shell history that search for it, look it up or block it: someone here hunted for it.`
            : `The ${kind} ${ioc} named in the question appears in ${rows} (${[...new Set(evidence.map((e) => e.table))].join(", ")}).`,
          evidence,
          severity: hunted || (kind === "address" && METADATA_ADDRESSES.has(ioc)) ? "info" : kind === "path" || kind === "file" ? "low" : "medium",
          entity: `${kind === "address" ? "ip" : kind === "hash" ? "sha256" : kind === "domain" ? "domain" : kind === "file" ? "file" : kind === "access key" ? "accesskey" : "path"}:${ioc}`,
        });
      }
    };
    if (ips.size > 0) {
      // A loopback address is on every host (/etc/hosts, local clients): only a login from it says something.
      const routable = new Set([...ips].filter((ip) => !isLoopback(ip) && !isWildcard(ip)));
      const found = new Map<string, EvidenceRow[]>();
      scan(host, IP_EXACT, (v) => (routable.has(normalizeIp(v)) ? [normalizeIp(v)] : []), found);
      scan(host, LOGIN_SOURCES, (v) => (ips.has(normalizeIp(v)) && !routable.has(normalizeIp(v)) ? [normalizeIp(v)] : []), found);
      scan(host, TEXT_COLUMNS, (v) => ipsInText(v, routable), found);
      const own = ownAddresses(host);
      for (const ip of [...found.keys()].sort()) {
        const evidence = found.get(ip) ?? [];
        // The host's own address is how the question names the host, not something the host met.
        // A connection or a login from it is something the host met, whatever the address.
        const met = evidence.some((e) => (e.table === "process_open_sockets" && normalizeIp(str(e.row, "remote_address")) === ip) || e.table in LOGIN_SOURCES);
        if (own.has(ip) && !met) hits.push({ summary: `The address ${ip} named in the question is this host's own (the local end of its sockets): the question is about this host.`, evidence, severity: "info", entity: `ip:${ip}` });
        // An address inside the site that only the configuration mentions (a key's from=, a hosts line) is a lead to
        // follow, not an alert; a command or connection using it keeps its severity (CGNAT's 100.64/10 is no inside).
        else if (evidence.every((e) => CONFIGURATION_TABLES.has(e.table)) && isPrivate(ip) && !ip.startsWith("100.") && !METADATA_ADDRESSES.has(ip)) hits.push({ summary: `The inside address ${ip} named in the question appears in ${evidence.length} row${evidence.length === 1 ? "" : "s"} (${[...new Set(evidence.map((e) => e.table))].join(", ")}): one of the site's hosts, a lead to follow.`, evidence, severity: "low", entity: `ip:${ip}` });
        else continue;
        found.delete(ip);
      }
      emit("address", found);
    }
    if (hashes.size > 0) {
      const found = new Map<string, EvidenceRow[]>();
      scan(host, { hash: ["sha256"] }, (v) => (hashes.has(v.toLowerCase()) ? [v.toLowerCase()] : []), found);
      emit("hash", found);
    }
    if (domains.length > 0) {
      const found = new Map<string, EvidenceRow[]>();
      scan(host, { ...TEXT_COLUMNS, etc_hosts: ["hostnames"] }, (v) => domainsInText(v, domains), found);
      emit("domain", found);
    }
    if (paths.length > 0) {
      const found = new Map<string, EvidenceRow[]>();
      scan(host, PATH_EXACT, (v) => pathHit(v, paths), found);
      scan(host, TEXT_COLUMNS, (v) => pathsInText(v, paths), found);
      // A directory named as where to look ("running out of /home/mlops and /tmp/ray") holds what the host keeps
      // there: only a file at the very path named, or a command naming it, is the indicator itself.
      for (const p of [...found.keys()].sort()) {
        const evidence = found.get(p) ?? [];
        // A hidden directory named is where something hides, not a place to look around (what runs from a temp
        // directory is exec-from-tmp's).
        if (/\/\./.test(p)) continue;
        // Something under it is listed: a directory, however the commands name it (`--temp-dir=/tmp/ray`, HOME=...).
        const directory = evidence.some((e) => Object.values(e.row).some((v) => typeof v === "string" && v.includes(`${p}/`)));
        const isFile = evidence.some((e) => (PATH_EXACT[e.table] ?? []).some((c) => str(e.row, c).replace(/ \(deleted\)$/, "") === p));
        if (isFile || (!directory && evidence.some((e) => namesExactly(e, p)))) continue;
        hits.push({ summary: `The directory ${p} named in the question holds what ${evidence.length} row${evidence.length === 1 ? "" : "s"} show (${[...new Set(evidence.map((e) => e.table))].join(", ")}): a place to look, judged by the other detections.`, evidence, severity: "info", entity: `path:${p}` });
        found.delete(p);
      }
      emit("path", found);
    }
    if (files.length > 0) {
      const found = new Map<string, EvidenceRow[]>();
      scan(host, PATH_EXACT, (v) => fileHit(v, files), found);
      scan(host, COMMAND_COLUMNS, (v) => filesInText(v, files), found);
      // An image named (`cmd.cat/chattr`) is the container's image, with any tag or digest.
      scan(host, { docker_containers: ["image"] }, (v) => files.filter((f) => f.includes("/") && (v === f || v.startsWith(`${f}:`) || v.startsWith(`${f}@`) || v.endsWith(`/${f}`) || v.includes(`/${f}:`))), found);
      emit("file", found);
    }
    // A port named ("beaconing on port 8888"): connections out to an outside address on it. The ports every host
    // uses out (web, mail, DNS, SSH, NTP, databases) would name every client, so they are left to the other detections.
    const ports = (ctx.entities.ports ?? []).filter((p) => !COMMON_PORTS.has(p));
    if (ports.length > 0) {
      const procs = processIndex(host);
      for (const port of [...new Set(ports)].sort((a, b) => a - b)) {
        const evidence: EvidenceRow[] = [];
        for (const row of rowsOf(host, "process_open_sockets")) {
          if (str(row, "remote_port") !== String(port) || !isPublic(str(row, "remote_address"))) continue;
          evidence.push({ table: "process_open_sockets", row });
          const proc = procs.get(str(row, "pid"));
          if (proc) evidence.push({ table: "processes", row: proc });
        }
        if (evidence.length === 0) continue;
        const sockets = evidence.filter((e) => e.table === "process_open_sockets").length;
        hits.push({ summary: `The port ${port} named in the question: ${sockets} connection${sockets === 1 ? "" : "s"} out to an outside address on it.`, evidence, severity: "low", entity: `port:${port}` });
      }
    }
    if (accessKeys.length > 0) {
      const found = new Map<string, EvidenceRow[]>();
      // A key id is 20 characters of its own alphabet: a substring match is a token match.
      scan(host, { ...COMMAND_COLUMNS, process_envs: ["value"] }, (v) => accessKeys.filter((k) => v.includes(k)), found);
      emit("access key", found);
    }
    return hits;
  },
});
