// BPFDoor: a passive backdoor that attaches a classic-BPF filter to an AF_PACKET socket and waits for a magic packet,
// so it opens no port. It copies itself to /dev/shm, deletes the file and renames its argv to a daemon's command line.
// Used by packet-socket-backdoor: a packet socket held under one of these command lines by an executable that is not
// the named daemon is a known-bad match.
// Sources: https://www.sandflysecurity.com/blog/bpfdoor-an-evasive-linux-backdoor-technical-analysis/ ,
// https://www.elastic.co/security-labs/a-peek-behind-the-bpfdoor ,
// https://github.com/rapid7/Rapid7-Labs/blob/main/BPFDoor/rapid7_detect_bpfdoor.sh (SUSPICIOUS_PROCS).

export const BPFDOOR_MASQUERADES: readonly string[] = [
  "/sbin/udevd -d",
  "/sbin/mingetty /dev/tty7",
  "/sbin/auditd -n",
  "/sbin/agetty",
  "/sbin/auditd",
  "/sbin/sgaSolAgent",
  "/sbin/ora_ppmond",
  "/usr/bin/uvp-srv",
  "/usr/bin/pulse-helper",
  "/usr/lib/polkit-1/polkitd",
  "/usr/sbin/NetworkManager",
  "/usr/sbin/chronyd",
  "/usr/sbin/rsyslogd",
  "/usr/sbin/sshd",
  "/usr/sbin/console-kit-daemon --no-daemon",
  "/usr/sbin/console-kit-daemon -s -D",
  "/usr/libexec/postfix/master",
  "/usr/sbin/abrtd",
  "/usr/sbin/acpid",
  "/usr/sbin/atd",
  "/usr/sbin/crond",
  "/usr/sbin/mcelog",
  "/usr/sbin/smartd",
  "/usr/lib/systemd/systemd-journald",
  "/usr/lib/systemd/systemd-machined",
  "/usr/libexec/hald-addon-volume",
  "/usr/libexec/rtkit-daemon",
  "/usr/libexec/upowerd",
  "/usr/bin/python -Es /usr/sbin/tuned",
  "avahi-daemon: chroot helper",
  "dbus-daemon --system",
  "hald-addon-acpi: listening on acpi kernel interface /proc/acpi/event",
  "hald-runner",
  "hpasmlited",
  "cmathreshd",
  "lldpad -d",
  "pickup -l -t fifo -u",
  "qmgr -l -t fifo -u",
  "nginx: master process",
  "[watchdogd]",
  "[charger_manager]",
  "[kaluad_sync]",
  "[scsi_tmf_6]",
  "[cpu/0]",
];

/** The masquerade a command line matches: exactly, or as its leading words (BPFDoor pads argv with spaces). */
export function bpfdoorMasquerade(cmdline: string): string | undefined {
  const c = cmdline.trim().replace(/\s+/g, " ");
  if (c === "") return undefined;
  return BPFDOOR_MASQUERADES.find((m) => c === m || c.startsWith(`${m} `));
}
