// Benign look-alikes from the OS and vendors: DKMS/vendor kernel modules, extra packaged SUID binaries,
// allocator LD_PRELOAD, daemons running after a package upgrade, packet sockets, builds in /tmp,
// logrotate truncation, vendor systemd units, dot-directories that packages create, /etc/hosts pinning.
import { run, withDecoys, type Family } from "./kit.js";
import { service } from "./roles.js";

const MODULES: Array<Array<[string, number, string]>> = [
  [["nvidia", 56_823_808, "nvidia_uvm,nvidia_modeset,"], ["nvidia_uvm", 1_540_096, "-"], ["nvidia_modeset", 1_314_816, "-"], ["nvidia_drm", 77_824, "-"]],
  [["zfs", 4_186_112, "-"], ["spl", 126_976, "zfs,"], ["icp", 331_776, "zfs,"], ["zcommon", 106_496, "zfs,"], ["znvpair", 98_304, "zfs,zcommon,"], ["zavl", 16_384, "zfs,"], ["zzstd", 589_824, "zfs,"], ["zlua", 184_320, "zfs,"], ["zunicode", 335_872, "zfs,"]],
  [["vboxdrv", 696_320, "vboxnetadp,vboxnetflt,"], ["vboxnetflt", 32_768, "-"], ["vboxnetadp", 28_672, "-"]],
  [["wireguard", 118_784, "-"], ["curve25519_x86_64", 36_864, "wireguard,"], ["libchacha20poly1305", 16_384, "wireguard,"], ["ip6_udp_tunnel", 16_384, "wireguard,"], ["udp_tunnel", 28_672, "wireguard,"]],
  [["falcon_lsm_serviceable", 1_290_240, "-"], ["falcon_nf_netcontain", 24_576, "-"], ["falcon_kal", 45_056, "falcon_lsm_serviceable,"], ["falcon_lsm_pinned_17706", 81_920, "-"]],
  [["falco", 761_856, "-"]], [["sysdig_probe", 704_512, "-"]], [["drbd", 516_096, "-"], ["lru_cache", 16_384, "drbd,"]], [["vmw_vsock_vmci_transport", 32_768, "-"], ["vmw_vmci", 86_016, "vmw_vsock_vmci_transport,"], ["vsock", 45_056, "vmw_vsock_vmci_transport,"]],
];

const dkms: Family = {
  name: "vendor-kernel-modules", kind: "benign", attack: [], count: 5,
  sources: ["NVIDIA driver installation guide (DKMS)", "OpenZFS docs: Getting Started on Ubuntu/Debian (zfs-dkms)", "CrowdStrike Falcon sensor for Linux: kernel modules", "Falco docs: Kernel module driver", "WireGuard install docs"],
  q: {
    direct: ["any unexpected kernel modules on {host}?", "are there rootkits on the {role}?", "any LKM rootkit signs in {env}?", "which out-of-tree kernel modules are loaded on {host}?"],
    paraphrase: ["could something be hiding in the kernel of {host}?", "is the operating system core on {host} tampered with?", "anything unusual loaded into the kernel on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const hosts = Array.from({ length: rng.int(1, 3) }, () => ctx.base(rng.pick(["k8s", "db", "app", "monitoring", "bastion"] as const)));
    for (const b of hosts) {
      for (const set of rng.sample(MODULES, rng.int(1, 2))) {
        for (const [name, size, used] of set) b.h.add("kernel_modules", { name, size, used_by: used, status: "Live", address: `0xffffffffc0${rng.hex(6)}` });
        const head = set[0]?.[0] ?? "";
        if (head.startsWith("falcon")) service(b.h, { unit: "falcon-sensor.service", desc: "CrowdStrike Falcon Sensor", name: "falcon-sensor", path: "/opt/CrowdStrike/falcon-sensor", cmdline: "/opt/CrowdStrike/falcon-sensor", threads: 40 });
        if (head === "falco") service(b.h, { unit: "falco-kmod.service", desc: "Falco: Container Native Runtime Security with kmod", name: "falco", path: "/usr/bin/falco", cmdline: "/usr/bin/falco --pidfile=/var/run/falco.pid" });
        if (head === "nvidia") service(b.h, { unit: "nvidia-persistenced.service", desc: "NVIDIA Persistence Daemon", name: "nvidia-persiste", path: "/usr/bin/nvidia-persistenced", cmdline: "/usr/bin/nvidia-persistenced --user nvidia-persistenced --no-persistence-mode --verbose", uid: 125 });
        if (head === "zfs") service(b.h, { unit: "zfs-zed.service", desc: "ZFS Event Daemon (zed)", name: "zed", path: "/usr/sbin/zed", cmdline: "/usr/sbin/zed -F" });
      }
    }
    return { hosts: hosts.map((b) => ({ b, compromised: false })) };
  },
};

const EXTRA_SUID: Array<[string, string, string, string]> = [
  ["/usr/bin/at", "daemon", "daemon", "SG"], ["/usr/bin/fusermount", "root", "root", "S"], ["/usr/bin/ntfs-3g", "root", "root", "S"], ["/usr/sbin/mount.cifs", "root", "root", "S"],
  ["/usr/bin/staprun", "root", "stapusr", "S"], ["/usr/bin/bwrap", "root", "root", "S"], ["/usr/sbin/mount.nfs", "root", "root", "S"], ["/usr/bin/traceroute6.iputils", "root", "root", "S"],
  ["/usr/bin/wall", "root", "tty", "G"], ["/usr/bin/bsd-write", "root", "tty", "G"], ["/usr/sbin/postdrop", "root", "postdrop", "G"], ["/usr/sbin/postqueue", "root", "postdrop", "G"],
  ["/usr/bin/dotlockfile", "root", "mail", "G"], ["/usr/sbin/exim4", "root", "root", "S"], ["/usr/bin/screen", "root", "utmp", "G"], ["/usr/bin/mlocate", "root", "mlocate", "G"],
];

const pkgSuid: Family = {
  name: "packaged-suid", kind: "benign", attack: [], count: 5,
  sources: ["Debian package contents (at, ntfs-3g, cifs-utils, postfix, nfs-common)", "Ubuntu security: SUID binaries shipped in main", "GTFOBins (for contrast: which SUID binaries are abusable)"],
  q: {
    direct: ["any rogue SUID binaries on {host}?", "list unexpected setuid files in {env}", "any SUID backdoors on the {role}?"],
    paraphrase: ["is there a file on {host} that lets any user become root?", "can a normal user on the {role} run something that makes them admin?", "anything on {host} that hands out root?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "db", "app", "bastion"] as const));
    for (const [path, u, g, p] of rng.sample(EXTRA_SUID, rng.int(3, 6))) b.h.add("suid_bin", { path, username: u, groupname: g, permissions: p });
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const preloadBenign: Family = {
  name: "allocator-preload", kind: "benign", attack: [], count: 5,
  sources: ["jemalloc wiki: Getting Started (LD_PRELOAD)", "Redis/PostgreSQL/Ruby tuning guides using libjemalloc LD_PRELOAD", "glibc: libSegFault.so (catchsegv)", "tcmalloc docs: gperftools LD_PRELOAD"],
  q: {
    direct: ["any processes running with LD_PRELOAD on {host}?", "check process environments in {env} for library injection", "is /etc/ld.so.preload or LD_PRELOAD used on the {role}?"],
    paraphrase: ["is a program on {host} being made to load extra code?", "is anything on {host} tampering with how programs start?", "are any services on the {role} carrying something extra?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["app", "cache", "db", "web"] as const));
    const h = b.h;
    const lib = rng.pick([`${h.spec.distro.libdir}/libjemalloc.so.2`, `${h.spec.distro.libdir}/libtcmalloc_minimal.so.4`, `${h.spec.distro.libdir}/libSegFault.so`]);
    const target = rng.pick(Object.values(b.svc));
    h.add("process_envs", { pid: target, key: "LD_PRELOAD", value: lib });
    h.add("process_envs", { pid: target, key: "LANG", value: "C.UTF-8" });
    h.add("process_memory_map", { pid: target, start: `7f${rng.hex(10)}`, end: `7f${rng.hex(10)}`, permissions: "r-xp", offset: 16384, device: "103:01", inode: rng.int(10_000, 900_000), path: lib, pseudo: 0 });
    h.file(lib, { mode: "0644", size: rng.int(200_000, 800_000) });
    if (h.spec.distro.pkg === "deb") h.add("deb_packages", { name: lib.includes("jemalloc") ? "libjemalloc2" : lib.includes("tcmalloc") ? "libtcmalloc-minimal4t64" : "glibc-tools", version: "5.3.0-2build1", source: "", size: 700, arch: "amd64", revision: "", status: "install ok installed", maintainer: "Ubuntu Developers <ubuntu-devel-discuss@lists.ubuntu.com>", section: "libs", priority: "optional", admindir: "/var/lib/dpkg" });
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const upgraded: Family = {
  name: "upgraded-binary", kind: "benign", attack: [], count: 5,
  sources: ["needrestart docs: restarting services after library/binary upgrades", "osquery docs: processes.on_disk", "Debian unattended-upgrades documentation"],
  q: {
    direct: ["any processes running from deleted binaries on {host}?", "is anything fileless running in {env}?", "any BPFDoor-style deleted executables on the {role}?"],
    paraphrase: ["is something on {host} running whose program file is gone?", "is a program on {host} hiding by deleting itself?", "anything odd about running programs on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "db", "app", "cache"] as const));
    const h = b.h;
    const pids = [b.sshd, ...Object.values(b.svc)];
    for (const pid of rng.sample(pids, rng.int(1, 2))) {
      const r = h.rows("processes").find((p) => p.pid === String(pid));
      if (r) r.on_disk = "0";
    }
    const hist = ["sudo apt update", "sudo apt upgrade -y", "sudo needrestart -r l"];
    const a = b.admins[0] ?? b.cloudUser;
    h.history(a.uid, a.home, h.spec.distro.pkg === "deb" ? hist : ["sudo dnf upgrade -y", "sudo needs-restarting -s"], h.recent(3_600, 86_400));
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const packetBenign: Family = {
  name: "packet-sockets", kind: "benign", attack: [], count: 5,
  sources: ["tcpdump(8) man page", "ISC dhclient: raw packet sockets (LPF)", "keepalived docs: VRRP", "Suricata docs: AF_PACKET capture"],
  q: {
    direct: ["any packet sniffers or raw sockets on {host}?", "any BPFDoor-like AF_PACKET listeners in {env}?", "is anything capturing traffic on the {role}?"],
    paraphrase: ["is anything on {host} watching all network traffic?", "is someone listening in on the network from {host}?", "is there a hidden listener on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "db", "cache", "bastion", "monitoring"] as const));
    const h = b.h;
    const kind = rng.int(0, 3);
    if (kind === 0) {
      const a = b.admins[0] ?? b.cloudUser;
      const pid = run(h, { name: "tcpdump", path: "/usr/bin/tcpdump", cmdline: `tcpdump -i any -nn -w /tmp/capture-${rng.int(1, 30)}.pcap port 5432`, uid: 0, ageMin: 60, ageMax: 1_800 });
      h.packetSocket(pid, 3);
      h.history(a.uid, a.home, ["sudo tcpdump -i any -nn -w /tmp/capture.pcap port 5432"], h.recent(60, 1_800));
    } else if (kind === 1) {
      const pid = service(h, { unit: "keepalived.service", desc: "Keepalive Daemon (LVS and VRRP)", name: "keepalived", path: "/usr/sbin/keepalived", cmdline: "/usr/sbin/keepalived --dont-fork" });
      h.packetSocket(pid, 3);
    } else if (kind === 2) {
      const pid = service(h, { unit: "suricata.service", desc: "Suricata IDS/IDP daemon", name: "Suricata-Main", path: "/usr/bin/suricata", cmdline: "/usr/bin/suricata -c /etc/suricata/suricata.yaml --af-packet --pidfile /run/suricata.pid", threads: 12 });
      h.packetSocket(pid, 3);
      h.packetSocket(pid, 3);
    } else {
      const pid = run(h, { name: "dhclient", path: "/usr/sbin/dhclient", cmdline: "/sbin/dhclient -4 -v -i -pf /run/dhclient.eth0.pid -lf /var/lib/dhcp/dhclient.eth0.leases -I -df /var/lib/dhcp/dhclient6.eth0.leases eth0", ageMin: 86_400, ageMax: 86_400 * 30 });
      h.packetSocket(pid, 3);
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const devTmp: Family = {
  name: "dev-builds-in-tmp", kind: "benign", attack: [], count: 5,
  sources: ["Go docs: go build/go run use $TMPDIR (go-build*)", "pip docs: build isolation in /tmp/pip-*", "Rust cargo docs: build scripts", "Sigma proc_creation_lnx_susp_execution_tmp_folder (false positives section)"],
  q: {
    direct: ["anything executing out of /tmp on {host}?", "any binaries running from world-writable directories in {env}?", "any malware in /tmp on the {role}?"],
    paraphrase: ["is something running from a temporary folder on {host}?", "did someone drop and run a program in scratch space on {host}?", "anything odd running on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["ci-runner", "app", "bastion"] as const));
    const h = b.h;
    const a = b.admins[0] ?? b.cloudUser;
    const kind = rng.int(0, 2);
    if (kind === 0) {
      const dir = `/tmp/go-build${rng.int(100_000_000, 999_999_999)}/b001/exe`;
      run(h, { name: "server", path: `${dir}/server`, cmdline: `${dir}/server --config ./dev.yaml`, uid: a.uid, cwd: `${a.home}/src/orders`, ageMin: 60, ageMax: 3_000 });
      h.history(a.uid, a.home, ["cd ~/src/orders", "go run ./cmd/server --config ./dev.yaml"], h.recent(60, 3_000));
    } else if (kind === 1) {
      const dir = `/tmp/pip-build-env-${rng.alnum(8)}`;
      run(h, { name: "python3", path: "/usr/bin/python3.12", cmdline: `/usr/bin/python3 ${dir}/overlay/lib/python3.12/site-packages/pip/_vendor/pyproject_hooks/_in_process/_in_process.py build_wheel /tmp/tmp${rng.alnum(8)}`, uid: a.uid, cwd: `/tmp/pip-install-${rng.alnum(8)}/psycopg2_${rng.hex(12)}`, ageMin: 10, ageMax: 300 });
    } else {
      const dir = `/tmp/cargo-install${rng.alnum(6)}`;
      run(h, { name: "build-script-bu", path: `${dir}/release/build/ring-${rng.hex(16)}/build-script-build`, cmdline: `${dir}/release/build/ring-${rng.hex(16)}/build-script-build`, uid: a.uid, cwd: `${a.home}/.cargo/registry/src/index.crates.io-6f17d22bba15001f/ring-0.17.8`, ageMin: 10, ageMax: 300 });
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const logrotate: Family = {
  name: "logrotate-truncate", kind: "benign", attack: [], count: 5,
  sources: ["logrotate(8) man page: copytruncate", "Debian rsyslog package: /etc/logrotate.d/rsyslog", "systemd journald.conf: SystemMaxUse / vacuum"],
  q: {
    direct: ["were any logs wiped on {host}?", "did someone truncate auth logs in {env}?", "any log tampering on the {role}?"],
    paraphrase: ["are attackers covering their tracks on {host}?", "why are the logs on {host} nearly empty?", "is evidence missing from the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "bastion"] as const));
    const h = b.h;
    const auth = h.spec.distro.pkg === "deb" ? "/var/log/auth.log" : "/var/log/secure";
    const t = Math.floor(h.now / 86_400) * 86_400 - 86_400 + 6 * 3600 + 25 * 60;
    h.file(auth, { mode: "0640", uid: 104, gid: 4, size: rng.int(200, 4_000), mtime: h.now - rng.int(10, 600) });
    h.file(`${auth}.1`, { mode: "0640", uid: 104, gid: 4, size: rng.int(90_000, 900_000), mtime: t });
    h.file(`${auth}.2.gz`, { mode: "0640", uid: 104, gid: 4, size: rng.int(9_000, 90_000), mtime: t - 7 * 86_400 });
    const a = b.admins[0] ?? b.cloudUser;
    h.history(a.uid, a.home, ["sudo journalctl --disk-usage", "sudo journalctl --vacuum-size=500M", "sudo logrotate -f /etc/logrotate.d/nginx"], h.recent(3_600, 86_400 * 3));
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const VENDOR_UNITS: Array<[string, string, string, string]> = [
  ["node_exporter.service", "Prometheus Node Exporter", "/usr/local/bin/node_exporter", "node_exporter"], ["vector.service", "Vector", "/usr/bin/vector", "vector"],
  ["teleport.service", "Teleport Service", "/usr/local/bin/teleport start --config /etc/teleport.yaml --pid-file=/run/teleport.pid", "teleport"], ["amazon-ssm-agent.service", "amazon-ssm-agent", "/snap/amazon-ssm-agent/9565/amazon-ssm-agent", "amazon-ssm-agen"],
  ["consul.service", "Consul", "/usr/bin/consul agent -config-dir=/etc/consul.d/", "consul"], ["tailscaled.service", "Tailscale node agent", "/usr/sbin/tailscaled --state=/var/lib/tailscale/tailscaled.state --socket=/run/tailscale/tailscaled.sock --port=41641", "tailscaled"],
];

const vendorUnits: Family = {
  name: "vendor-systemd-units", kind: "benign", attack: [], count: 5,
  sources: ["prometheus/node_exporter: examples/systemd", "Vector docs: install with systemd", "Teleport docs: systemd unit", "Tailscale docs: Linux install"],
  q: {
    direct: ["any malicious systemd services on {host}?", "check for new systemd units in /etc/systemd/system in {env}", "any rogue service units on the {role}?"],
    paraphrase: ["did someone install something that starts at boot on {host}?", "is there a service on the {role} that looks out of place?", "what would come back after a reboot of {host}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "bastion", "monitoring"] as const));
    const h = b.h;
    for (const [unit, desc, exec, name] of rng.sample(VENDOR_UNITS, rng.int(1, 3))) {
      const path = `/etc/systemd/system/${unit}`;
      h.unit(unit, desc, { fragment: path });
      h.augeasUnit(path, [["Unit", `Description=${desc}`], ["Service", `ExecStart=${exec}`], ["Service", "Restart=on-failure"], ["Install", "WantedBy=multi-user.target"]]);
      const pid = h.proc({ name, path: exec.split(" ")[0] ?? "", cmdline: exec, cgroup: `/system.slice/${unit}` });
      if (name === "node_exporter") h.listen(pid, 9100, { address: "::" });
      if (name === "tailscaled") h.listen(pid, 41641, { proto: "udp" });
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const DOTDIRS = ["/usr/lib/.build-id", "/etc/.java", "/tmp/.X11-unix", "/tmp/.ICE-unix", "/tmp/.font-unix", "/etc/.pwd.lock", "/usr/lib/jvm/.java-1.17.0-openjdk-amd64.jinfo", "/var/lib/.pip", "/etc/skel/.bashrc", "/var/cache/.security.db"];

const dotDirs: Family = {
  name: "package-dotfiles", kind: "benign", attack: [], count: 5,
  sources: ["Fedora/RHEL packaging: /usr/lib/.build-id", "systemd tmpfiles.d x11.conf (/tmp/.X11-unix, /tmp/.ICE-unix)", "shadow-utils: /etc/.pwd.lock", "Debian java-common: .jinfo files"],
  q: {
    direct: ["any hidden directories in system paths on {host}?", "check for dot-directories under /usr/lib, /etc and /tmp in {env}", "are there hidden malware folders on the {role}?"],
    paraphrase: ["is someone stashing files where we wouldn't look on {host}?", "are there tucked-away folders on {host}?", "anything hidden on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "monitoring"] as const));
    for (const p of rng.sample(DOTDIRS, rng.int(3, 5))) b.h.file(p, { type: p.endsWith("lock") || p.endsWith("jinfo") || p.endsWith("rc") || p.endsWith(".db") ? "regular" : "directory", mode: p.startsWith("/tmp") ? "1777" : "0755" });
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const hostsPin: Family = {
  name: "hosts-pinning", kind: "benign", attack: [], count: 5,
  sources: ["hosts(5) man page", "Kubernetes docs: Adding entries to Pod /etc/hosts with HostAliases", "Debian Reference: hostname resolution"],
  q: {
    direct: ["has /etc/hosts been tampered with on {host}?", "any hosts-file redirection in {env}?", "check the {role} for sinkholed domains"],
    paraphrase: ["did anyone mess with name lookups on {host}?", "could {host} be tricked into talking to the wrong server?", "is {host} being prevented from reaching anything?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "ci-runner"] as const));
    const p = ctx.fleet.prefix;
    const entries: Array<[string, string]> = [[`${p}${rng.int(2, 9)}`, "db-primary.internal db-primary"], [`${p}${rng.int(10, 99)}`, "vault.internal"], [`${p}${rng.int(10, 99)}`, "artifacts.internal nexus"], ["0.0.0.0", "telemetry.example-cms.io"], ["ff02::1", "ip6-allnodes"], ["ff02::2", "ip6-allrouters"]];
    for (const [address, hostnames] of rng.sample(entries, rng.int(2, 4))) b.h.add("etc_hosts", { address, hostnames });
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

export const BENIGN_SYSTEM_FAMILIES: Family[] = [dkms, pkgSuid, preloadBenign, upgraded, packetBenign, devTmp, logrotate, vendorUnits, dotDirs, hostsPin];
