// Distribution profiles: what a freshly provisioned cloud server of each distribution looks like to osquery.
// Facts from the distributions' base images (Debian/Ubuntu package contents, RHEL/Rocky/Amazon Linux defaults).

export interface Distro {
  tag: string;
  pkg: "deb" | "rpm";
  os: Record<string, string>;
  kernel: string;
  /** The account cloud-init creates (Ubuntu: ubuntu, Debian: admin, Amazon Linux: ec2-user...). */
  cloudUser: string;
  cron: { name: string; path: string; cmdline: string; unit: string };
  ssh: { unit: string; keysign: string; sftp: string };
  syslog: boolean;
  netDaemon: { name: string; path: string; cmdline: string; unit: string; uid: number };
  timeDaemon: { name: string; path: string; cmdline: string; unit: string; uid: number; port?: number };
  resolved: boolean;
  sudoGroup: string;
  /** [username, uid, gid, description, home, shell] */
  systemUsers: Array<[string, number, number, string, string, string]>;
  groups: Array<[string, number]>;
  suid: Array<[string, string, string, string]>;
  packages: Array<[string, string]>;
  cronLines: Array<[string, string]>;
  libdir: string;
}

const NOLOGIN_DEB = "/usr/sbin/nologin";
const debUsers = (extra: Array<[string, number, number, string, string, string]>): Array<[string, number, number, string, string, string]> => [
  ["root", 0, 0, "root", "/root", "/bin/bash"],
  ["daemon", 1, 1, "daemon", "/usr/sbin", NOLOGIN_DEB],
  ["bin", 2, 2, "bin", "/bin", NOLOGIN_DEB],
  ["sys", 3, 3, "sys", "/dev", NOLOGIN_DEB],
  ["sync", 4, 65534, "sync", "/bin", "/bin/sync"],
  ["games", 5, 60, "games", "/usr/games", NOLOGIN_DEB],
  ["man", 6, 12, "man", "/var/cache/man", NOLOGIN_DEB],
  ["lp", 7, 7, "lp", "/var/spool/lpd", NOLOGIN_DEB],
  ["mail", 8, 8, "mail", "/var/mail", NOLOGIN_DEB],
  ["news", 9, 9, "news", "/var/spool/news", NOLOGIN_DEB],
  ["uucp", 10, 10, "uucp", "/var/spool/uucp", NOLOGIN_DEB],
  ["proxy", 13, 13, "proxy", "/bin", NOLOGIN_DEB],
  ["www-data", 33, 33, "www-data", "/var/www", NOLOGIN_DEB],
  ["backup", 34, 34, "backup", "/var/backups", NOLOGIN_DEB],
  ["list", 38, 38, "Mailing List Manager", "/var/list", NOLOGIN_DEB],
  ["irc", 39, 39, "ircd", "/run/ircd", NOLOGIN_DEB],
  ["nobody", 65534, 65534, "nobody", "/nonexistent", NOLOGIN_DEB],
  ["_apt", 42, 65534, "", "/nonexistent", NOLOGIN_DEB],
  ...extra,
];

const debGroups: Array<[string, number]> = [
  ["root", 0], ["daemon", 1], ["bin", 2], ["sys", 3], ["adm", 4], ["tty", 5], ["disk", 6], ["lp", 7], ["mail", 8], ["news", 9],
  ["uucp", 10], ["man", 12], ["proxy", 13], ["kmem", 15], ["dialout", 20], ["cdrom", 24], ["sudo", 27], ["audio", 29], ["www-data", 33],
  ["backup", 34], ["operator", 37], ["list", 38], ["irc", 39], ["src", 40], ["shadow", 42], ["utmp", 43], ["video", 44], ["plugdev", 46],
  ["staff", 50], ["games", 60], ["users", 100], ["nogroup", 65534], ["systemd-journal", 101], ["crontab", 104], ["_ssh", 105], ["netdev", 106],
];

const debSuid: Array<[string, string, string, string]> = [
  ["/usr/bin/passwd", "root", "root", "S"], ["/usr/bin/chsh", "root", "root", "S"], ["/usr/bin/chfn", "root", "root", "S"],
  ["/usr/bin/gpasswd", "root", "root", "S"], ["/usr/bin/newgrp", "root", "root", "S"], ["/usr/bin/su", "root", "root", "S"],
  ["/usr/bin/mount", "root", "root", "S"], ["/usr/bin/umount", "root", "root", "S"], ["/usr/bin/sudo", "root", "root", "S"],
  ["/usr/bin/fusermount3", "root", "root", "S"], ["/usr/bin/chage", "root", "shadow", "G"], ["/usr/bin/expiry", "root", "shadow", "G"],
  ["/usr/bin/crontab", "root", "crontab", "G"], ["/usr/sbin/unix_chkpwd", "root", "shadow", "G"],
];

const rhUsers: Array<[string, number, number, string, string, string]> = [
  ["root", 0, 0, "root", "/root", "/bin/bash"],
  ["bin", 1, 1, "bin", "/bin", "/sbin/nologin"],
  ["daemon", 2, 2, "daemon", "/sbin", "/sbin/nologin"],
  ["adm", 3, 4, "adm", "/var/adm", "/sbin/nologin"],
  ["lp", 4, 7, "lp", "/var/spool/lpd", "/sbin/nologin"],
  ["sync", 5, 0, "sync", "/sbin", "/bin/sync"],
  ["shutdown", 6, 0, "shutdown", "/sbin", "/sbin/shutdown"],
  ["halt", 7, 0, "halt", "/sbin", "/sbin/halt"],
  ["mail", 8, 12, "mail", "/var/spool/mail", "/sbin/nologin"],
  ["operator", 11, 0, "operator", "/root", "/sbin/nologin"],
  ["games", 12, 100, "games", "/usr/games", "/sbin/nologin"],
  ["ftp", 14, 50, "FTP User", "/var/ftp", "/sbin/nologin"],
  ["nobody", 65534, 65534, "Kernel Overflow User", "/", "/sbin/nologin"],
  ["systemd-coredump", 999, 997, "systemd Core Dumper", "/", "/sbin/nologin"],
  ["dbus", 81, 81, "System message bus", "/", "/sbin/nologin"],
  ["polkitd", 998, 996, "User for polkitd", "/", "/sbin/nologin"],
  ["tss", 59, 59, "Account used for TPM access", "/", "/sbin/nologin"],
  ["sshd", 74, 74, "Privilege-separated SSH", "/usr/share/empty.sshd", "/sbin/nologin"],
  ["chrony", 997, 995, "chrony system user", "/var/lib/chrony", "/sbin/nologin"],
];

const rhGroups: Array<[string, number]> = [
  ["root", 0], ["bin", 1], ["daemon", 2], ["sys", 3], ["adm", 4], ["tty", 5], ["disk", 6], ["lp", 7], ["mem", 8], ["kmem", 9],
  ["wheel", 10], ["cdrom", 11], ["mail", 12], ["man", 15], ["dialout", 18], ["floppy", 19], ["games", 20], ["tape", 33], ["video", 39],
  ["ftp", 50], ["lock", 54], ["audio", 63], ["users", 100], ["nobody", 65534], ["utmp", 22], ["utempter", 35], ["input", 999],
  ["systemd-journal", 190], ["dbus", 81], ["polkitd", 996], ["ssh_keys", 101], ["sshd", 74], ["chrony", 995], ["tss", 59],
];

const rhSuid: Array<[string, string, string, string]> = [
  ["/usr/bin/chage", "root", "root", "S"], ["/usr/bin/gpasswd", "root", "root", "S"], ["/usr/bin/newgrp", "root", "root", "S"],
  ["/usr/bin/mount", "root", "root", "S"], ["/usr/bin/su", "root", "root", "S"], ["/usr/bin/umount", "root", "root", "S"],
  ["/usr/bin/crontab", "root", "root", "S"], ["/usr/bin/passwd", "root", "root", "S"], ["/usr/bin/sudo", "root", "root", "S"],
  ["/usr/bin/pkexec", "root", "root", "S"], ["/usr/bin/write", "root", "tty", "G"], ["/usr/sbin/pam_timestamp_check", "root", "root", "S"],
  ["/usr/sbin/unix_chkpwd", "root", "root", "S"], ["/usr/sbin/grub2-set-bootflag", "root", "root", "S"], ["/usr/sbin/userhelper", "root", "root", "S"],
];

const debPkgs: Array<[string, string]> = [
  ["adduser", "3.137ubuntu1"], ["apt", "2.7.14build2"], ["base-files", "13ubuntu10.1"], ["bash", "5.2.21-2ubuntu4"], ["coreutils", "9.4-3ubuntu6"],
  ["cron", "3.0pl1-184ubuntu2"], ["curl", "8.5.0-2ubuntu10.4"], ["dbus", "1.14.10-4ubuntu4.1"], ["e2fsprogs", "1.47.0-2.4~exp1ubuntu4.1"],
  ["libc6", "2.39-0ubuntu8.3"], ["login", "1:4.13+dfsg1-4ubuntu3.2"], ["logrotate", "3.21.0-2build1"], ["mount", "2.39.3-9ubuntu6.1"],
  ["openssh-server", "1:9.6p1-3ubuntu13.5"], ["openssl", "3.0.13-0ubuntu3.4"], ["passwd", "1:4.13+dfsg1-4ubuntu3.2"], ["procps", "2:4.0.4-4ubuntu3.2"],
  ["rsyslog", "8.2312.0-3ubuntu9"], ["sudo", "1.9.15p5-3ubuntu5"], ["systemd", "255.4-1ubuntu8.4"], ["tar", "1.35+dfsg-3build1"],
  ["util-linux", "2.39.3-9ubuntu6.1"], ["wget", "1.21.4-1ubuntu4.1"], ["cloud-init", "24.3.1-0ubuntu0~24.04.2"], ["unattended-upgrades", "2.9.1+nmu4ubuntu1"],
  ["osquery", "5.13.1-1.linux"], ["vim", "2:9.1.0016-1ubuntu7.3"], ["less", "590-2ubuntu2.1"], ["iproute2", "6.1.0-1ubuntu6"], ["polkitd", "124-2ubuntu1"],
];

const rpmPkgs: Array<[string, string]> = [
  ["bash", "5.1.8"], ["coreutils", "8.32"], ["cronie", "1.5.7"], ["curl", "7.76.1"], ["dbus", "1.12.20"], ["dnf", "4.14.0"], ["glibc", "2.34"],
  ["kernel", "5.14.0"], ["logrotate", "3.18.0"], ["openssh-server", "8.7p1"], ["openssl", "3.0.7"], ["passwd", "0.80"], ["procps-ng", "3.3.17"],
  ["rsyslog", "8.2310.0"], ["sudo", "1.9.5p2"], ["systemd", "252"], ["tar", "1.34"], ["util-linux", "2.37.4"], ["chrony", "4.5"],
  ["cloud-init", "23.4"], ["osquery", "5.13.1"], ["vim-minimal", "8.2.2637"], ["less", "590"], ["iproute", "6.2.0"], ["polkit", "0.117"],
  ["audit", "3.1.2"], ["firewalld", "1.3.4"], ["policycoreutils", "3.6"], ["selinux-policy-targeted", "38.1.35"], ["NetworkManager", "1.46.0"],
];

const debCron: Array<[string, string]> = [
  ["/etc/crontab", "17 * * * * root cd / && run-parts --report /etc/cron.hourly"],
  ["/etc/crontab", "25 6 * * * root test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }"],
  ["/etc/crontab", "47 6 * * 7 root test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.weekly; }"],
  ["/etc/crontab", "52 6 1 * * root test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.monthly; }"],
  ["/etc/cron.d/e2scrub_all", "30 3 * * 0 root test -e /run/systemd/system || SERVICE_MODE=1 /usr/lib/x86_64-linux-gnu/e2fsprogs/e2scrub_all_cron"],
  ["/etc/cron.d/e2scrub_all", "10 3 * * * root test -e /run/systemd/system || SERVICE_MODE=1 /sbin/e2scrub_all -A -r"],
];

const rhCron: Array<[string, string]> = [
  ["/etc/cron.d/0hourly", "01 * * * * root run-parts /etc/cron.hourly"],
  ["/etc/cron.d/raid-check", "0 1 * * Sun root [ -x /usr/sbin/raid-check ] && /usr/sbin/raid-check"],
];

const debBase = {
  pkg: "deb" as const,
  cron: { name: "cron", path: "/usr/sbin/cron", cmdline: "/usr/sbin/cron -f -P", unit: "cron.service" },
  ssh: { unit: "ssh.service", keysign: "/usr/lib/openssh/ssh-keysign", sftp: "/usr/lib/openssh/sftp-server" },
  syslog: true,
  sudoGroup: "sudo",
  groups: debGroups,
  packages: debPkgs,
  cronLines: debCron,
  libdir: "/usr/lib/x86_64-linux-gnu",
};

const rhBase = {
  pkg: "rpm" as const,
  cron: { name: "crond", path: "/usr/sbin/crond", cmdline: "/usr/sbin/crond -n", unit: "crond.service" },
  ssh: { unit: "sshd.service", keysign: "/usr/libexec/openssh/ssh-keysign", sftp: "/usr/libexec/openssh/sftp-server" },
  syslog: true,
  sudoGroup: "wheel",
  systemUsers: rhUsers,
  groups: rhGroups,
  suid: rhSuid,
  packages: rpmPkgs,
  cronLines: rhCron,
  resolved: false,
  netDaemon: { name: "NetworkManager", path: "/usr/sbin/NetworkManager", cmdline: "/usr/sbin/NetworkManager --no-daemon", unit: "NetworkManager.service", uid: 0 },
  timeDaemon: { name: "chronyd", path: "/usr/sbin/chronyd", cmdline: "/usr/sbin/chronyd -F 2", unit: "chronyd.service", uid: 997, port: 323 },
  libdir: "/usr/lib64",
};

const ubuntuExtra: Array<[string, number, number, string, string, string]> = [
  ["systemd-network", 998, 998, "systemd Network Management", "/", NOLOGIN_DEB],
  ["systemd-timesync", 996, 996, "systemd Time Synchronization", "/", NOLOGIN_DEB],
  ["messagebus", 100, 101, "", "/nonexistent", NOLOGIN_DEB],
  ["systemd-resolve", 991, 991, "systemd Resolver", "/", NOLOGIN_DEB],
  ["syslog", 102, 102, "", "/nonexistent", NOLOGIN_DEB],
  ["polkitd", 990, 990, "User for polkitd", "/", NOLOGIN_DEB],
  ["sshd", 105, 65534, "", "/run/sshd", NOLOGIN_DEB],
];

const ubuntuNet = { name: "systemd-networkd", path: "/usr/lib/systemd/systemd-networkd", cmdline: "/usr/lib/systemd/systemd-networkd", unit: "systemd-networkd.service", uid: 998 };
const ubuntuTime = { name: "systemd-timesyncd", path: "/usr/lib/systemd/systemd-timesyncd", cmdline: "/usr/lib/systemd/systemd-timesyncd", unit: "systemd-timesyncd.service", uid: 996 };
const ubuntuSuid: Array<[string, string, string, string]> = [
  ...debSuid, ["/usr/bin/pkexec", "root", "root", "S"], ["/usr/bin/ssh-agent", "root", "_ssh", "G"], ["/usr/sbin/pam_extrausers_chkpwd", "root", "shadow", "G"],
];

export const DISTROS: Distro[] = [
  {
    ...debBase, tag: "ubuntu-24.04", kernel: "6.8.0-45-generic", cloudUser: "ubuntu",
    os: { name: "Ubuntu", version: "24.04.1 LTS (Noble Numbat)", major: "24", minor: "4", patch: "0", build: "", platform: "ubuntu", platform_like: "debian", codename: "noble", arch: "x86_64" },
    netDaemon: ubuntuNet, timeDaemon: ubuntuTime, resolved: true, systemUsers: debUsers(ubuntuExtra), suid: ubuntuSuid,
  },
  {
    ...debBase, tag: "ubuntu-22.04", kernel: "5.15.0-119-generic", cloudUser: "ubuntu",
    os: { name: "Ubuntu", version: "22.04.4 LTS (Jammy Jellyfish)", major: "22", minor: "4", patch: "0", build: "", platform: "ubuntu", platform_like: "debian", codename: "jammy", arch: "x86_64" },
    netDaemon: ubuntuNet, timeDaemon: ubuntuTime, resolved: true, systemUsers: debUsers(ubuntuExtra), suid: ubuntuSuid,
  },
  {
    ...debBase, tag: "debian-12", kernel: "6.1.0-25-cloud-amd64", cloudUser: "admin",
    os: { name: "Debian GNU/Linux", version: "12 (bookworm)", major: "12", minor: "0", patch: "0", build: "", platform: "debian", platform_like: "", codename: "bookworm", arch: "x86_64" },
    netDaemon: { name: "dhclient", path: "/usr/sbin/dhclient", cmdline: "/sbin/dhclient -4 -v -i -pf /run/dhclient.eth0.pid -lf /var/lib/dhcp/dhclient.eth0.leases -I -df /var/lib/dhcp/dhclient6.eth0.leases eth0", unit: "networking.service", uid: 0 },
    timeDaemon: { name: "chronyd", path: "/usr/sbin/chronyd", cmdline: "/usr/sbin/chronyd -F 1", unit: "chrony.service", uid: 101, port: 323 },
    resolved: false,
    systemUsers: debUsers([
      ["messagebus", 100, 107, "", "/nonexistent", NOLOGIN_DEB], ["_chrony", 101, 108, "Chrony daemon,,,", "/var/lib/chrony", NOLOGIN_DEB],
      ["sshd", 102, 65534, "", "/run/sshd", NOLOGIN_DEB], ["systemd-network", 998, 998, "systemd Network Management", "/", NOLOGIN_DEB],
    ]),
    suid: [...debSuid, ["/usr/lib/openssh/ssh-keysign", "root", "root", "S"]],
  },
  {
    ...rhBase, tag: "rhel-9", kernel: "5.14.0-427.37.1.el9_4.x86_64", cloudUser: "cloud-user",
    os: { name: "Red Hat Enterprise Linux", version: "9.4 (Plow)", major: "9", minor: "4", patch: "0", build: "", platform: "rhel", platform_like: "fedora", codename: "", arch: "x86_64" },
  },
  {
    ...rhBase, tag: "rocky-9", kernel: "5.14.0-427.33.1.el9_4.x86_64", cloudUser: "rocky",
    os: { name: "Rocky Linux", version: "9.4 (Blue Onyx)", major: "9", minor: "4", patch: "0", build: "", platform: "rocky", platform_like: "rhel centos fedora", codename: "", arch: "x86_64" },
  },
  {
    ...rhBase, tag: "amzn-2023", kernel: "6.1.109-118.189.amzn2023.x86_64", cloudUser: "ec2-user",
    os: { name: "Amazon Linux", version: "2023", major: "2023", minor: "0", patch: "0", build: "", platform: "amzn", platform_like: "fedora", codename: "", arch: "x86_64" },
  },
];

/** In-tree modules every cloud VM has loaded: [name, size, used_by]. */
export const BASE_MODULES: Array<[string, number, string]> = [
  ["tls", 155648, "-"], ["nf_tables", 376832, "-"], ["nfnetlink", 20480, "nf_tables,"], ["xt_conntrack", 16384, "-"],
  ["nf_conntrack", 196608, "xt_conntrack,"], ["nf_defrag_ipv6", 24576, "nf_conntrack,"], ["nf_defrag_ipv4", 16384, "nf_conntrack,"],
  ["libcrc32c", 16384, "nf_conntrack,nf_tables,"], ["ip_tables", 32768, "-"], ["x_tables", 65536, "xt_conntrack,ip_tables,"],
  ["autofs4", 57344, "-"], ["crct10dif_pclmul", 16384, "-"], ["crc32_pclmul", 16384, "-"], ["polyval_clmulni", 16384, "-"],
  ["ghash_clmulni_intel", 16384, "-"], ["sha256_ssse3", 32768, "-"], ["aesni_intel", 356352, "-"], ["crypto_simd", 16384, "aesni_intel,"],
  ["cryptd", 24576, "ghash_clmulni_intel,crypto_simd,"], ["ena", 155648, "-"], ["nvme", 57344, "-"], ["nvme_core", 204800, "nvme,"],
  ["psmouse", 217088, "-"], ["i2c_piix4", 32768, "-"], ["serio_raw", 20480, "-"], ["dm_multipath", 45056, "-"], ["binfmt_misc", 24576, "-"],
  ["efi_pstore", 12288, "-"], ["drm", 770048, "-"], ["msr", 12288, "-"], ["sch_fq_codel", 24576, "-"],
];
