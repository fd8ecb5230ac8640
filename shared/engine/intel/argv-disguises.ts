// Command lines malware gives its own processes so that `ps` shows an ordinary command: XorDDoS picks one of a fixed
// list at random and rewrites its argv to it while its binary keeps a random name (/usr/bin/kvtkzorhbv "ifconfig
// eth0"), or runs a copy named like a library (/lib/libudev.so.6 "who"). Sources: Microsoft Security blog "Rise in
// XorDdos: A deeper look at the stealthy DDoS malware targeting Linux devices" (2022-05-19, the list of spoofed
// command lines); Unit 42 "New Linux XorDDoS Trojan Campaign" (2023); Elastic Security Labs' XorDDoS rule.

export const ARGV_DISGUISE_SOURCE = "https://www.microsoft.com/en-us/security/blog/2022/05/19/rise-in-xordos-a-deeper-look-at-the-stealthy-ddos-malware-targeting-linux-devices/";

/** Short-lived commands a long-running process has no reason to be named after (the first word of its argv). */
export const SHORT_LIVED_COMMANDS: ReadonlySet<string> = new Set([
  "ifconfig", "who", "w", "whoami", "id", "pwd", "ls", "top", "netstat", "ps", "uptime", "cat", "echo", "sleep", "route", "grep", "ss", "uname", "date", "df", "free",
]);

/** Multi-call binaries that legitimately run under many commands' names. */
export const MULTI_CALL: RegExp = /^(?:busybox|toybox|coreutils|uutils)(?:[.-].*)?$/;

/**
 * Compiled daemons whose names interpreted malware takes for its argv: a Perl IRC bot (Shellbot, Outlaw's) sets $0 to
 * "/usr/sbin/httpd" or "sshd" while /proc/<pid>/exe is perl. Sources: Trend Micro "Outlaw group distributes botnet for
 * cryptomining" (2018: Shellbot renamed to rsync, httpd); AhnLab "ShellBot malware distributed to Linux SSH servers"
 * (2023); Sandfly Security on process name masquerading by interpreters.
 */
export const COMPILED_DAEMONS = /^(?:httpd|apache2|nginx|sshd|cron|crond|mysqld|mariadbd|postgres|rsyslogd|named|sendmail|smbd|nmbd|vsftpd|proftpd|exim4?|dbus-daemon|systemd(?:-[\w-]+)?|init|agetty|atd|irqbalance)$/;

/** Interpreters whose scripts may set their own process title. */
export const INTERPRETERS = /^(?:perl[\d.]*|python[\d.]*|ruby[\d.]*|php[\d.]*(?:-cgi)?|node|lua[\d.]*)$/;
