// SUID/SGID binaries that distribution packages install, with the owning package. Modes were read from the .deb
// (dpkg -c) or from the package's postinst (dpkg-statoverride / chmod at configure time).
import type { SourceRef } from "./types.js";

export interface PackagedSuid {
  path: string;
  package: string;
  mode: string;
  /**
   * The group the file must have (suid_bin's groupname): a path most hosts leave empty (dumpcap) would otherwise
   * explain a setuid shell copied there. Only a suid_bin row shows it; from another table the entry explains nothing.
   */
  group?: string;
  /** The file's owner when it is not root (Debian's at is setuid daemon). */
  owner?: string;
  source: SourceRef;
}

const deb = (name: string, version: string, detail = "mode in dpkg -c"): SourceRef => ({ kind: "debian-package", name, version, release: "bookworm", detail });
const postinst = (name: string, version: string, line: string): SourceRef => deb(name, version, `postinst: ${line}`);

const SHADOW = "1:4.13+dfsg1-1+deb12u2";
const UTIL_LINUX = "2.38.1-5+deb12u3";

/** Debian bookworm (also Ubuntu's layout: the same packages). Paths are /usr-merged (/bin -> /usr/bin). */
export const PACKAGED_SUID: readonly PackagedSuid[] = [
  { path: "/usr/bin/passwd", package: "passwd", mode: "4755", source: deb("passwd", SHADOW) },
  { path: "/usr/bin/chfn", package: "passwd", mode: "4755", source: deb("passwd", SHADOW) },
  { path: "/usr/bin/chsh", package: "passwd", mode: "4755", source: deb("passwd", SHADOW) },
  { path: "/usr/bin/gpasswd", package: "passwd", mode: "4755", source: deb("passwd", SHADOW) },
  { path: "/usr/bin/chage", package: "passwd", mode: "2755 root:shadow", source: deb("passwd", SHADOW) },
  { path: "/usr/bin/expiry", package: "passwd", mode: "2755 root:shadow", source: deb("passwd", SHADOW) },
  { path: "/usr/bin/newgrp", package: "login", mode: "4755", source: deb("login", SHADOW) },
  { path: "/usr/bin/newuidmap", package: "uidmap", mode: "4755", source: deb("uidmap", SHADOW) },
  { path: "/usr/bin/newgidmap", package: "uidmap", mode: "4755", source: deb("uidmap", SHADOW) },
  { path: "/usr/bin/su", package: "util-linux", mode: "4755", source: deb("util-linux", UTIL_LINUX) },
  { path: "/usr/bin/mount", package: "mount", mode: "4755", source: deb("mount", UTIL_LINUX) },
  { path: "/usr/bin/umount", package: "mount", mode: "4755", source: deb("mount", UTIL_LINUX) },
  { path: "/usr/bin/sudo", package: "sudo", mode: "4755", source: deb("sudo", "1.9.13p3-1+deb12u4") },
  { path: "/usr/bin/sudoedit", package: "sudo", mode: "symlink to sudo", source: deb("sudo", "1.9.13p3-1+deb12u4", "symlink to /usr/bin/sudo") },
  { path: "/usr/lib/openssh/ssh-keysign", package: "openssh-client", mode: "4755", source: deb("openssh-client", "1:9.2p1-2+deb12u10") },
  { path: "/usr/bin/ssh-agent", package: "openssh-client", mode: "2755 root:_ssh", source: postinst("openssh-client", "1:9.2p1-2+deb12u10", "chmod 2755 /usr/bin/ssh-agent") },
  { path: "/usr/bin/pkexec", package: "pkexec", mode: "4755", source: postinst("pkexec", "122-3", "set_perms root root 4755 /usr/bin/pkexec") },
  { path: "/usr/lib/polkit-1/polkit-agent-helper-1", package: "polkitd", mode: "4755", source: postinst("polkitd", "122-3", "set_perms root root 4755 /usr/lib/polkit-1/polkit-agent-helper-1") },
  { path: "/usr/libexec/polkit-agent-helper-1", package: "polkit (RHEL/Fedora)", mode: "4755", source: { kind: "doc", name: "polkit upstream install layout (libexecdir), Fedora/RHEL polkit package" } },
  { path: "/usr/lib/dbus-1.0/dbus-daemon-launch-helper", package: "dbus", mode: "4754 root:messagebus", source: postinst("dbus", "1.14.10-1~deb12u1", "dpkg-statoverride --add root messagebus 4754 $LAUNCHER") },
  { path: "/usr/bin/fusermount3", package: "fuse3", mode: "4755", source: postinst("fuse3", "3.14.0-4", "chmod 4755 /bin/fusermount3") },
  { path: "/usr/bin/fusermount", package: "fuse", mode: "4755", source: postinst("fuse", "2.9.9-6+b1", "chmod 4755 /bin/fusermount") },
  { path: "/usr/bin/ntfs-3g", package: "ntfs-3g", mode: "4755", source: postinst("ntfs-3g", "1:2022.10.3-1+deb12u4", "chmod 4755 /bin/ntfs-3g") },
  { path: "/usr/bin/ping", package: "iputils-ping", mode: "4755 when setcap fails", source: postinst("iputils-ping", "3:20221126-1+deb12u1", "chmod u+s $PROGRAM (fallback)") },
  { path: "/usr/bin/ping6", package: "inetutils-ping", mode: "4755", source: deb("inetutils-ping", "2:2.4-2+deb12u3") },
  { path: "/usr/bin/arping", package: "iputils-arping", mode: "4755 when setcap fails", source: postinst("iputils-arping", "3:20221126-1+deb12u1", "chmod u+s $PROGRAM (fallback)") },
  { path: "/usr/bin/mtr-packet", package: "mtr-tiny", mode: "4755 when setcap fails", source: postinst("mtr-tiny", "0.95-1", "chmod u+s /usr/bin/mtr-packet (fallback)") },
  { path: "/usr/bin/fping", package: "fping", mode: "4755 when setcap fails", source: postinst("fping", "5.1-1", "dpkg-statoverride --add root root 4755 /usr/bin/fping (fallback)") },
  { path: "/usr/lib/xorg/Xorg.wrap", package: "xserver-xorg-legacy", mode: "4755", source: deb("xserver-xorg-legacy", "2:21.1.7-3+deb12u13") },
  { path: "/usr/bin/at", owner: "daemon", package: "at", mode: "6755 daemon:daemon", source: deb("at", "3.2.5-1+b1") },
  { path: "/usr/bin/crontab", package: "cron", mode: "2755 root:crontab", source: postinst("cron", "3.0pl1-162", "dpkg-statoverride --add root crontab 2755 /usr/bin/crontab") },
  { path: "/usr/sbin/unix_chkpwd", package: "libpam-modules-bin", mode: "2755 root:shadow", source: deb("libpam-modules-bin", "1.5.2-6+deb12u2") },
  { path: "/usr/lib/x86_64-linux-gnu/utempter/utempter", package: "libutempter0", mode: "2755 root:utmp", source: deb("libutempter0", "1.2.1-3") },
  { path: "/usr/bin/plocate", package: "plocate", mode: "2755 root:plocate", source: postinst("plocate", "1.1.18-1", "dpkg-statoverride --add root $GROUP 2755 /usr/bin/plocate") },
  { path: "/usr/sbin/mount.nfs", package: "nfs-common", mode: "4755", source: deb("nfs-common", "1:2.6.2-4+deb12u1") },
  { path: "/usr/sbin/mount.cifs", package: "cifs-utils", mode: "4755", source: deb("cifs-utils", "2:7.0-2") },
  { path: "/usr/sbin/pppd", package: "ppp", mode: "4754 root:dip", source: deb("ppp", "2.4.9-1+1.1+b1") },
  { path: "/usr/lib/snapd/snap-confine", package: "snapd", mode: "4755", source: deb("snapd", "2.57.6-1+deb12u1+b2") },
  { path: "/usr/lib/chromium/chrome-sandbox", package: "chromium-sandbox", mode: "4755", source: deb("chromium-sandbox", "156.0.8078.79-1~deb12u1") },
  { path: "/usr/bin/firejail", package: "firejail", mode: "4755", source: deb("firejail", "0.9.72-2") },
  { path: "/usr/sbin/exim4", package: "exim4-daemon-light", mode: "4755", source: deb("exim4-daemon-light", "4.96-15+deb12u10") },
  { path: "/usr/sbin/dma", package: "dma", mode: "2755 root:mail", source: deb("dma", "0.13-1+b1") },
  { path: "/usr/lib/dma/dma-mbox-create", package: "dma", mode: "4754 root:mail", source: deb("dma", "0.13-1+b1") },
  { path: "/usr/bin/procmail", package: "procmail", mode: "6755 root:mail", source: deb("procmail", "3.22-27") },
  { path: "/usr/bin/lockfile", package: "procmail", mode: "2755 root:mail", source: deb("procmail", "3.22-27") },
  { path: "/usr/bin/mail-lock", package: "lockfile-progs", mode: "2755 root:mail", source: deb("lockfile-progs", "0.1.19") },
  { path: "/usr/bin/dotlockfile", package: "liblockfile-bin", mode: "2755 root:mail", source: { kind: "doc", name: "Debian liblockfile-bin: dotlockfile installed setgid mail" } },
  { path: "/usr/libexec/sendmail/sendmail", package: "sendmail-bin", mode: "2755 root:smmsp", source: postinst("sendmail-bin", "8.17.1.9-2+deb12u2", "dpkg-statoverride --add root smmsp 02755") },
  { path: "/usr/libexec/sendmail/mailstats", package: "sendmail-bin", mode: "2755 root:smmsp", source: postinst("sendmail-bin", "8.17.1.9-2+deb12u2", "dpkg-statoverride --add root smmsp 02755") },
  { path: "/usr/sbin/postdrop", package: "postfix", mode: "2555 root:postdrop", source: postinst("postfix", "3.7.11-0+deb12u1", "dpkg-statoverride --add root postdrop 02555 $POSTDROP") },
  { path: "/usr/sbin/postqueue", package: "postfix", mode: "2555 root:postdrop", source: postinst("postfix", "3.7.11-0+deb12u1", "dpkg-statoverride --add root postdrop 02555 /usr/sbin/postqueue") },
  { path: "/usr/libexec/opensmtpd/mail.local", package: "opensmtpd", mode: "2755 root:mail", source: deb("opensmtpd", "6.8.0p2-4+b4") },
  // Ubuntu-only helpers (same packages, Ubuntu's build): not verified from a .deb here, named after Ubuntu's packages.
  { path: "/usr/bin/wall", package: "bsdutils / util-linux (Ubuntu)", mode: "2755 root:tty", source: { kind: "doc", name: "Ubuntu util-linux packaging: wall and write installed setgid tty" } },
  { path: "/usr/bin/bsd-write", package: "bsdmainutils (Ubuntu, older)", mode: "2755 root:tty", source: { kind: "doc", name: "Ubuntu bsdmainutils: bsd-write setgid tty" } },
  { path: "/usr/bin/write.ul", package: "bsdextrautils (Ubuntu)", mode: "2755 root:tty", source: { kind: "doc", name: "Ubuntu bsdextrautils: write.ul setgid tty" } },
  { path: "/usr/sbin/pam_extrausers_chkpwd", package: "libpam-extrausers (Ubuntu)", mode: "2755 root:shadow", source: { kind: "doc", name: "Ubuntu libpam-extrausers package" } },
  { path: "/usr/lib/eject/dmcrypt-get-device", package: "eject (Debian <= bullseye, Ubuntu <= 22.04)", mode: "4755", source: { kind: "doc", name: "Debian bullseye eject package (dmcrypt-get-device setuid)" } },
  { path: "/usr/bin/mlocate", package: "mlocate (older releases)", mode: "2755 root:mlocate", source: { kind: "doc", name: "Debian bullseye mlocate postinst (setgid mlocate)" } },
  { path: "/usr/bin/staprun", package: "systemtap-runtime", mode: "4754 root:stapusr", source: { kind: "doc", name: "Debian systemtap-runtime: staprun setuid, group stapusr" } },
  { path: "/usr/sbin/userhelper", package: "usermode (RHEL/Fedora)", mode: "4711", source: { kind: "doc", name: "Fedora usermode package" } },
  // RHEL 9 / Rocky 9 / Amazon Linux 2023 packages (rpm -qlv modes), and older Debian/Ubuntu layouts.
  { path: "/bin/bbsuid", package: "busybox-suid", mode: "4111", source: { kind: "upstream-package", name: "Alpine Linux busybox-suid", url: "https://pkgs.alpinelinux.org/package/edge/main/x86_64/busybox-suid", detail: "bbsuid: the setuid helper busybox applets (ping, su, passwd) run through, installed 4111 root:root" } },
  { path: "/usr/bin/write", package: "util-linux / bsdextrautils", mode: "2755 root:tty", source: { kind: "upstream-package", name: "util-linux (RHEL 9) / bsdextrautils (Debian)", detail: "write is setgid tty so it can write to other terminals" } },
  { path: "/usr/sbin/pam_timestamp_check", package: "pam", mode: "4755", source: { kind: "upstream-package", name: "pam", release: "rhel9", detail: "rpm -qlv pam: -rwsr-xr-x /usr/sbin/pam_timestamp_check" } },
  { path: "/usr/sbin/grub2-set-bootflag", package: "grub2-tools-minimal", mode: "4755", source: { kind: "upstream-package", name: "grub2-tools-minimal", release: "rhel9", detail: "setuid so that users can set boot_success (Fedora/RHEL boot counting)" } },
  { path: "/usr/bin/bwrap", package: "bubblewrap", mode: "4755", source: { kind: "upstream-package", name: "bubblewrap", detail: "installed setuid on kernels without unprivileged user namespaces (RHEL 7/8, older Debian)" } },
  { path: "/usr/bin/traceroute6.iputils", package: "iputils-tracepath", mode: "4755", source: { kind: "upstream-package", name: "iputils-tracepath", release: "ubuntu-focal", detail: "setuid before file capabilities were used" } },
  { path: "/usr/libexec/utempter/utempter", package: "libutempter", mode: "2711 root:utempter", source: { kind: "upstream-package", name: "libutempter", release: "rhel9", detail: "rpm -qlv libutempter: -rwx--s--x root utempter /usr/libexec/utempter/utempter (Fedora, RHEL, Rocky, Alma, Amazon Linux; SUSE's /usr/lib/utempter/utempter)" } },
  { path: "/usr/sbin/exim", package: "exim (Fedora/EPEL, cPanel)", mode: "4755", source: { kind: "doc", name: "The Exim specification, chapter 4 \"Building and installing Exim\": the exim binary is installed setuid root (Fedora/EPEL exim: -rwsr-xr-x /usr/sbin/exim; cPanel's exim the same)", url: "https://www.exim.org/exim-html-current/doc/html/spec_html/ch-building_and_installing_exim.html" } },
  { path: "/usr/sbin/suexec", package: "httpd (RHEL) / ea-apache24 (cPanel)", mode: "4510 root:apache", source: { kind: "doc", name: "Apache HTTP Server docs, suEXEC Support: the wrapper must be setuid root and executable only by the server's group (RHEL httpd: -r-x--s--x root apache; cPanel EasyApache 4: root:nobody)", url: "https://httpd.apache.org/docs/2.4/suexec.html" } },
  { path: "/usr/lib/apache2/suexec", package: "apache2-suexec-pristine / -custom", mode: "4754 root:www-data", source: postinst("apache2-suexec-pristine", "2.4.62-1~deb12u2", "dpkg-statoverride --add root www-data 4754 /usr/lib/apache2/suexec") },
  { path: "/usr/bin/locate", package: "mlocate (RHEL 8)", mode: "2711 root:slocate", source: { kind: "upstream-package", name: "mlocate", release: "rhel8", detail: "rpm -qlv mlocate: -rwx--s--x root slocate /usr/bin/locate (setgid slocate to read /var/lib/mlocate/mlocate.db)" } },
  { path: "/usr/sbin/usernetctl", package: "initscripts (RHEL/CentOS 7)", mode: "4755", source: { kind: "upstream-package", name: "initscripts", release: "rhel7", detail: "rpm -qlv initscripts: -rwsr-xr-x /usr/sbin/usernetctl (lets users bring up interfaces marked USERCTL=yes)" } },
  { path: "/usr/lib/utempter/utempter", package: "libutempter0 (SUSE)", mode: "2755 root:utmp", source: { kind: "upstream-package", name: "libutempter0", release: "sles15", detail: "rpm -qlv libutempter0: setgid utmp" } },
  ...["apps.plugin", "perf.plugin", "slabinfo.plugin", "freeipmi.plugin", "nfacct.plugin", "ioping", "cgroup-network", "debugfs.plugin", "local-listeners", "ebpf.plugin", "network-viewer.plugin", "ndsudo", "systemd-journal.plugin"].flatMap((plugin) =>
    ["/usr/libexec/netdata/plugins.d/", "/opt/netdata/usr/libexec/netdata/plugins.d/"].map((dir) => ({
      path: `${dir}${plugin}`,
      package: "netdata",
      mode: "4750 root:netdata",
      source: { kind: "doc" as const, name: "Netdata docs: the plugins that need root (apps.plugin, perf.plugin, ioping, cgroup-network, ndsudo...) are installed setuid root, group netdata, by the package and the static installer (/opt/netdata)", url: "https://learn.netdata.cloud/docs/netdata-agent/installation/linux/" },
    })),
  ),
  { path: "/usr/bin/screen", package: "screen", mode: "2755 root:utmp", source: { kind: "debian-package", name: "screen", release: "bookworm", detail: "setgid utmp to record sessions" } },
  // Arch Linux (one bin directory: /usr/sbin is /usr/bin there) and Alpine.
  // openSUSE and SLES keep their own password helper beside Linux-PAM's: setuid root by the permissions package's
  // profiles (permissions.easy/secure/paranoid list /usr/sbin/unix2_chkpwd root:shadow 4755).
  { path: "/usr/sbin/unix2_chkpwd", package: "pam (openSUSE)", mode: "4755", group: "shadow", source: { kind: "upstream-package", name: "pam", release: "openSUSE Tumbleweed / SLES 15", url: "https://github.com/openSUSE/permissions/blob/master/profiles/permissions.secure", detail: "/usr/sbin/unix2_chkpwd root:shadow 4755 in the permissions profiles; the binary from the pam package" } },
  { path: "/usr/bin/unix_chkpwd", package: "pam (Arch)", mode: "4755", source: { kind: "upstream-package", name: "pam", release: "arch", url: "https://archlinux.org/packages/core/x86_64/pam/", detail: "usr/bin/unix_chkpwd installed setuid root (PKGBUILD: chmod +s)" } },
  { path: "/usr/bin/sg", package: "shadow (Arch)", mode: "4755", source: { kind: "upstream-package", name: "shadow", release: "arch", url: "https://archlinux.org/packages/core/x86_64/shadow/", detail: "sg is newgrp under another name (setuid root, like newgrp)" } },
  { path: "/usr/bin/doas", package: "doas (Alpine) / opendoas (Arch, Debian)", mode: "4755", source: { kind: "upstream-package", name: "doas / opendoas", url: "https://pkgs.alpinelinux.org/package/edge/main/x86_64/doas", detail: "doas(1) runs commands as another user: installed setuid root by Alpine's doas, Arch's and Debian's opendoas" } },
  // Asked at install ("Should non-superusers be able to capture packets?"): capabilities first, setuid when the file
  // system cannot hold them.
  { path: "/usr/bin/dumpcap", package: "wireshark-common", mode: "4754 root:wireshark", group: "wireshark", source: postinst("wireshark-common", "4.0.17-0+deb12u1", "dpkg-statoverride --add root wireshark 4754 /usr/bin/dumpcap when setcap fails (debconf wireshark-common/install-setuid)") },
];

/** Canonical form: /bin and /sbin are /usr/bin and /usr/sbin on merged-/usr systems (Debian 12, Ubuntu 20.04+). */
export function canonicalBinPath(path: string): string {
  return path.replace(/^\/(bin|sbin|lib|lib64)\//, "/usr/$1/").replace(/^\/usr\/lib64\//, "/usr/lib/").replace(/ \(deleted\)$/, "");
}

/** Multiarch-independent form of a library path (/usr/lib/aarch64-linux-gnu/... -> /usr/lib/<triplet>/...). */
export function tripletFree(path: string): string {
  return path.replace(/^\/usr\/lib\/[a-z0-9_]+-linux-gnu[a-z]*\//, "/usr/lib/<triplet>/");
}
