// A clean production server as osquery sees it: kernel threads, systemd services, sshd with admin sessions,
// system accounts, packaged SUID binaries, in-tree kernel modules, cron jobs, admins' shell history.
import type { Rng } from "./prng.js";
import { HostBuilder } from "./host.js";
import { DISTROS, BASE_MODULES, type Distro } from "./distros.js";
import { adminKey, hostname, type Fleet, type Role } from "./fleet.js";
import { addRole } from "./roles.js";
import { createHash } from "node:crypto";

/** Packages whose binaries the engine compares between hosts: built once per distribution release. */
const PEER_PACKAGES: ReadonlySet<string> = new Set(["openssh-server", "sudo", "cron", "cronie", "util-linux", "rsyslog", "systemd", "login", "passwd", "shadow-utils", "dbus"]);

/** The hash of a distribution's build of a binary (stands in for the real file: the same on every host of the release). */
export function packagedSha256(d: Distro, path: string, pkg: string): string {
  const version = d.packages.find(([name]) => name === pkg)?.[1] ?? "unpackaged";
  return createHash("sha256").update(`${d.tag}\n${path}\n${pkg}=${version}`).digest("hex");
}

export interface Account {
  name: string;
  uid: number;
  home: string;
}

export interface Base {
  h: HostBuilder;
  sshd: number;
  cron: number;
  cloudUser: Account;
  admins: Account[];
  /** Main pids of the role's services, by short name (nginx, php-fpm, tomcat, postgres, dockerd...). */
  svc: Record<string, number>;
}

export interface BaseOpts {
  distro?: Distro;
  now: number;
  name?: string;
  ip?: string;
}

const KTHREADS_GLOBAL = [
  "rcu_gp", "rcu_par_gp", "slub_flushwq", "netns", "mm_percpu_wq", "rcu_tasks_kthread", "rcu_tasks_rude_kthread", "rcu_tasks_trace_kthread",
  "rcu_preempt", "kdevtmpfs", "inet_frag_wq", "kauditd", "khungtaskd", "oom_reaper", "writeback", "kcompactd0", "ksmd", "khugepaged",
  "kintegrityd", "kblockd", "blkcg_punt_bio", "tpm_dev_wq", "ata_sff", "md", "edac-poller", "devfreq_wq", "watchdogd", "kswapd0",
  "ecryptfs-kthread", "kthrotld", "nvme-wq", "nvme-reset-wq", "nvme-delete-wq", "ipv6_addrconf", "kstrp", "zswap-shrink", "charger_manager",
  "jbd2/nvme0n1p1-8", "ext4-rsv-conver", "cryptd", "scsi_eh_0", "scsi_tmf_0", "hwrng",
];
const KWORKER_SUFFIX = ["-events", "-events_highpri", "-mm_percpu_wq", "-cgroup_destroy", "-events_power_efficient", "-kblockd", "-ipv6_addrconf", ""];

function kernelThreads(h: HostBuilder, rng: Rng): void {
  h.proc({ name: "kthreadd", path: "", cmdline: "", pid: 2, parent: 0, start: h.spec.boot });
  let pid = 3;
  for (const name of KTHREADS_GLOBAL.slice(0, 8)) h.kthread(name, pid++);
  for (let cpu = 0; cpu < h.spec.cpus; cpu++) {
    for (const stem of ["cpuhp", "migration", "ksoftirqd"]) h.kthread(`${stem}/${cpu}`, pid++);
    h.kthread(`kworker/${cpu}:0H-events_highpri`, pid++);
  }
  for (const name of KTHREADS_GLOBAL.slice(8)) h.kthread(name, (pid += rng.int(1, 4)));
  const nWorkers = 6 + h.spec.cpus * 2;
  for (let i = 0; i < nWorkers; i++) {
    const cpu = rng.int(0, h.spec.cpus - 1);
    h.kthread(rng.chance(0.3) ? `kworker/u${h.spec.cpus * 2}:${rng.int(0, 9)}${rng.pick(["-events_unbound", "-flush-259:0", "-writeback", ""])}` : `kworker/${cpu}:${rng.int(0, 3)}${rng.pick(KWORKER_SUFFIX)}`);
  }
}

function accounts(h: HostBuilder, rng: Rng, d: Distro, fleet: Fleet): { cloud: Account; admins: Account[] } {
  for (const [name, gid] of d.groups) h.add("groups", { gid, gid_signed: gid, groupname: name });
  for (const [username, uid, gid, description, directory, shell] of d.systemUsers) {
    h.add("users", { uid, gid, uid_signed: uid, gid_signed: gid, username, description, directory, shell, uuid: "" });
    h.add("user_groups", { uid, gid });
    const sp = uid === 0 ? (rng.chance(0.7) ? "*" : "!") : "*";
    h.add("shadow", {
      password_status: sp === "*" || sp === "!" ? "locked" : "active", hash_alg: "", last_change: 19_700 + rng.int(0, 300), min: 0, max: 99999,
      warning: 7, inactive: -1, expire: -1, flag: -1, username,
    });
  }
  const people = [d.cloudUser, ...fleet.admins];
  const out: Account[] = [];
  people.forEach((name, i) => {
    const uid = 1000 + i;
    const home = `/home/${name}`;
    const acct = { name, uid, home };
    out.push(acct);
    h.add("groups", { gid: uid, gid_signed: uid, groupname: name });
    h.add("users", { uid, gid: uid, uid_signed: uid, gid_signed: uid, username: name, description: i === 0 ? (d.pkg === "deb" ? "Ubuntu" : "Cloud User") : `${name},,,`, directory: home, shell: "/bin/bash", uuid: "" });
    h.add("user_groups", { uid, gid: uid });
    const sudoGid = d.groups.find(([g]) => g === d.sudoGroup)?.[1] ?? 27;
    h.add("user_groups", { uid, gid: sudoGid });
    h.add("shadow", {
      password_status: i === 0 ? "locked" : "active", hash_alg: i === 0 ? "" : d.pkg === "deb" && d.tag !== "ubuntu-22.04" ? "y" : "6", last_change: 19_800 + rng.int(0, 400),
      min: 0, max: 99999, warning: 7, inactive: -1, expire: -1, flag: -1, username: name,
    });
    const keyFile = `${home}/.ssh/authorized_keys`;
    h.add("authorized_keys", { uid, algorithm: "ssh-ed25519", key: adminKey(rng), options: "", comment: i === 0 ? `${fleet.env}-provisioning` : `${name}@${rng.pick(["laptop", "mbp", "thinkpad", "workstation"])}`, key_file: keyFile });
  });
  return { cloud: out[0] as Account, admins: out.slice(1) };
}

function sudoers(h: HostBuilder, d: Distro, cloud: Account): void {
  const defaults = ["env_reset", "mail_badpass", 'secure_path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin"'];
  if (d.pkg === "deb") defaults.push("use_pty");
  for (const r of defaults) h.add("sudoers", { source: "/etc/sudoers", header: "Defaults", rule_details: r });
  h.add("sudoers", { source: "/etc/sudoers", header: "root", rule_details: "ALL=(ALL:ALL) ALL" });
  h.add("sudoers", { source: "/etc/sudoers", header: `%${d.sudoGroup}`, rule_details: "ALL=(ALL:ALL) ALL" });
  if (d.pkg === "deb") h.add("sudoers", { source: "/etc/sudoers", header: "@includedir", rule_details: "/etc/sudoers.d" });
  else h.add("sudoers", { source: "/etc/sudoers", header: "#includedir", rule_details: "/etc/sudoers.d" });
  h.add("sudoers", { source: "/etc/sudoers.d/90-cloud-init-users", header: cloud.name, rule_details: "ALL=(ALL) NOPASSWD:ALL" });
}

const ADMIN_CMDS = [
  "sudo systemctl status {svc}", "df -h", "free -m", "uptime", "sudo journalctl -u {svc} --since '1 hour ago'", "top", "htop", "ls -la /var/log",
  "sudo tail -f /var/log/syslog", "ps aux | grep {svc}", "sudo ss -tlnp", "ip a", "cat /etc/os-release", "sudo apt update", "sudo apt list --upgradable",
  "sudo dnf check-update", "git -C /srv/app log --oneline | head", "sudo systemctl restart {svc}", "du -sh /var/lib/* | sort -h", "vim ~/.bashrc",
  "sudo -i", "exit", "less /var/log/{svc}/error.log", "sudo lsof -i :443", "curl -sI http://localhost/health", "date", "timedatectl",
  "sudo needrestart -b", "cat /proc/loadavg", "sudo iotop -o", "history | tail", "sudo crontab -l", "openssl x509 -noout -dates -in /etc/ssl/certs/{host}.pem",
  "sudo du -sh /var/log/journal", "sudo journalctl --vacuum-time=7d", "dig +short {host}", "ping -c 3 10.0.0.1", "w", "last -n 10", "uname -r",
];

export function adminHistory(h: HostBuilder, rng: Rng, a: Account, svc: string, n: number): void {
  const cmds = rng.sample(ADMIN_CMDS, n).map((c) => c.replaceAll("{svc}", svc).replaceAll("{host}", h.spec.hostname));
  h.history(a.uid, a.home, cmds, h.recent(86_400 * 2, 86_400 * 30));
}

export function sshSession(h: HostBuilder, rng: Rng, sshd: number, a: Account, from: string, tty: string, when: number): number {
  const priv = h.proc({ name: "sshd", path: "/usr/sbin/sshd", cmdline: `sshd: ${a.name} [priv]`, parent: sshd, start: when, cgroup: `/user.slice/user-${a.uid}.slice/session-${rng.int(3, 900)}.scope` });
  const child = h.proc({ name: "sshd", path: "/usr/sbin/sshd", cmdline: `sshd: ${a.name}@${tty}`, parent: priv, uid: a.uid, start: when + 1 });
  h.conn(child, from, rng.int(40000, 65000), { localPort: 22 });
  const bash = h.proc({ name: "bash", path: "/usr/bin/bash", cmdline: "-bash", parent: child, uid: a.uid, cwd: a.home, start: when + 1, cgroup: `/user.slice/user-${a.uid}.slice` });
  h.add("logged_in_users", { type: "user", user: a.name, tty, host: from, time: when, pid: priv });
  h.add("last", { username: a.name, tty, pid: priv, type: 7, type_name: "user-process", time: when, host: from });
  return bash;
}

export function buildBaseHost(rng: Rng, fleet: Fleet, role: Role, opts: BaseOpts): Base {
  const d = opts.distro ?? rng.pick(DISTROS);
  const named = hostname(rng, fleet, role);
  const cpus = rng.pick([2, 4, 4, 8, 8, 16]);
  const uptimeDays = rng.int(3, 190);
  const boot = opts.now - uptimeDays * 86_400 - rng.int(0, 80_000);
  const h = new HostBuilder(rng, { hostname: opts.name ?? named.name, ip: opts.ip ?? named.ip, role, env: fleet.env, distro: d, now: opts.now, boot, cpus });

  h.add("os_version", { ...d.os });
  h.add("system_info", {
    hostname: h.spec.hostname, uuid: `ec2${rng.hex(5)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`, cpu_type: "x86_64", cpu_subtype: "143",
    cpu_brand: rng.pick(["Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "AMD EPYC 7R13 Processor", "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz"]),
    cpu_physical_cores: cpus / 2, cpu_logical_cores: cpus, cpu_sockets: 1, cpu_microcode: "0x1", physical_memory: cpus * 4 * 1024 ** 3,
    hardware_vendor: rng.pick(["Amazon EC2", "QEMU", "Google"]), hardware_model: rng.pick(["m6i.xlarge", "Standard PC (i440FX + PIIX, 1996)", "c6a.2xlarge"]),
    hardware_version: "", hardware_serial: "", board_vendor: "", board_model: "", board_version: "", board_serial: "", computer_name: h.spec.hostname, local_hostname: h.spec.hostname,
  });
  h.add("kernel_info", { version: d.kernel, arguments: `BOOT_IMAGE=/boot/vmlinuz-${d.kernel} root=UUID=${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)} ro console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295`, path: `/boot/vmlinuz-${d.kernel}`, device: "" });
  h.add("uptime", { days: uptimeDays, hours: 0, minutes: 0, seconds: 0, total_seconds: opts.now - boot });
  h.add("interface_addresses", { interface: "lo", address: "127.0.0.1", mask: "255.0.0.0", broadcast: "", point_to_point: "127.0.0.1", type: "" });
  h.add("interface_addresses", { interface: rng.pick(["eth0", "ens5", "enp0s3"]), address: h.spec.ip, mask: "255.255.255.0", broadcast: h.spec.ip.replace(/\.\d+$/, ".255"), point_to_point: "", type: "" });
  h.add("etc_hosts", { address: "127.0.0.1", hostnames: "localhost" });
  h.add("etc_hosts", { address: "::1", hostnames: "ip6-localhost ip6-loopback" });
  h.add("etc_hosts", { address: h.spec.ip, hostnames: h.spec.hostname });
  h.add("dns_resolvers", { id: 0, type: "nameserver", address: d.resolved ? "127.0.0.53" : `${fleet.prefix}2`, netmask: "", options: 705 });

  kernelThreads(h, rng);
  const sysd = d.pkg === "deb" ? "/sbin/init" : "/usr/lib/systemd/systemd --switched-root --system --deserialize 31";
  h.proc({ name: "systemd", path: "/usr/lib/systemd/systemd", cmdline: sysd, pid: 1, parent: 0, start: boot, cgroup: "/init.scope" });
  const svc = (name: string, path: string, cmdline: string, unit: string, uid = 0, desc = ""): number => {
    h.unit(unit, desc || name);
    return h.proc({ name, path, cmdline, uid, cgroup: `/system.slice/${unit}` });
  };
  svc("systemd-journal", "/usr/lib/systemd/systemd-journald", "/usr/lib/systemd/systemd-journald", "systemd-journald.service", 0, "Journal Service");
  svc("systemd-udevd", "/usr/lib/systemd/systemd-udevd", "/usr/lib/systemd/systemd-udevd", "systemd-udevd.service", 0, "Rule-based Manager for Device Events and Files");
  const net = d.netDaemon;
  svc(net.name, net.path, net.cmdline, net.unit, net.uid, "Network Service");
  if (d.resolved) {
    const r = svc("systemd-resolve", "/usr/lib/systemd/systemd-resolved", "/usr/lib/systemd/systemd-resolved", "systemd-resolved.service", 991, "Network Name Resolution");
    h.listen(r, 53, { address: "127.0.0.53", proto: "udp" });
    h.listen(r, 53, { address: "127.0.0.53" });
    h.listen(r, 53, { address: "127.0.0.54" });
  }
  const tm = d.timeDaemon;
  const tpid = svc(tm.name, tm.path, tm.cmdline, tm.unit, tm.uid, "Network Time Synchronization");
  if (tm.port) h.listen(tpid, tm.port, { address: "127.0.0.1", proto: "udp" });
  svc("dbus-daemon", "/usr/bin/dbus-daemon", "@dbus-daemon --system --address=systemd: --nofork --nopidfile --systemd-activation --syslog-only", "dbus.service", d.pkg === "deb" ? 100 : 81, "D-Bus System Message Bus");
  svc("systemd-logind", "/usr/lib/systemd/systemd-logind", "/usr/lib/systemd/systemd-logind", "systemd-logind.service", 0, "User Login Management");
  const cron = svc(d.cron.name, d.cron.path, d.cron.cmdline, d.cron.unit, 0, "Regular background program processing daemon");
  if (d.syslog) svc("rsyslogd", "/usr/sbin/rsyslogd", "/usr/sbin/rsyslogd -n -iNONE", "rsyslog.service", d.pkg === "deb" ? 102 : 0, "System Logging Service");
  svc("polkitd", d.pkg === "deb" ? "/usr/lib/polkit-1/polkitd" : "/usr/lib/polkit-1/polkitd", "/usr/lib/polkit-1/polkitd --no-debug", "polkit.service", d.pkg === "deb" ? 990 : 998, "Authorization Manager");
  if (d.pkg === "rpm") svc("auditd", "/usr/sbin/auditd", "/sbin/auditd", "auditd.service", 0, "Security Auditing Service");
  if (d.tag.startsWith("ubuntu")) svc("unattended-upgr", "/usr/bin/python3.12", "/usr/bin/python3 /usr/share/unattended-upgrades/unattended-upgrade-shutdown --wait-for-signal", "unattended-upgrades.service", 0, "Unattended Upgrades Shutdown");
  h.proc({ name: "agetty", path: "/usr/sbin/agetty", cmdline: "/sbin/agetty -o -p -- \\u --keep-baud 115200,57600,38400,9600 - vt220", cgroup: "/system.slice/system-serial\\x2dgetty.slice" });
  const osq = svc("osqueryd", "/opt/osquery/bin/osqueryd", "/opt/osquery/bin/osqueryd --flagfile /etc/osquery/osquery.flags --config_path /etc/osquery/osquery.conf", "osqueryd.service", 0, "The osquery Daemon");
  h.proc({ name: "osqueryd", path: "/opt/osquery/bin/osqueryd", cmdline: "/opt/osquery/bin/osqueryd", parent: osq, cgroup: "/system.slice/osqueryd.service", threads: 14 });

  const sshd = svc("sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups", d.ssh.unit, 0, "OpenBSD Secure Shell server");
  h.listen(sshd, 22);
  h.listen(sshd, 22, { address: "::" });
  for (const [id, desc] of [["systemd-tmpfiles-clean.timer", "Daily Cleanup of Temporary Directories"], ["logrotate.timer", "Daily rotation of log files"], ["fstrim.timer", "Discard unused blocks once a week"]] as const) h.unit(id, desc, { fragment: `/usr/lib/systemd/system/${id}` });
  if (d.pkg === "deb") {
    h.unit("apt-daily.timer", "Daily apt download activities");
    h.unit("apt-daily-upgrade.timer", "Daily apt upgrade and clean activities");
    h.unit("e2scrub_all.timer", "Periodic ext4 Online Metadata Check for All Filesystems");
  } else {
    h.unit("dnf-makecache.timer", "dnf makecache --timer");
    h.unit("firewalld.service", "firewalld - dynamic firewall daemon", { active: "inactive", state: "disabled" });
  }
  h.unit("cloud-init.service", "Cloud-init: Network Stage", { active: "active", sub: "exited" });
  h.unit("cloud-final.service", "Cloud-init: Final Stage", { active: "active", sub: "exited" });
  h.unit("rescue.service", "Rescue Shell", { active: "inactive", state: "static" });

  const { cloud, admins } = accounts(h, rng, d, fleet);
  sudoers(h, d, cloud);
  for (const [path, line] of d.cronLines) {
    const [minute, hour, dom, month, dow, ...rest] = line.split(" ");
    h.add("crontab", { event: "", minute: minute ?? "", hour: hour ?? "", day_of_month: dom ?? "", month: month ?? "", day_of_week: dow ?? "", command: rest.join(" "), path });
  }
  for (const [path, username, groupname, permissions] of d.suid) h.add("suid_bin", { path, username, groupname, permissions });
  for (const [name, version] of d.packages) {
    // A distribution's build of a package is the same on every host: its arch and release are fixed for the packages
    // whose binaries hosts are compared by (replaced-system-binary). The random draws stay, so the rest of the
    // corpus is generated as before.
    const fixed = PEER_PACKAGES.has(name);
    if (d.pkg === "deb") {
      const size = rng.int(100, 9000);
      const drawn = name === "osquery" ? "amd64" : rng.pick(["amd64", "all"]);
      h.add("deb_packages", { name, version, source: "", size, arch: fixed ? "amd64" : drawn, revision: "", status: "install ok installed", maintainer: "Ubuntu Developers <ubuntu-devel-discuss@lists.ubuntu.com>", section: "admin", priority: "optional", admindir: "/var/lib/dpkg" });
    } else {
      const release = `${rng.int(1, 30)}.el9`;
      h.add("rpm_packages", { name, version, release: fixed ? "2.el9" : release, source: `${name}-${version}.src.rpm`, size: rng.int(100_000, 9_000_000), sha1: rng.hex(40), arch: "x86_64", epoch: 0, install_time: boot - rng.int(86_400, 86_400 * 200), vendor: d.os.name ?? "", package_group: "Unspecified" });
    }
  }
  const taken = new Set<string>();
  for (const [name, size, used] of BASE_MODULES) {
    if (rng.chance(0.15) || taken.has(name)) continue;
    taken.add(name);
    h.add("kernel_modules", { name, size, used_by: used, status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
  }
  h.add("mounts", { device: "/dev/nvme0n1p1", device_alias: "/dev/nvme0n1p1", path: "/", type: d.pkg === "deb" ? "ext4" : "xfs", blocks_size: 4096, blocks: 20_000_000, blocks_free: rng.int(4_000_000, 15_000_000), blocks_available: rng.int(3_000_000, 14_000_000), inodes: 5_000_000, inodes_free: 4_000_000, flags: "rw,relatime" });
  h.add("mounts", { device: "tmpfs", device_alias: "tmpfs", path: "/dev/shm", type: "tmpfs", blocks_size: 4096, blocks: 500_000, blocks_free: 500_000, blocks_available: 500_000, inodes: 490_000, inodes_free: 489_990, flags: "rw,nosuid,nodev" });
  h.file("/etc/passwd", { mode: "0644", size: 1800 + rng.int(0, 900) });
  h.file("/etc/shadow", { mode: "0640", gid: 42, size: 1000 + rng.int(0, 500) });
  h.file("/etc/sudoers", { mode: "0440", size: 1800 });
  h.file("/etc/hosts", { mode: "0644", size: 220 + rng.int(0, 200) });
  h.file(`/usr/sbin/sshd`, { mode: "0755", size: 921_288 });
  // The running sshd and sudo are the distribution's builds: one hash per distribution and package version.
  rng.hex(64);
  h.hash("/usr/sbin/sshd", packagedSha256(d, "/usr/sbin/sshd", "openssh-server"));
  rng.hex(64);
  h.hash("/usr/bin/sudo", packagedSha256(d, "/usr/bin/sudo", "sudo"));
  for (const pid of [sshd, cron]) {
    h.add("process_memory_map", { pid, start: `7f${rng.hex(10)}`, end: `7f${rng.hex(10)}`, permissions: "r-xp", offset: 163840, device: "103:01", inode: rng.int(10_000, 900_000), path: `${d.libdir}/libc.so.6`, pseudo: 0 });
  }

  const svcPids = addRole(h, rng, role, d, fleet);
  const mainSvc = Object.keys(svcPids)[0] ?? "nginx";
  for (const a of admins) adminHistory(h, rng, a, mainSvc, rng.int(6, 14));
  adminHistory(h, rng, { name: "root", uid: 0, home: "/root" }, mainSvc, rng.int(3, 7));
  // Earlier admin logins from the bastion, one still connected.
  for (const a of admins) {
    const t = h.recent(3_600, 86_400 * 6);
    h.add("last", { username: a.name, tty: `pts/${rng.int(0, 3)}`, pid: h.allocPid(), type: 7, type_name: "user-process", time: t, host: fleet.bastionIp });
    h.add("last", { username: "", tty: `pts/${rng.int(0, 3)}`, pid: h.allocPid(), type: 8, type_name: "dead-process", time: t + rng.int(300, 9_000), host: "" });
  }
  if (admins[0] && rng.chance(0.6) && role !== "bastion") sshSession(h, rng, sshd, admins[0], fleet.bastionIp, "pts/0", h.recent(600, 7_200));
  return { h, sshd, cron, cloudUser: cloud, admins, svc: svcPids };
}
