// Defenses switched off: firewall disabled or flushed, SELinux/AppArmor off, security and audit agents stopped,
// killed or uninstalled, kernel monitoring knobs zeroed, immutable bits flipped on persistence files. Kinsing,
// TeamTNT, WatchDog and Rocke scripts run most of these in a row. Facts: Sigma "Disabling Security Tools",
// "Disable UFW", "Flush Iptables Ufw Chain", "Remove Immutable File Attribute", "Auditctl Clear Rules";
// Atomic Red Team T1562.001 / T1562.004 / T1222.002; intel/security-agents.ts.
import { basename, rowsOf, str } from "../rows.js";
import type { Severity } from "../types.js";
import { AGENT_UNINSTALLERS, agentNamed, CHATTR_TARGETS, MONITORING_KNOBS } from "../intel/security-agents.js";
import { clip, commandHit, commandSources, HISTORY_COLUMNS, PROCESS_COLUMNS, simpleCommands, USER_COLUMNS, userMaps } from "./command-lines.js";
import { defineDetection, type DetectionHit } from "./detection.js";

type Kind = "firewall" | "selinux" | "apparmor" | "agent" | "logging" | "kernel" | "immutable";

interface Impairment {
  kind: Kind;
  what: string;
  severity?: Severity;
}

/** Processes that manage packet filtering themselves (their iptables children are routine). */
const FIREWALL_MANAGERS = /^(?:dockerd|containerd|kube-proxy|kubelet|firewalld|ufw|fail2ban-server|calico-node|felix|cilium-agent|flanneld|weave|libvirtd|netfilter-persistent|iptables-restore|k3s|rke2|podman|netavark)$/;
/** Named chains belong to a tool (DOCKER, KUBE-*, cali-*, f2b-*, ufw-*): flushing them is that tool's business. */
const BUILTIN_CHAIN = /^(?:INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING)$/;
const STOPPING = /^(?:stop|disable|mask|kill)$/;
const SYSTEMCTL_LIKE: ReadonlySet<string> = new Set(["systemctl", "service", "chkconfig", "update-rc.d", "rc-service", "rc-update", "invoke-rc.d"]);
const KILLERS: ReadonlySet<string> = new Set(["kill", "pkill", "killall", "skill"]);
const FIREWALL_UNITS = /^(?:firewalld|ufw|nftables|iptables|ip6tables|netfilter-persistent|ebtables)(?:\.service)?$/;

function judgeCommand(text: string): Impairment[] {
  const found: Impairment[] = [];
  const commands = simpleCommands(text);
  const flushesAll = commands.some((c) => /^(?:ip6?tables(?:-legacy|-nft)?|xtables-\w+-multi)$/.test(c.program) && /(?:^|\s)(?:-F|--flush)(?:\s*$|\s+-|\s+(?:INPUT|OUTPUT|FORWARD)\b)/.test(` ${c.args.join(" ")}`) && !/-t\s+(?:nat|mangle|raw)\b/.test(c.raw));
  for (const cmd of commands) {
    const p = cmd.program;
    const args = cmd.args;
    if (p === "ufw" && args[0] === "disable") found.push({ kind: "firewall", what: "disables ufw" });
    if (p === "nft" && /flush\s+ruleset/.test(cmd.raw)) found.push({ kind: "firewall", what: "flushes the nftables ruleset" });
    if (/^ip6?tables/.test(p)) {
      const f = args.indexOf("-F") >= 0 ? args.indexOf("-F") : args.indexOf("--flush");
      const chain = f >= 0 ? args[f + 1] : undefined;
      if (f >= 0 && (chain === undefined || chain.startsWith("-") || BUILTIN_CHAIN.test(chain)) && !/-t\s+(?:nat|mangle|raw)\b/.test(cmd.raw)) found.push({ kind: "firewall", what: "flushes the firewall rules" });
      if (/-P\s+(?:INPUT|FORWARD)\s+ACCEPT\b/.test(cmd.raw) && flushesAll) found.push({ kind: "firewall", what: "sets the default policy to ACCEPT" });
    }
    if (SYSTEMCTL_LIKE.has(p)) {
      const stopping = args.some((a) => STOPPING.test(a)) || (p === "chkconfig" && args.includes("off")) || (p === "update-rc.d" && args.includes("remove"));
      if (stopping) {
        const units = args.filter((a) => !a.startsWith("-") && !STOPPING.test(a) && a !== "off" && a !== "remove" && a !== "--now");
        if (units.some((u) => FIREWALL_UNITS.test(u))) found.push({ kind: "firewall", what: `stops the firewall service (${units.join(" ")})` });
        if (units.some((u) => /^apparmor(?:\.service)?$/.test(u))) found.push({ kind: "apparmor", what: "stops AppArmor" });
        const agent = agentNamed(units.join(" "));
        if (agent) found.push({ kind: agent.label === "system logging" ? "logging" : "agent", what: `stops ${agent.label} (${units.join(" ")})`, ...(agent.label === "system logging" ? { severity: "medium" as Severity } : {}) });
      }
    }
    if (p === "setenforce" && /^(?:0|permissive)$/i.test(args[0] ?? "")) found.push({ kind: "selinux", what: "puts SELinux in permissive mode", severity: "low" });
    if ((p === "sed" || p === "echo" || p === "tee" || p === "printf") && /SELINUX=disabled/.test(text) && /\/etc\/(?:selinux\/config|sysconfig\/selinux)/.test(text)) found.push({ kind: "selinux", what: "disables SELinux in its configuration" });
    if (p === "aa-teardown" || (p === "apparmor_parser" && /(?:^|\s)-R\b/.test(cmd.raw)) || /\/etc\/init\.d\/apparmor\s+(?:stop|teardown)/.test(cmd.raw)) found.push({ kind: "apparmor", what: "unloads AppArmor profiles" });
    if (p === "auditctl" && /-e\s*0\b/.test(cmd.raw)) found.push({ kind: "agent", what: "disables kernel auditing (auditctl -e 0)" });
    if (p === "auditctl" && /(?:^|\s)-D\b/.test(cmd.raw)) found.push({ kind: "agent", what: "deletes all audit rules (auditctl -D)", severity: "medium" });
    if ((KILLERS.has(p) || (p === "xargs" && /\bkill\b/.test(cmd.raw))) && !/(?:^|\s)-(?:s\s*)?(?:SIG)?(?:HUP|USR1|USR2|1|0)\b/.test(cmd.raw)) {
      const agent = agentNamed(text);
      if (agent) found.push({ kind: agent.label === "system logging" ? "logging" : "agent", what: `kills ${agent.label}` });
    }
    if (p === "chattr" && /(?:^|\s)[-+=][aiAcdeisStTu]*[ia]/.test(` ${args.join(" ")}`)) {
      const targets = args.filter((a) => a.startsWith("/") || a.startsWith("~") || a.includes("authorized_keys"));
      const hit = targets.find((t) => CHATTR_TARGETS.test(t) && !/resolv\.conf$/.test(t));
      if (hit) {
        const locking = /(?:^|\s)\+/.test(` ${args.join(" ")}`);
        const key = /authorized_keys|ld\.so\.preload|\/cron|\/tmp\/|\/dev\/shm\//.test(hit);
        found.push({ kind: "immutable", what: `${locking ? "locks" : "unlocks"} ${hit} with chattr`, ...(key ? {} : { severity: "medium" as Severity }) });
      }
    }
  }
  if (AGENT_UNINSTALLERS.some((re) => re.test(text))) found.push({ kind: "agent", what: "uninstalls a cloud security agent" });
  for (const knob of MONITORING_KNOBS) {
    const zeroed = new RegExp(`(?:\\b0\\s*>\\s*\\/proc\\/sys\\/${knob.pattern.source.replace(/\[\.\/\]/g, "\\/")})|(?:${knob.pattern.source}\\s*=\\s*0\\b)`);
    if (zeroed.test(text)) found.push({ kind: "kernel", what: `turns off the ${knob.label}`, severity: knob.weight === "strong" ? "medium" : "low" });
  }
  return found;
}

export const defenseImpairment = defineDetection({
  id: "defense-impairment",
  title: "Security controls disabled (firewall, SELinux/AppArmor, security agents, audit)",
  reads: { processes: [...PROCESS_COLUMNS], shell_history: [...HISTORY_COLUMNS], users: [...USER_COLUMNS] },
  severity: "high",
  attack: ["T1562.001", "T1562.004", "T1222.002"],
  maturity: "test",
  category: "defense-evasion",
  false_positives:
    "iptables run by Docker, kube-proxy, firewalld, fail2ban or ufw itself and flushes of their own chains are ignored; restarting a service is not stopping it. On Kubernetes nodes disabling the firewall and SELinux is a documented kubeadm prerequisite (info). Admins troubleshooting with setenforce 0 show as low.",
  advice: {
    triage: ["On {hosts}, list which controls are off now (ufw status, getenforce, aa-status, systemctl is-active for the agents) and when they went off."],
    containment: ["Re-enable the controls on {hosts} and check the EDR console for the sensor's last check-in; isolate the host if the agent was killed."],
    investigation: ["What ran right after the controls went off is the payload: look for miners, new cron entries, authorized_keys and ld.so.preload changes."],
    remediation: ["Protect agents with tamper protection, alert on sensor silence, and rebuild hosts where root disabled them."],
  },
  evaluate(host) {
    const kubeNode = rowsOf(host, "processes").some((p) => /^(?:kubelet|k3s|rke2)$/.test(basename(str(p, "name"))));
    const found: Array<{ src: ReturnType<typeof commandSources>[number]; imp: Impairment[] }> = [];
    for (const src of commandSources(host, userMaps(host))) {
      if (src.parent && (FIREWALL_MANAGERS.test(basename(str(src.parent, "name"))) || basename(str(src.parent, "name")) === "logrotate")) continue;
      if (src.table === "processes" && FIREWALL_MANAGERS.test(basename(str(src.row, "name")))) continue;
      const imp = judgeCommand(src.text);
      if (imp.length > 0) found.push({ src, imp });
    }
    // Several kinds of defenses going down on one host is a cleanup script, not troubleshooting.
    const kinds = new Set(found.flatMap((f) => f.imp.map((i) => i.kind)));
    const campaign = kinds.size >= 3;
    const hits: DetectionHit[] = [];
    for (const { src, imp } of found) {
      const each = imp.map((i) => i.severity ?? (i.kind === "firewall" || i.kind === "apparmor" || i.kind === "selinux" ? "medium" : undefined));
      let severity: Severity | undefined = each.some((x) => x === undefined) ? undefined : each.some((x) => x === "medium") ? "medium" : "low";
      if (kubeNode && imp.every((i) => i.kind === "firewall" || i.kind === "selinux")) severity = "info";
      if (campaign) severity = undefined;
      const what = [...new Set(imp.map((i) => i.what))].join("; ");
      hits.push(commandHit(src, `${src.who} ${what}: ${clip(src.text)}${campaign ? ` (one of ${kinds.size} kinds of defenses turned off on this host)` : ""}.`, severity ? { severity } : {}));
    }
    return hits;
  },
});
