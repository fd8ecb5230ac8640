// The programs systemd installs directly in its library directory (/usr/lib/systemd, /lib/systemd), by name. Read from
// Debian bookworm's systemd packages (systemd, udev, systemd-resolved, -timesyncd, -homed, -container, -journal-remote,
// -oomd, -boot, -userdbd, -coredump, -sysv, libpam-systemd 252.39-1~deb12u2: `dpkg -c`), plus the helpers later
// releases and other distributions add there (systemd-executor since v255, systemd-vconsole-setup and systemd-udevd as
// a binary on Fedora and RHEL, systemd's meson.build for the rest). A program named like systemd's that runs from that
// directory under another name is borrowing its look (process-masquerading).
import { basename } from "../rows.js";
import { nixStorePath } from "./nix-store.js";
import type { SourceRef } from "./types.js";

export const SYSTEMD_PROGRAMS_SOURCE: SourceRef = { kind: "debian-package", name: "systemd, udev and the systemd-* packages", version: "252.39-1~deb12u2", release: "bookworm", detail: "every file directly under /lib/systemd (dpkg -c), and the helpers of systemd 253-257 (meson.build)" };

const BOOKWORM = `
systemd systemd-ac-power systemd-backlight systemd-binfmt systemd-bless-boot systemd-boot-check-no-failures systemd-cgroups-agent systemd-coredump
systemd-cryptsetup systemd-export systemd-fsck systemd-fsckd systemd-growfs systemd-hibernate-resume systemd-homed systemd-homework systemd-hostnamed
systemd-import systemd-import-fs systemd-importd systemd-initctl systemd-integritysetup systemd-journal-gatewayd systemd-journal-remote
systemd-journal-upload systemd-journald systemd-localed systemd-logind systemd-machined systemd-makefs systemd-measure systemd-modules-load
systemd-network-generator systemd-networkd systemd-networkd-wait-online systemd-oomd systemd-pcrphase systemd-portabled systemd-pstore systemd-pull
systemd-quotacheck systemd-random-seed systemd-remount-fs systemd-reply-password systemd-resolved systemd-rfkill systemd-shutdown systemd-sleep
systemd-socket-proxyd systemd-sulogin-shell systemd-sysctl systemd-sysroot-fstab-check systemd-sysv-install systemd-time-wait-sync systemd-timedated
systemd-timesyncd systemd-udevd systemd-update-utmp systemd-user-runtime-dir systemd-user-sessions systemd-userdbd systemd-userwork systemd-veritysetup
systemd-volatile-root systemd-xdg-autostart-condition
`;

const LATER = `
systemd-executor systemd-vconsole-setup systemd-update-done systemd-storagetm systemd-bsod systemd-pcrextend systemd-pcrlock systemd-tpm2-setup
systemd-sysupdate systemd-sysupdated systemd-mountwork systemd-mountfsd systemd-nsresourced systemd-nsresourcework systemd-battery-check
systemd-keyutil systemd-ssh-proxy systemd-ssh-issue systemd-hwdb systemd-sysext systemd-confext systemd-tpm2-clear systemd-import-generator
systemd-loop@ systemd-creds systemd-dissect systemd-boot-random-seed systemd-networkd-persistent-storage systemd-journald-audit
`;

export const SYSTEMD_PROGRAMS: ReadonlySet<string> = new Set(`${BOOKWORM} ${LATER}`.split(/\s+/).filter((n) => n !== ""));

/** systemd's own library directory, where its programs sit (not its generator or unit subdirectories). */
const SYSTEMD_DIR = /^(?:\/usr)?\/lib\/systemd\/([^/]+)$/;

/** The program's name when the path is directly in systemd's library directory of its NixOS store path (nix-store.ts). */
export function inNixSystemdStore(path: string): string | undefined {
  const store = nixStorePath(path);
  return store !== undefined && /^systemd(?:-minimal)?$/.test(store.package) ? /^lib\/systemd\/([^/]+)$/.exec(store.file)?.[1] : undefined;
}

/** The program's name when the path is directly in systemd's directory (/lib/systemd/x, /usr/lib/systemd/x). */
export function inSystemdDir(path: string): string | undefined {
  return SYSTEMD_DIR.exec(path)?.[1];
}

/** A program named like systemd's in systemd's directory that no systemd release installs. */
export function unknownSystemdProgram(path: string): string | undefined {
  const file = inSystemdDir(path);
  return file !== undefined && /^systemd/.test(file) && !SYSTEMD_PROGRAMS.has(file) ? file : undefined;
}

/** One of systemd's own programs (systemd-logind, systemd-journald...) run from anywhere but systemd's directory. */
export function systemdProgramElsewhere(path: string): boolean {
  const file = basename(path);
  return file !== "systemd" && SYSTEMD_PROGRAMS.has(file) && inSystemdDir(path) === undefined;
}

/**
 * systemd's programs in the bin directories (Debian bookworm's systemd, udev, systemd-container, systemd-resolved,
 * systemd-repart and systemd-homed `dpkg -L`, plus later releases' meson.build): command-line tools, none of them a
 * network service (its daemons live in its library directory: systemd-resolved in /usr/bin is no package's).
 */
const BIN_TOOLS = `
systemd systemd-analyze systemd-ask-password systemd-cat systemd-cgls systemd-cgtop systemd-creds systemd-cryptenroll
systemd-cryptsetup systemd-delta systemd-detect-virt systemd-dissect systemd-escape systemd-firstboot systemd-hwdb
systemd-id128 systemd-inhibit systemd-machine-id-setup systemd-mount systemd-notify systemd-nspawn systemd-path
systemd-repart systemd-resolve systemd-run systemd-socket-activate systemd-stdio-bridge systemd-sysext systemd-confext
systemd-sysusers systemd-tmpfiles systemd-tty-ask-password-agent systemd-umount systemd-vmspawn systemd-vpick
systemd-ac-power systemd-measure systemd-pcrlock systemd-keyutil
`;
const SYSTEMD_BIN_TOOLS: ReadonlySet<string> = new Set(BIN_TOOLS.split(/\s+/).filter((n) => n !== ""));

/**
 * A program named like systemd's (`systemd-worker`) in a bin directory, where no systemd release installs that name:
 * a miner's or a bot's borrowed look (Panchan's systemd-worker, Kinsing's and others' systemd-* droppers).
 */
export function systemdLookalikeInBin(path: string): boolean {
  const file = basename(path);
  return /^\/(?:usr\/)?s?bin\/systemd-[^/]+$/.test(path) && !SYSTEMD_BIN_TOOLS.has(file) && !SYSTEMD_PROGRAMS.has(file);
}
