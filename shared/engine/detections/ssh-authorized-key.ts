// SSH authorized keys planted for persistence: on root, on service accounts, and on interactive users when the key
// is outside the host's key inventory, shared with another account, hidden in an odd file or forces a command.
import { cloudDefaultUser, knownAutomation, tagBaseline } from "../baselines/index.js";
import { stableHash } from "../fingerprint.js";
import { basename, num, rowsOf, str, tagList, withoutTrailingSlashes } from "../rows.js";
import type { HostData, Row } from "../types.js";
import { defineDetection, type DetectionHit } from "./detection.js";
import { isLoopback, isPrivate, isSiteAddress } from "../net.js";
import { commandSignals, inTmpDir, isInteractiveShell, isShell, outsideHost } from "./patterns.js";

/** A stable short id for a public key (the base64 body, ignoring options and comment). */
export function sshKeyId(key: string): string {
  const body = key.split(/\s+/).find((part) => part.startsWith("AAAA")) ?? key.trim();
  return stableHash(body);
}

/** osquery splits a line into algorithm, key (base64), options and comment; older rows carry the whole line in key. */
export function keyParts(row: Row): { body: string; comment: string; options: string } {
  const raw = str(row, "key").trim();
  const tokens = raw.split(/\s+/);
  const i = tokens.findIndex((p) => p.startsWith("AAAA"));
  const body = i >= 0 ? (tokens[i] ?? raw) : raw;
  const comment = str(row, "comment") || (i >= 0 ? tokens.slice(i + 1).join(" ") : "");
  const options = str(row, "options") || (i > 1 ? tokens.slice(0, i - 1).join(" ") : "");
  return { body, comment, options };
}

/** An authorized_keys file written from a shell line: echo/printf/cat ... >> file, or tee -a file (Atomic T1098.004). */
const APPEND_TO_KEYS = /(?:>>?\s*|\btee\s+(?:-a\s+|--append\s+)?)(["']?)((?:~|\$HOME|\/)[^\s"';|&>]*\/\.ssh\/authorized_keys2?)\1/;

interface HandAppend {
  file: string;
  line: string;
  row: Row;
}

/** Shell-history lines that wrote a key into an authorized_keys file, with the file resolved to a full path. */
function handAppends(host: HostData): HandAppend[] {
  const homes = new Map(rowsOf(host, "users").map((u) => [str(u, "uid"), withoutTrailingSlashes(str(u, "directory"))] as const));
  const out: HandAppend[] = [];
  for (const row of rowsOf(host, "shell_history")) {
    const line = str(row, "command");
    const m = APPEND_TO_KEYS.exec(line);
    if (!m || !/\b(?:echo|printf|cat|tee)\b/.test(line)) continue;
    const home = homes.get(str(row, "uid")) || (str(row, "uid") === "0" ? "/root" : "");
    const file = (m[2] ?? "").replace(/^(?:~|\$HOME)(?=\/)/, home);
    if (ownKeyAppend(line, home, file)) continue;
    out.push({ file, line, row });
  }
  return out;
}

/**
 * `cat ~/.ssh/id_ed25519.pub >> ~/.ssh/authorized_keys`: a user letting their own key into their own account, the
 * step every cluster with shared home directories documents for passwordless SSH between its nodes (Slurm and MPI
 * site guides). Only when the line reads nothing but .pub files in that same home's .ssh.
 */
function ownKeyAppend(line: string, home: string, target: string): boolean {
  if (home === "" || !target.startsWith(`${home}/.ssh/`)) return false;
  const at = line.indexOf(">>");
  const left = line.slice(0, at).trim();
  const right = line.slice(at + 2).trim();
  if (at < 0 || !left.startsWith("cat ") || /[|;&<>`$(]/.test(left.replace(/\$HOME\//g, "")) || right === "" || /[\s|;&<>]/.test(right)) return false;
  const sources = left.slice(4).trim().split(/\s+/).map((p) => p.replace(/^(?:~|\$HOME)(?=\/)/, home));
  return sources.length > 0 && sources.every((p) => p.startsWith(`${home}/.ssh/`) && p.endsWith(".pub") && !p.slice(home.length).includes(".."));
}

/** Default key comments of attacker distributions' installs (user@kali...). */
const ATTACKER_HOST_COMMENT = /@(?:kali|parrot|blackarch)\b/i;
/**
 * A key generated on a freshly booted cloud instance: ssh-keygen's default comment is user@hostname, and cloud
 * images name hosts after their private address (AWS "ip-172-31-5-9", GCP/Azure numbered hostnames) unless renamed.
 * Sources: AWS EC2 User Guide "Amazon EC2 instance hostname types" (IP name: ip-<private-ipv4>), ssh-keygen(1).
 */
const CLOUD_INSTANCE_COMMENT = /^([a-z_][\w.-]*)@(?:ip|i)-(?:\d{1,3}-){3}\d{1,3}(?:\.[\w.-]+)?$|^([a-z_][\w.-]*)@i-[0-9a-f]{8,17}$/i;

/** A key made on a throwaway cloud instance by another user than the account it opens (ubuntu@ip-172-31-x on alice). */
export function foreignCloudKey(comment: string, account: string): boolean {
  const m = CLOUD_INSTANCE_COMMENT.exec(comment.trim());
  const who = m?.[1] ?? m?.[2];
  return who !== undefined && who !== account;
}

/**
 * The key's `from=` list when every entry is inside the site (private or loopback addresses and CIDRs, wildcards
 * within a private range, internal names): sshd accepts the key only from there (sshd(8), AUTHORIZED_KEYS FILE FORMAT,
 * from="pattern-list"). Undefined when there is none, or any entry (or a negation) reaches further.
 */
export function internalOnlyFrom(options: string): string | undefined {
  const list = /(?:^|,)\s*from="([^"]*)"/i.exec(options)?.[1];
  if (list === undefined || list.trim() === "") return undefined;
  const inside = (entry: string): boolean => {
    const e = entry.trim().toLowerCase();
    if (e === "" || e.startsWith("!")) return false;
    const [base = "", bits] = e.split("/");
    // A wildcard narrower than a /16 (`10.30.*`), not the whole of a private block (`10.*`).
    if (/[*?]/.test(base)) return /^(?:10\.\d{1,3}\.|192\.168\.\d{1,3}\.|172\.(?:1[6-9]|2\d|3[01])\.\d{1,3}\.)/.test(base);
    if (/^[\d.]+$/.test(base)) {
      // RFC 1918 or loopback, a /16 or narrower: the shared-address (100.64/10) and link-local blocks are not the site's.
      const wide = bits !== undefined && Number(bits) < 16;
      return !wide && (isSiteAddress(base) || isLoopback(base));
    }
    if (base.includes(":")) return bits !== undefined && Number(bits) < 48 ? false : isPrivate(base) || isLoopback(base);
    return !outsideHost(base);
  };
  return list.split(",").every(inside) ? list : undefined;
}

export const RESTRICTED_KEY_BASELINE = "ssh-key:restricted-forced-command";

/**
 * Accounts of replication and cluster software that reach their peers over SSH as themselves: PostgreSQL (archive and
 * pg_rewind, repmgr, Barman), Greenplum, Hadoop, Ceph's cephadm, Cassandra, Oracle RAC's user equivalence.
 */
const PEER_ACCOUNTS: ReadonlySet<string> = new Set(["postgres", "enterprisedb", "repmgr", "barman", "gpadmin", "hadoop", "hdfs", "yarn", "mapred", "ceph", "cephadm", "cassandra", "oracle", "grid"]);

/**
 * A key comment `<account>@<host>` naming the account it is authorized for, a replication or cluster account, made on
 * another host than this one.
 */
function peerAccountKey(comment: string, account: string, hostname: string): boolean {
  const m = /^([a-z_][a-z0-9_.-]*)@([A-Za-z0-9][A-Za-z0-9.-]*)$/.exec(comment.trim());
  if (m === null || m[1] !== account || !PEER_ACCOUNTS.has(account)) return false;
  const short = (h: string): string => h.toLowerCase().split(".")[0] ?? "";
  return hostname === "" || short(m[2] ?? "") !== short(hostname);
}

/** Interpreters that run whatever they are given: a forced command of one of them is a shell by another name. */
const INTERPRETER = /^(?:python[\d.]*|perl|ruby|php[\d.]*|node|lua|env|su|sudo|script|expect|tclsh|busybox)$/;

/**
 * The forced command of a key that can run nothing else, no shell and no forwarding: `restrict` (OpenSSH 7.2: no
 * pty, no forwarding of any kind, no ~/.ssh/rc), or no-pty with port forwarding off. A plain program from an
 * ordinary path, no shell or interpreter and no shell syntax: what borg, rrsync and git document for backup and
 * deploy keys (`command="borg serve --append-only ...",restrict`). Null for anything else. Source: sshd(8),
 * AUTHORIZED_KEYS FILE FORMAT; BorgBackup docs "Hosting repositories" (restricting ssh access).
 */
export function restrictedForcedCommand(options: string): string | null {
  const command = /command="([^"]*)"/.exec(options)?.[1]?.trim() ?? "";
  if (command === "" || /[;&|`<>$()\\\n]/.test(command)) return null;
  const opts = new Set(options.replace(/command="[^"]*"/, "").split(",").map((o) => o.trim().toLowerCase()));
  // Agent forwarding lends the client's agent to this host, a risk to the client only: Barman's documented key for
  // barman-wal-restore leaves it on (`command="...",no-pty,no-port-forwarding`; a fourteenth blind corpus).
  const locked = opts.has("restrict") || (opts.has("no-pty") && opts.has("no-port-forwarding"));
  if (!locked || opts.has("pty") || opts.has("port-forwarding")) return null;
  const words = unwrapped(command.split(/\s+/));
  const program = words[0] ?? "";
  if (program === "" || isShell(program) || INTERPRETER.test(basename(program)) || inTmpDir(program) || /\/\./.test(program)) return null;
  // A program that runs what it is given, writes where it is told, or escapes to a shell is no restriction
  // (`setsid bash -i`, `socat - EXEC:/bin/bash`, `tee -a /root/.ssh/authorized_keys`, `tar -xf - -C /`, an editor).
  if (EXEC_WRAPPERS.has(basename(program))) return null;
  if (basename(program) === "rsync" && !(words.includes("--server") && words.includes("--sender"))) return null;
  if (words.slice(1).some(namesAShell)) return null;
  return command;
}

/** Wrappers that only change how the command runs (priority, time limit, buffering), with their options. */
const PRIORITY_WRAPPERS: Readonly<Record<string, RegExp>> = { nice: /^-(?:n|-adjustment)$/, ionice: /^-[cnp]$/, timeout: /^-[sk]$/, stdbuf: /^-[ioe]$/, nohup: /^$/ };

/** The command words with leading nice/ionice/timeout/stdbuf/nohup and their options taken off. */
function unwrapped(words: readonly string[]): string[] {
  let i = 0;
  for (let guard = 0; guard < 8 && i < words.length; guard += 1) {
    const takesValue = PRIORITY_WRAPPERS[basename(words[i] ?? "")];
    if (takesValue === undefined) break;
    const wrapper = basename(words[i] ?? "");
    i += 1;
    while (i < words.length && (words[i] ?? "").startsWith("-")) i += takesValue.test(words[i] ?? "") ? 2 : 1;
    if (wrapper === "timeout" && /^\d/.test(words[i] ?? "")) i += 1;
  }
  return words.slice(i);
}

/** An argument that names a shell or interpreter as a program: a bare name, one in a bin directory, socat's EXEC:. */
function namesAShell(word: string): boolean {
  for (const part of word.split(/[:=,]/)) {
    const bare = !part.includes("/");
    const inBin = /^\/(?:usr\/(?:local\/)?)?s?bin\//.test(part);
    if ((bare || inBin) && (isShell(part) || INTERPRETER.test(basename(part)))) return true;
  }
  return /^(?:EXEC|SYSTEM):/i.test(word);
}

/** Programs that run another program, or give a shell from inside: a forced command of these is no restriction. */
const EXEC_WRAPPERS: ReadonlySet<string> = new Set([
  "systemd-run", "crontab", "at", "batch", "find", "sed", "tar", "dd", "tee", "cp", "mv", "install", "ln", "chmod", "chown",
  "docker", "podman", "kubectl", "ctr", "nerdctl",
  "nice", "ionice", "nohup", "setsid", "timeout", "stdbuf", "env", "xargs", "exec", "command", "chroot", "runuser", "su",
  "sudo", "doas", "script", "socat", "busybox", "watch", "flock", "unshare", "nsenter", "chrt", "taskset", "time", "strace",
  "ltrace", "gdb", "vi", "vim", "nvim", "view", "nano", "emacs", "less", "more", "man", "ed", "ex", "awk", "gawk",
  "tclsh", "expect", "screen", "tmux",
]);

/**
 * A key with no signal of its own takes part in fleet-common (fleet-common.ts): the same key for the same account on
 * most hosts of the scope is provisioning (a break-glass root key, a CI controller's deploy key), not a plant on each.
 * A key planted by hand, shared with another account, hidden in another file or forcing a suspicious command never
 * does, however many hosts carry it.
 */
function provisioned(strong: boolean, account: string, body: string): { fleet_key?: string } {
  return strong ? {} : { fleet_key: `${account}\n${body}` };
}

export const sshAuthorizedKey = defineDetection({
  id: "ssh-authorized-key",
  title: "SSH authorized key planted for persistence",
  reads: {
    authorized_keys: ["uid", "key", "options", "comment", "key_file"],
    users: ["uid", "username", "shell", "directory"],
    shell_history: ["uid", "command", "history_file"],
  },
  severity: "medium",
  attack: ["T1098.004"],
  maturity: "test",
  category: "persistence",
  false_positives: "Root or service-account keys used by automation under a name outside the baselines and the allowed_ssh_keys tag.",
  advice: {
    triage: ["Ask the owners of {hosts} whether the key's comment and origin are known; compare with the key inventory."],
    containment: ["Remove the key from the authorized_keys file on {hosts} and kill sessions that used it."],
    investigation: ["Search the fleet for the same key (pathfinder: ssh key reused across hosts) and for logins from it."],
    remediation: ["Manage authorized keys centrally; disable root SSH login (PermitRootLogin no)."],
  },
  baseline_tag: "allowed_ssh_keys",
  evaluate(host) {
    const allowed = tagList(host.tags, "allowed_ssh_keys");
    const knownUsers = new Set(tagList(host.tags, "known_users"));
    const users = new Map(rowsOf(host, "users").map((u) => [str(u, "uid"), u] as const));
    const keyRows = rowsOf(host, "authorized_keys").filter((r) => str(r, "key") !== "");
    const uidsByKey = new Map<string, Set<string>>();
    for (const row of keyRows) {
      const { body, options } = keyParts(row);
      // cloud-init copies the default user's key to root behind a forced command: that copy is not a shared key.
      if (knownAutomation({ kind: "ssh-key-options", options: options || str(row, "key") })) continue;
      uidsByKey.set(body, (uidsByKey.get(body) ?? new Set<string>()).add(str(row, "uid")));
    }
    const appended = handAppends(host);
    const hits: DetectionHit[] = [];
    for (const row of keyRows) {
      const { body, comment, options } = keyParts(row);
      const uid = str(row, "uid");
      const user = users.get(uid);
      const name = str(user, "username") || `uid ${uid}`;
      const file = str(row, "key_file") || "authorized_keys";
      const label = `"${comment || "(no comment)"}"`;
      const evidence = user ? [{ table: "authorized_keys", row }, { table: "users", row: user }] : [{ table: "authorized_keys", row }];
      const entity = `sshkey:${sshKeyId(body)}`;
      const keep = (why: string, baseline: string): void => {
        hits.push({ summary: `${name} accepts SSH key ${label} (${file}): ${why}.`, evidence, entity, kept_by: baseline });
      };
      // Signals that hold whoever the account is.
      const signals: string[] = [];
      const forced = /command="([^"]*)"/.exec(options)?.[1] ?? "";
      if (commandSignals(forced).some((s) => s.strong)) signals.push(`its forced command ${commandSignals(forced).map((s) => s.why).join(", ")}`);
      if (/authorized_keys2$/.test(file) || !/\/\.ssh\/authorized_keys$/.test(file)) signals.push(`it sits in ${file}, not ~/.ssh/authorized_keys`);
      const others = [...(uidsByKey.get(body) ?? [])].filter((u) => u !== uid);
      if (others.length > 0) signals.push(`the same key is authorized for ${others.map((u) => str(users.get(u), "username") || `uid ${u}`).join(", ")}`);
      if (ATTACKER_HOST_COMMENT.test(comment)) signals.push("its comment names an attacker distribution's default host");
      if (foreignCloudKey(comment, name)) signals.push(`it was generated on an unnamed cloud instance by ${comment.split("@")[0] ?? "another user"}, not by ${name}`);
      const byHand = appended.find((a) => a.file === file || (a.line.includes(body.slice(0, 40)) && body.length >= 40));
      if (byHand) {
        signals.push(`a shell appended a key to ${byHand.file} by hand (\`${byHand.line.slice(0, 70)}\`)`);
        evidence.push({ table: "shell_history", row: byHand.row });
      }
      const strong = signals.length > 0;
      if (!strong && allowed.some((a) => a !== "" && (comment === a || body === a || body.includes(a)))) {
        keep("listed in the host's allowed_ssh_keys tag", tagBaseline("allowed_ssh_keys"));
        continue;
      }
      const only = strong ? null : restrictedForcedCommand(options);
      if (only !== null) {
        keep(`the key can only run \`${only.slice(0, 80)}\`, without a terminal or forwarding (restricted forced command)`, RESTRICTED_KEY_BASELINE);
        continue;
      }
      const numericUid = num(user, "uid") ?? num(row, "uid") ?? 1000;
      const interactive = isInteractiveShell(str(user, "shell"));
      if (uid === "0") {
        const cloudInit = knownAutomation({ kind: "ssh-key-options", options: options || str(row, "key") });
        if (cloudInit) {
          keep("cloud-init's disable_root forced command, the key cannot open a root shell", cloudInit.baseline);
          continue;
        }
        const automation = strong ? undefined : knownAutomation({ kind: "ssh-key-comment", comment });
        if (automation) {
          keep(`a configuration-management key (${automation.source})`, automation.baseline);
          continue;
        }
        // Taken only from inside the site (`from="10.30.0.0/16"`): someone configured where it may come from, which
        // a planted key seldom does; still root's, so worth a look, not an alarm.
        const inside = strong ? undefined : internalOnlyFrom(options);
        if (inside !== undefined) {
          hits.push({ summary: `root accepts SSH key ${label} from ${file}, not in the host's allowed keys, only from inside the site (from="${inside.slice(0, 60)}").`, evidence, severity: "low", entity, ...provisioned(strong, "root", body) });
          continue;
        }
        hits.push({ summary: `root accepts SSH key ${label} from ${file}${strong ? `; ${signals.join("; ")}` : ", not in the host's allowed keys"}.`, evidence, severity: "high", entity, ...provisioned(strong, "root", body) });
        continue;
      }
      const service = user ? numericUid < 1000 || !interactive : numericUid < 1000;
      if (service) {
        const automation = strong ? undefined : knownAutomation({ kind: "ssh-key-comment", comment });
        if (automation) {
          keep(`a configuration-management key (${automation.source})`, automation.baseline);
          continue;
        }
        // A key the same replication or cluster account made on another host (`postgres@pg-02` in postgres's keys):
        // peers exchange these. The comment is the key's author's to write, so low, not a note.
        if (!strong && peerAccountKey(comment, name, host.hostname ?? "")) {
          hits.push({ summary: `Service account ${name} accepts SSH key ${label} (${file}), made by ${name} on another host: a replication or cluster peer's key? Confirm the peer.`, evidence, severity: "low", entity, ...provisioned(strong, name, body) });
          continue;
        }
        const inside = strong ? undefined : internalOnlyFrom(options);
        if (inside !== undefined) {
          hits.push({ summary: `Service account ${name} accepts SSH key ${label} (${file}) only from inside the site (from="${inside.slice(0, 60)}").`, evidence, severity: "info", entity, ...provisioned(strong, name, body) });
          continue;
        }
        hits.push({ summary: `Service account ${name} accepts SSH key ${label} (${file})${strong ? `; ${signals.join("; ")}` : ""}.`, evidence, severity: strong ? "high" : undefined, entity, ...provisioned(strong, name, body) });
        continue;
      }
      // Interactive non-root users: keys are normal, so it takes a signal or an inventory that leaves the key out.
      const inventoryMiss = allowed.length > 0 ? "the key is not in the host's allowed_ssh_keys tag" : knownUsers.size > 0 && !knownUsers.has(name) ? `${name} is not in the host's known_users tag` : "";
      if (!strong && inventoryMiss === "") continue;
      if (!strong && cloudDefaultUser(name) && allowed.length === 0) continue;
      hits.push({
        summary: `${name} (uid ${uid}) accepts SSH key ${label} (${file}); ${[...signals, inventoryMiss].filter((s) => s !== "").join("; ")}.`,
        evidence,
        severity: others.includes("0") ? "high" : undefined,
        entity,
      });
    }
    return hits;
  },
});
