// Standard automation: packaged cron jobs (exact lines as osquery's crontab table shows them), backup tools' cron
// lines, dead-man's-switch pings, cloud-init's root key options, and configuration-management SSH fan-out.
import type { SourceRef } from "./types.js";
import { InOrder } from "../in-order.js";

export interface PackagedCronJob {
  path: string;
  /** osquery's crontab.command: the fields after the schedule, joined by single spaces (system crontabs keep the user). */
  command: string;
  package: string;
  source: SourceRef;
}

const deb = (name: string, version: string, file: string): SourceRef => ({ kind: "debian-package", name, version, release: "bookworm", detail: file });

export const PACKAGED_CRON: readonly PackagedCronJob[] = [
  ...["hourly", "daily", "weekly", "monthly"].map((period) => ({
    path: "/etc/crontab",
    command: period === "hourly" ? "root cd / && run-parts --report /etc/cron.hourly" : `root test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.${period}; }`,
    package: "cron-daemon-common",
    source: deb("cron-daemon-common", "3.0pl1-162", "/etc/crontab"),
  })),
  { path: "/etc/crontab", command: "root cd / && run-parts --report /etc/cron.hourly", package: "cron (Ubuntu)", source: { kind: "doc", name: "Ubuntu cron package /etc/crontab (same run-parts lines)" } },
  { path: "/etc/cron.d/certbot", command: "root test -x /usr/bin/certbot -a \\! -d /run/systemd/system && perl -e 'sleep int(rand(43200))' && certbot -q renew --no-random-sleep-on-renew", package: "certbot", source: deb("certbot", "2.1.0-4", "/etc/cron.d/certbot") },
  { path: "/etc/cron.d/certbot", command: "root test -x /usr/bin/certbot -a \\! -d /run/systemd/system && perl -e 'sleep int(rand(43200))' && certbot -q renew", package: "certbot (older releases)", source: { kind: "doc", name: "Debian bullseye / Ubuntu certbot /etc/cron.d/certbot" } },
  { path: "/etc/cron.d/e2scrub_all", command: "root test -e /run/systemd/system || SERVICE_MODE=1 /usr/lib/x86_64-linux-gnu/e2fsprogs/e2scrub_all_cron", package: "e2fsprogs", source: deb("e2fsprogs", "1.47.0-2+b2", "/etc/cron.d/e2scrub_all") },
  { path: "/etc/cron.d/e2scrub_all", command: "root test -e /run/systemd/system || SERVICE_MODE=1 /sbin/e2scrub_all -A -r", package: "e2fsprogs", source: deb("e2fsprogs", "1.47.0-2+b2", "/etc/cron.d/e2scrub_all") },
  { path: "/etc/cron.d/sysstat", command: "root command -v debian-sa1 > /dev/null && debian-sa1 1 1", package: "sysstat", source: deb("sysstat", "12.6.1-1", "/etc/cron.d/sysstat") },
  { path: "/etc/cron.d/sysstat", command: "root command -v debian-sa1 > /dev/null && debian-sa1 60 2", package: "sysstat", source: deb("sysstat", "12.6.1-1", "/etc/cron.d/sysstat") },
  { path: "/etc/cron.d/php", command: "root [ -x /usr/lib/php/sessionclean ] && if [ ! -d /run/systemd/system ]; then /usr/lib/php/sessionclean; fi", package: "php-common", source: deb("php-common", "2:93", "/etc/cron.d/php") },
  { path: "/etc/cron.d/anacron", command: "root [ -x /etc/init.d/anacron ] && if [ ! -d /run/systemd/system ]; then /usr/sbin/invoke-rc.d anacron start >/dev/null; fi", package: "anacron", source: deb("anacron", "2.3-36", "/etc/cron.d/anacron") },
  { path: "/etc/cron.d/mdadm", command: "root if [ -x /usr/share/mdadm/checkarray ] && [ $(date +\\%d) -le 7 ]; then /usr/share/mdadm/checkarray --cron --all --idle --quiet; fi", package: "mdadm", source: deb("mdadm", "4.2-5", "/etc/cron.d/mdadm") },
  { path: "/etc/cron.d/ntpsec", command: "root if [ ! -d /run/systemd/system ] && [ -x /usr/libexec/ntpsec/rotate-stats ] ; then /usr/libexec/ntpsec/rotate-stats ; fi", package: "ntpsec", source: deb("ntpsec", "1.2.2+dfsg1-1+deb12u1", "/etc/cron.d/ntpsec") },
  { path: "/etc/cron.d/backupninja", command: "root if [ -x /usr/sbin/backupninja ]; then /usr/sbin/backupninja; fi", package: "backupninja", source: deb("backupninja", "1.2.2-1", "/etc/cron.d/backupninja") },
  { path: "/etc/cron.d/munin", command: "munin if [ -x /usr/bin/munin-cron ]; then /usr/bin/munin-cron; fi", package: "munin", source: deb("munin", "2.0.73-1", "/etc/cron.d/munin") },
  { path: "/etc/cron.d/awstats", command: "www-data [ -x /usr/share/awstats/tools/update.sh ] && /usr/share/awstats/tools/update.sh", package: "awstats", source: deb("awstats", "7.8-3+deb12u2", "/etc/cron.d/awstats") },
  { path: "/etc/cron.d/amavisd-new", command: "amavis test -e /usr/sbin/amavisd-new-cronjob && /usr/sbin/amavisd-new-cronjob sa-sync", package: "amavisd-new", source: deb("amavisd-new", "1:2.13.0-3+deb12u1", "/etc/cron.d/amavisd-new") },
  { path: "/etc/cron.d/amavisd-new", command: "amavis test -e /usr/sbin/amavisd-new-cronjob && /usr/sbin/amavisd-new-cronjob sa-clean", package: "amavisd-new", source: deb("amavisd-new", "1:2.13.0-3+deb12u1", "/etc/cron.d/amavisd-new") },
  { path: "/etc/cron.d/greylistclean", command: "Debian-exim [ -x /usr/share/sa-exim/greylistclean ] && /usr/share/sa-exim/greylistclean", package: "sa-exim", source: deb("sa-exim", "4.2.1-20+b1", "/etc/cron.d/greylistclean") },
];

export interface CommandPattern {
  id: string;
  /** Matches the whole command (user field stripped). */
  re: Pick<RegExp, "test">;
  /** Only processes of these uids (a build user's), when the layout is one anyone could copy. */
  uids?: readonly string[];
  source: SourceRef;
}

/**
 * Backup tools' cron lines: the program run is the backup tool itself (their paths often name /tmp excludes).
 * Every repeated group matches one way only (an assignment's name has no "=", an option's value does not start
 * with "-"): `(?:\S+=\S+\s+)*` and `(?:-\S+\s+(?:\S+\s+)?)*` backtracked exponentially on "a=b=c a=b=c ..." and
 * "-a -a -a ..." (10 s for 170 characters).
 */
export const BACKUP_CRON: readonly CommandPattern[] = [
  { id: "cron:restic", re: /^(?:[A-Za-z_]\w*=\S*\s+)*(?:\/\S*\/)?restic\s+(?:-\S+\s+(?:[^\s-]\S*\s+)?)*(?:backup|forget|prune|check|snapshots|unlock)\b/, source: { kind: "doc", name: "restic documentation: Backing up / Scheduling", url: "https://restic.readthedocs.io/en/stable/040_backup.html" } },
  { id: "cron:borg", re: /^(?:[A-Za-z_]\w*=\S*\s+)*(?:\/\S*\/)?(?:borg\s+(?:-\S+\s+)*(?:create|prune|compact|check)\b|borgmatic\b)/, source: { kind: "doc", name: "BorgBackup: Automating backups; borgmatic: Set up backups (cron)", url: "https://borgbackup.readthedocs.io/en/stable/quickstart.html#automating-backups" } },
  { id: "cron:rsnapshot", re: /^(?:\S+\s+)?(?:\/usr\/bin\/)?rsnapshot\s+(?:-\S+\s+)*(?:alpha|beta|gamma|delta|hourly|daily|weekly|monthly|sync)\b/, source: { kind: "debian-package", name: "rsnapshot", version: "1.4.5-1", release: "bookworm", detail: "/etc/cron.d/rsnapshot sample lines" } },
  { id: "cron:duplicity", re: /^(?:[A-Za-z_]\w*=\S*\s+)*(?:\/\S*\/)?(?:duplicity\s+(?:-\S+\s+)*(?:full|incremental|incr|remove-older-than|remove-all-but-n-full|cleanup|collection-status|\/)|duply\s+\S+\s+(?:backup|purge|cleanup))/, source: { kind: "doc", name: "duplicity(1) man page; duply(1)" } },
  { id: "cron:backup-scripts", re: /^(?:\S+\s+)?(?:\/usr\/bin\/)?(?:automysqlbackup|autopostgresqlbackup|pg_dump|pg_dumpall|mysqldump|mariadb-dump|xtrabackup|pgbackrest|barman|wal-g|rclone|rsync)\b(?![^|]*\|\s*(?:ba|da)?sh\b)/, source: { kind: "doc", name: "Debian automysqlbackup/autopostgresqlbackup packages; pgBackRest, Barman, WAL-G user guides; rclone, rsync man pages" } },
];

/** Dead-man's-switch pings appended to cron jobs: a GET to the monitoring service, output discarded, nothing run. */
export const HEARTBEAT_PING: { id: string; pattern: InOrder; source: SourceRef } = {
  id: "cron:heartbeat-ping",
  // curl or wget, then the monitoring URL later in the same simple command (parts in order, in-order.ts: as one
  // pattern every curl of a long line scanned the rest of it). The URL's path stops at the command's end: a pipe
  // after it is not part of the ping.
  pattern: new InOrder(/[|;&]/, [/\b(?:curl|wget)\b/i, /https?:\/\/(?:hc-ping\.com|[a-z0-9.-]*healthchecks\.io|cronitor\.link|[a-z0-9.-]*cronitor\.io|nosnch\.in|[a-z0-9.-]*deadmanssnitch\.com|[a-z0-9.-]*betteruptime\.com|uptime\.betterstack\.com|push\.statuscake\.com)\/\S*/i]),
  source: { kind: "doc", name: "Healthchecks.io docs: Cron job monitoring (curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/<uuid>); Cronitor, Dead Man's Snitch docs", url: "https://healthchecks.io/docs/" },
};

/** cloud-init's disable_root_opts on root's authorized_keys: the key only prints a message and exits. */
export const CLOUD_INIT_ROOT_KEY = {
  id: "cloud-init:disable-root-opts",
  options: /no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command="echo 'Please login as the user \\?"[a-z_][a-z0-9_.-]*\\?" rather than the user \\?"root\\?"\.';echo;sleep 10;exit 142"/,
  source: { kind: "doc", name: "cloud-init cc_ssh: disable_root / disable_root_opts default", url: "https://cloudinit.readthedocs.io/en/latest/reference/modules.html#ssh" } as SourceRef,
} as const;

/** Key comments configuration-management tools and their docs use for their deploy keys. */
export const CONFIG_MANAGEMENT_KEY = {
  id: "automation:config-management-key",
  comment: /^(?:ansible|awx|semaphore|salt|salt-ssh|saltstack|puppet|bolt|chef|rundeck|terraform|packer|foreman|rex)(?:[-_@.][\w.@-]*)?$/i,
  source: { kind: "doc", name: "Ansible connection docs (ansible_ssh_private_key_file, keys distributed with authorized_key module); salt-ssh roster docs (salt-ssh.rsa key); Rundeck/Foreman remote execution keys" } as SourceRef,
} as const;

/**
 * Ansible's SSH connection plugin and salt-ssh fan-out, as their client processes show in processes.cmdline. Each
 * piece is its own lookahead from the start (one scan each): in sequence, `\bssh\b.*-o...\b.*-o...\b.*ControlPath`
 * backtracked polynomially (9.6 s for one 8 KiB command line).
 */
export const CONFIG_MANAGEMENT_SSH: readonly CommandPattern[] = [
  { id: "automation:ansible-ssh", re: /^(?=.*\bssh\b)(?=.*-o\s*ControlMaster=auto\b)(?=.*-o\s*ControlPersist=\d+\w*\b)(?=.*ControlPath="?(?:[^"\s]*\/\.ansible\/cp\/|\/runner\/cp\/))/, source: { kind: "doc", name: "Ansible ssh connection plugin: ssh_args default -C -o ControlMaster=auto -o ControlPersist=60s, control_path_dir ~/.ansible/cp (AWX and ansible-runner execution environments: /runner/cp)", url: "https://docs.ansible.com/ansible/latest/collections/ansible/builtin/ssh_connection.html" } },
  // The persisting master of those connections retitles itself `ssh: <ControlPath> [mux]` (OpenSSH mux.c).
  { id: "automation:ansible-ssh", re: /^ssh: (?:\/home\/[^/\s]+|\/root|\/var\/lib\/[^/\s]+)?\/(?:\.ansible|runner)\/cp\/[0-9a-f]{10} \[mux\]$/, source: { kind: "doc", name: "Ansible ssh connection plugin: control_path_dir ~/.ansible/cp, ControlPersist=60s (its master then runs as `ssh: <control path> [mux]`, OpenSSH mux.c)", url: "https://docs.ansible.com/ansible/latest/collections/ansible/builtin/ssh_connection.html" } },
  { id: "automation:rundeck-ssh", re: /^(?=.*\bssh\b)(?=.*\s-i\s+\/var\/lib\/rundeck\/\.ssh\/id_(?:rsa|ed25519|ecdsa)\b)/, source: { kind: "doc", name: "Rundeck docs: SSH node executor, the server's key /var/lib/rundeck/.ssh/id_rsa", url: "https://docs.rundeck.com/docs/manual/projects/node-execution/ssh.html" } },
  // salt/client/ssh/shell.py passes the key as `-o IdentityFile=...` (with -o User=, -o Port=, StrictHostKeyChecking=no)
  // and runs its shim through `/bin/sh << 'EOF'`.
  { id: "automation:salt-ssh", re: { test: saltSsh }, source: { kind: "doc", name: "Salt SSH: salt-ssh uses /etc/salt/pki/master/ssh/salt-ssh.rsa (salt/client/ssh/shell.py: -o IdentityFile=, the shim through /bin/sh << 'EOF')", url: "https://docs.saltproject.io/en/latest/topics/ssh/index.html" } },
  // check_by_ssh runs one plugin on the remote host per check: `ssh ... host /usr/lib/nagios/plugins/check_load -w ...`.
  { id: "monitoring:check-by-ssh", re: { test: checkBySsh }, source: { kind: "doc", name: "Monitoring Plugins check_by_ssh(1) and Icinga 2 docs, \"Agent-based Checks: SSH\": the poller runs each plugin on the remote host over ssh", url: "https://icinga.com/docs/icinga-2/latest/doc/07-agent-based-monitoring/#ssh" } },
];

/** ssh(1) options that take a value. */
const SSH_VALUE_OPTIONS = new Set(["-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w"]);

interface SshInvocation {
  options: Array<[string, string]>;
  destination: string;
  remote: string[];
}

/**
 * An ssh client's command line read as ssh(1) reads it: options (grouped flags, values attached or next), the
 * destination, the remote command's words. Undefined when the first word is no ssh or the line carries shell syntax.
 */
function sshInvocation(cmdline: string): SshInvocation | undefined {
  if (cmdline.length > 8192 || /[;|&$`\n<>()]/.test(cmdline)) return undefined;
  const words = cmdline.trim().split(/\s+/);
  if (!/^(?:\/usr\/bin\/|\/bin\/)?ssh$/.test(words[0] ?? "")) return undefined;
  const options: Array<[string, string]> = [];
  let i = 1;
  for (; i < words.length && (words[i] ?? "").startsWith("-"); i += 1) {
    const w = words[i] ?? "";
    const flag = w.slice(0, 2);
    if (SSH_VALUE_OPTIONS.has(flag)) {
      if (w.length > 2) options.push([flag, w.slice(2)]);
      else options.push([flag, words[(i += 1)] ?? ""]);
    } else {
      for (const letter of w.slice(1)) options.push([`-${letter}`, ""]);
    }
  }
  const destination = words[i] ?? "";
  // `ssh host -o X=y cmd`: options may follow the destination too.
  const rest = words.slice(i + 1);
  const remote: string[] = [];
  for (let j = 0; j < rest.length; j += 1) {
    const w = rest[j] ?? "";
    if (remote.length === 0 && SSH_VALUE_OPTIONS.has(w.slice(0, 2)) && w.startsWith("-")) {
      options.push([w.slice(0, 2), w.length > 2 ? w.slice(2) : rest[(j += 1)] ?? ""]);
    } else remote.push(w);
  }
  return destination === "" ? undefined : { options, destination, remote };
}

/** Forwarding, a terminal, no command, a config file, a jump or a shared master: a session or a tunnel. */
const SESSION_FLAGS = new Set(["-D", "-R", "-L", "-W", "-N", "-t", "-f", "-M", "-S", "-F", "-J", "-O"]);

/** The -o settings an automation's ssh uses; any other (ProxyCommand, LocalCommand, *Forward, Control*) makes it more. */
const PLAIN_SSH_SETTINGS = new Set([
  "batchmode", "stricthostkeychecking", "connecttimeout", "kbdinteractiveauthentication", "passwordauthentication",
  "gssapiauthentication", "pubkeyauthentication", "port", "user", "identityfile", "identitiesonly", "loglevel",
  "serveraliveinterval", "serveralivecountmax", "connectionattempts", "hostkeyalgorithms", "preferredauthentications",
  "numberofpasswordprompts", "userknownhostsfile", "globalknownhostsfile", "checkhostip", "compression", "addressfamily",
]);

/** Only plain settings and no session flags. */
function plainOneShot(ssh: SshInvocation): boolean {
  return ssh.options.every(([flag, value]) => !SESSION_FLAGS.has(flag) && (flag !== "-o" || PLAIN_SSH_SETTINGS.has(value.split("=")[0]?.toLowerCase() ?? "")));
}

function identityFile(ssh: SshInvocation): string[] {
  return ssh.options.flatMap(([flag, value]) => (flag === "-i" ? [value] : flag === "-o" && /^IdentityFile=/i.test(value) ? [value.slice(value.indexOf("=") + 1)] : []));
}

const SALT_SSH_KEY = "/etc/salt/pki/master/ssh/salt-ssh.rsa";

function saltSsh(cmdline: string): boolean {
  // The shim goes to /bin/sh on the far side (the heredoc is the local shell's, seen in some process listings).
  const ssh = sshInvocation(cmdline.replace(/ << 'EOF'$/, ""));
  if (!ssh || !plainOneShot(ssh)) return false;
  const keys = identityFile(ssh);
  return keys.length > 0 && keys.every((k) => k === SALT_SSH_KEY) && ssh.remote.length === 1 && ssh.remote[0] === "/bin/sh";
}

const MONITORING_PLUGIN = /^\/usr\/(?:lib(?:64)?|libexec)\/(?:nagios\/plugins|monitoring-plugins)\/check_[\w.-]+$/;

function checkBySsh(cmdline: string): boolean {
  const ssh = sshInvocation(cmdline);
  const plugin = ssh?.remote[0] ?? "";
  return ssh !== undefined && plainOneShot(ssh) && MONITORING_PLUGIN.test(plugin) && !/\/check_by_ssh$/.test(plugin);
}

/**
 * An ssh client (the command line's first word) whose remote command is `remote`, with no shell syntax anywhere on
 * the line (`; | & $ \``, a newline): `ssh host rsync --server ...; bash -i` is no transfer. Anchored lookaheads only,
 * each one scan of the line.
 */
function sshRunning(remote: string, also?: string): RegExp {
  return new RegExp(String.raw`^(?=(?:\S*/)?ssh\s)(?![\s\S]*[;|&$\`\n])(?=.*\s${remote})${also !== undefined ? String.raw`(?=.*${also})` : ""}`);
}

/**
 * SSH whose remote command is the server side of a data transfer: a backup or replication job, not a person's session
 * (the client starts it with the command on its own command line).
 */
export const DATA_TRANSFER_SSH: readonly CommandPattern[] = [
  { id: "transfer:rsync-ssh", re: sshRunning(String.raw`rsync\s+--server\b`), source: { kind: "doc", name: "rsync(1): over a remote shell, rsync runs `rsync --server` on the other end through ssh", url: "https://download.samba.org/pub/rsync/rsync.1" } },
  { id: "transfer:borg-serve", re: sshRunning(String.raw`borg\s+serve\b`), source: { kind: "doc", name: "Borg docs: remote repositories over ssh run `borg serve` on the server", url: "https://borgbackup.readthedocs.io/en/stable/usage/serve.html" } },
  { id: "transfer:zfs-receive", re: sshRunning(String.raw`(?:zfs\s+(?:recv|receive)|btrfs\s+receive)\b`), source: { kind: "doc", name: "zfs-send(8)/zfs-receive(8) and btrfs-receive(8): `zfs send ... | ssh host zfs receive` replication (syncoid, zrepl)", url: "https://openzfs.github.io/openzfs-docs/man/master/8/zfs-receive.8.html" } },
  { id: "transfer:pve-replication", re: sshRunning(String.raw`pvesm\s+import\b`, String.raw`\s-o\s*HostKeyAlias=`), source: { kind: "doc", name: "Proxmox VE Administration Guide, Storage Replication (pvesr): the source node runs `pvesm import` on the target over SSH as root", url: "https://pve.proxmox.com/pve-docs/chapter-pvesr.html" } },
];

/**
 * Daemons whose job opens admin-protocol connections inside the site: a domain member's winbindd and SSSD talk SMB and
 * RPC to the domain controllers; a vulnerability scanner's engine logs in over SSH and SMB to the hosts it checks.
 */
export const ADMIN_PORT_DAEMONS: ReadonlyArray<{
  id: string;
  paths: readonly string[];
  /** A runtime (its executable's path) whose command line must run this (what it runs, not any mention). */
  runtime?: { java: RegExp; runs: RegExp };
  ports: readonly number[] | "any";
  source: SourceRef;
}> = [
  {
    id: "backup:pgbackrest-ssh",
    paths: ["/usr/bin/pgbackrest"],
    ports: [22],
    source: { kind: "doc", name: "pgBackRest user guide, \"Dedicated Repository Host\": the database host and the repository host reach each other over SSH (repo1-host, pg1-host)", url: "https://pgbackrest.org/user-guide.html#repo-host" },
  },
  {
    id: "admin:cockpit-ssh",
    paths: ["/usr/libexec/cockpit-ws", "/usr/libexec/cockpit-ssh", "/usr/lib/cockpit/cockpit-ws", "/usr/lib/cockpit/cockpit-ssh"],
    ports: [22],
    source: { kind: "doc", name: "Cockpit guide, \"Managing multiple hosts\": cockpit-ws reaches the other machines over SSH (cockpit-ssh)", url: "https://cockpit-project.org/guide/latest/feature-machines" },
  },
  {
    // A remote-desktop gateway's daemon: every RDP, VNC or SSH session a user opens in the browser is its connection.
    id: "admin:guacamole-guacd",
    paths: ["/usr/sbin/guacd", "/usr/local/sbin/guacd", "/opt/guacamole/sbin/guacd"],
    ports: [22, 3389],
    source: { kind: "doc", name: "Apache Guacamole manual, \"Implementation and architecture\": guacd, the proxy daemon, makes the RDP, VNC and SSH connections for the web application's users", url: "https://guacamole.apache.org/doc/gug/guacamole-architecture.html" },
  },
  {
    id: "ci:jenkins-ssh-agents",
    paths: [],
    // The JVM's own options (-D, -X) and then `-jar <jenkins.war>`: no -cp, -javaagent or another -jar before it.
    runtime: { java: /^(?:\/usr\/lib\/jvm\/[^/\s]+\/bin\/java|\/usr\/bin\/java|\/opt\/java\/[^/\s]+\/bin\/java)$/, runs: /^\S+(?:\s+-[DX]\S*)*\s+-jar\s+(?:\/usr\/share\/java|\/usr\/share\/jenkins|\/usr\/lib\/jenkins|\/opt\/jenkins|\/var\/lib\/jenkins)\/jenkins\.war(?:\s|$)/ },
    ports: [22],
    source: { kind: "doc", name: "Jenkins SSH Build Agents plugin: the controller launches its agents over SSH from its own JVM", url: "https://plugins.jenkins.io/ssh-slaves/" },
  },
  {
    id: "directory:domain-member",
    // winbindd's children (`wb[DOMAIN]`, `wb-idmap`) run the same executable.
    paths: ["/usr/sbin/winbindd", "/usr/libexec/sssd/sssd_be", "/usr/lib/x86_64-linux-gnu/sssd/sssd_be", "/usr/sbin/adcli"],
    ports: [88, 135, 389, 445, 636, 3268],
    source: { kind: "doc", name: "Samba winbindd(8) and SSSD's AD provider: a domain member keeps SMB/RPC (445, 135), Kerberos and LDAP connections to its domain controllers", url: "https://www.samba.org/samba/docs/current/man-html/winbindd.8.html" },
  },
  {
    id: "scanner:vulnerability",
    paths: ["/usr/sbin/openvas", "/usr/local/sbin/openvas", "/usr/bin/openvas", "/usr/sbin/gvmd", "/usr/local/sbin/gvmd", "/opt/nessus/sbin/nessusd", "/opt/nessus/sbin/nasl"],
    ports: "any",
    source: { kind: "doc", name: "Greenbone/OpenVAS and Nessus: authenticated scans log in to targets over SSH and SMB", url: "https://docs.greenbone.net/GSM-Manual/gos-22.04/en/scanning.html#using-authenticated-scans" },
  },
];

/** Unit directories that belong to installed packages (admins and attackers write /etc/systemd/system instead). */
export const PACKAGED_UNIT_DIRS = {
  id: "systemd:package-unit-dir",
  dirs: ["/usr/lib/systemd/system/", "/lib/systemd/system/", "/usr/lib/systemd/user/"] as readonly string[],
  source: { kind: "doc", name: "systemd.unit(5): unit load path, /usr/lib/systemd/system for units of installed packages", url: "https://www.freedesktop.org/software/systemd/man/latest/systemd.unit.html" } as SourceRef,
} as const;

/** Vendor installers documented as `curl ... | sh` (the URL is the vendor's own). */
export const VENDOR_INSTALLERS: readonly CommandPattern[] = [
  { id: "installer:docker", re: /https:\/\/get\.docker\.com(?:\/rootless)?\/?(?:\s|\||$)/i, source: { kind: "doc", name: "Docker docs: Install using the convenience script (curl -fsSL https://get.docker.com)", url: "https://docs.docker.com/engine/install/debian/#install-using-the-convenience-script" } },
  { id: "installer:rustup", re: /https:\/\/sh\.rustup\.rs\b/i, source: { kind: "doc", name: "rustup.rs: curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh", url: "https://rustup.rs/" } },
  { id: "installer:nvm", re: /https:\/\/raw\.githubusercontent\.com\/nvm-sh\/nvm\/v[\d.]+\/install\.sh\b/i, source: { kind: "doc", name: "nvm README: Install & Update Script", url: "https://github.com/nvm-sh/nvm#install--update-script" } },
  { id: "installer:nodesource", re: /https:\/\/deb\.nodesource\.com\/setup_[\w.]+\b/i, source: { kind: "doc", name: "NodeSource distributions README (curl -fsSL https://deb.nodesource.com/setup_20.x | bash -)" } },
  { id: "installer:poetry", re: /https:\/\/install\.python-poetry\.org\b/i, source: { kind: "doc", name: "Poetry docs: official installer", url: "https://python-poetry.org/docs/#installing-with-the-official-installer" } },
  { id: "installer:helm", re: /https:\/\/raw\.githubusercontent\.com\/helm\/helm\/main\/scripts\/get-helm-3\b|https:\/\/get\.helm\.sh\//i, source: { kind: "doc", name: "Helm docs: Installing Helm from script", url: "https://helm.sh/docs/intro/install/" } },
  { id: "installer:tailscale", re: /https:\/\/tailscale\.com\/install\.sh\b/i, source: { kind: "doc", name: "Tailscale docs: install script", url: "https://tailscale.com/download/linux" } },
  { id: "installer:bun", re: /https:\/\/bun\.sh\/install\b/i, source: { kind: "doc", name: "Bun docs: curl -fsSL https://bun.sh/install | bash", url: "https://bun.sh/docs/installation" } },
  { id: "installer:uv", re: /https:\/\/astral\.sh\/uv\/(?:[\d.]+\/)?install\.sh\b/i, source: { kind: "doc", name: "uv docs: standalone installer", url: "https://docs.astral.sh/uv/getting-started/installation/" } },
  { id: "installer:k3s", re: /https:\/\/get\.k3s\.io\/?(?:\s|\||$)/i, source: { kind: "doc", name: "K3s quick-start: curl -sfL https://get.k3s.io | sh -", url: "https://docs.k3s.io/quick-start" } },
  { id: "installer:oh-my-zsh", re: /https:\/\/raw\.githubusercontent\.com\/ohmyzsh\/ohmyzsh\/master\/tools\/install\.sh\b/i, source: { kind: "doc", name: "Oh My Zsh: basic installation", url: "https://ohmyz.sh/#install" } },
  { id: "installer:pnpm", re: /https:\/\/get\.pnpm\.io\/install\.sh\b/i, source: { kind: "doc", name: "pnpm docs: curl -fsSL https://get.pnpm.io/install.sh | sh -", url: "https://pnpm.io/installation" } },
  { id: "installer:ollama", re: /https:\/\/ollama\.com\/install\.sh\b/i, source: { kind: "doc", name: "Ollama docs: curl -fsSL https://ollama.com/install.sh | sh", url: "https://ollama.com/download/linux" } },
  { id: "installer:deno", re: /https:\/\/deno\.land\/install\.sh\b/i, source: { kind: "doc", name: "Deno docs: curl -fsSL https://deno.land/install.sh | sh", url: "https://docs.deno.com/runtime/getting_started/installation/" } },
  { id: "installer:homebrew", re: /https:\/\/raw\.githubusercontent\.com\/Homebrew\/install\/HEAD\/install\.sh\b/, source: { kind: "doc", name: "Homebrew: /bin/bash -c \"$(curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)\"", url: "https://brew.sh/" } },
  { id: "installer:sdkman", re: /https:\/\/get\.sdkman\.io\/?(?:\?\S*)?(?:\s|\||$)/i, source: { kind: "doc", name: "SDKMAN!: curl -s \"https://get.sdkman.io\" | bash", url: "https://sdkman.io/install" } },
  { id: "installer:starship", re: /https:\/\/starship\.rs\/install\.sh\b/i, source: { kind: "doc", name: "Starship: curl -sS https://starship.rs/install.sh | sh", url: "https://starship.rs/guide/" } },
  { id: "installer:anchore", re: /https:\/\/raw\.githubusercontent\.com\/anchore\/(?:grype|syft)\/main\/install\.sh\b|https:\/\/get\.anchore\.io\/(?:grype|syft)\b/i, source: { kind: "doc", name: "Grype and Syft READMEs: curl -sSfL https://raw.githubusercontent.com/anchore/grype/main/install.sh | sh -s -- -b /usr/local/bin", url: "https://github.com/anchore/grype#installation" } },
  { id: "installer:trivy", re: /https:\/\/raw\.githubusercontent\.com\/aquasecurity\/trivy\/main\/contrib\/install\.sh\b/i, source: { kind: "doc", name: "Trivy docs: install script (curl -sfL https://raw.githubusercontent.com/aquasecurity/trivy/main/contrib/install.sh | sh -s -- -b /usr/local/bin)", url: "https://trivy.dev/latest/getting-started/installation/" } },
  { id: "installer:linuxgsm", re: /https:\/\/linuxgsm\.sh\/?(?:\s|&|;|$)/i, source: { kind: "doc", name: "LinuxGSM: wget -O linuxgsm.sh https://linuxgsm.sh && chmod +x linuxgsm.sh && bash linuxgsm.sh <server>", url: "https://linuxgsm.com/" } },
  { id: "installer:gitlab", re: /https:\/\/packages\.gitlab\.com\/install\/repositories\/(?:runner\/gitlab-runner|gitlab\/gitlab-ce|gitlab\/gitlab-ee)\/script\.(?:deb|rpm)\.sh\b/i, source: { kind: "doc", name: "GitLab Runner docs: curl -L \"https://packages.gitlab.com/install/repositories/runner/gitlab-runner/script.deb.sh\" | sudo bash (packagecloud's repository set-up script)", url: "https://docs.gitlab.com/runner/install/linux-repository/" } },
  { id: "installer:datadog-agent", re: /https:\/\/(?:s3\.amazonaws\.com\/dd-agent\/scripts|install\.datadoghq\.com\/scripts)\/install_script(?:_agent7)?\.sh\b/i, source: { kind: "doc", name: "Datadog Agent: Linux install script", url: "https://docs.datadoghq.com/agent/basic_agent_usage/" } },
];

/** Programs that legitimately execute from temp directories, by the path layout their docs describe. */
export const TEMP_EXECUTION: readonly CommandPattern[] = [
  { id: "tmp-exec:go-run", re: /^\/tmp\/go-build\d+\/b\d+\/exe\/[^/]+$/, source: { kind: "doc", name: "Go command docs: go run compiles into a temporary work directory ($GOTMPDIR, go-build*)", url: "https://pkg.go.dev/cmd/go#hdr-Compile_and_run_Go_program" } },
  { id: "tmp-exec:go-test", re: /^\/tmp\/go-build\d+\/b\d+\/[^/]+\.test$/, source: { kind: "doc", name: "Go command docs: go test builds each package's test binary (pkg.test) in the temporary work directory and runs it from there", url: "https://pkg.go.dev/cmd/go#hdr-Test_packages" } },
  { id: "tmp-exec:cargo-install", re: /^\/tmp\/cargo-install[A-Za-z0-9]+\/(?:release|debug)\/build\/[^/]+\/build-script-[^/]+$/, source: { kind: "doc", name: "The Cargo Book, cargo install: builds in a temporary target directory and runs build scripts from it", url: "https://doc.rust-lang.org/cargo/commands/cargo-install.html" } },
  { id: "tmp-exec:appimage", re: /^\/tmp\/\.mount_[A-Za-z0-9]{6}\/[^/]+(?:\/[^/]+)*$/, source: { kind: "doc", name: "AppImage docs: the runtime mounts the image at /tmp/.mount_XXXXXX and runs AppRun", url: "https://docs.appimage.org/introduction/concepts.html" } },
  // Gentoo's Portage builds each package in PORTAGE_TMPDIR (/var/tmp by default) and runs its test suite there, as the
  // portage user (uid 250, acct-user/portage) under FEATURES=userpriv: only that user's processes.
  { id: "tmp-exec:portage", re: /^\/var\/tmp\/portage\/[a-z0-9][a-z0-9+_.-]*\/[A-Za-z0-9+_.-]+\/(?:work|temp|image|homedir)\//, uids: ["250"], source: { kind: "doc", name: "Gentoo Handbook and make.conf(5): PORTAGE_TMPDIR=/var/tmp, packages built in $PORTAGE_TMPDIR/portage/<category>/<package>-<version>/work, as the portage user (uid 250) with FEATURES=userpriv", url: "https://wiki.gentoo.org/wiki/PORTAGE_TMPDIR" } },
  { id: "tmp-exec:pyinstaller", re: /^\/tmp\/_MEI\d+\/[^/]+$/, source: { kind: "doc", name: "PyInstaller docs: one-file bundles unpack to a _MEIxxxxxx folder in the temp directory", url: "https://pyinstaller.org/en/stable/operating-mode.html#how-the-one-file-program-works" } },
];

/**
 * A Kubernetes FlexVolume driver: the kubelet runs `<dir>/<vendor>~<driver>/<driver> <verb> ...` for each volume
 * operation. Image-based nodes (OpenShift 4's RHCOS, k0s with a read-only /usr) keep the plugin directory under /etc.
 * Only the exact layout, run by the kubelet itself with one of the driver API's verbs.
 */
export const FLEXVOLUME_DRIVER = {
  id: "k8s:flexvolume-driver",
  path: /^\/etc\/(?:kubernetes\/kubelet-plugins\/volume\/exec|kubernetes\/volumeplugins|k0s\/kubelet-plugins\/volume\/exec)\/[^/~]+~([^/]+)\/([^/]+)$/,
  parents: new Set(["kubelet", "hyperkube"]),
  /** Where the kubelet itself runs from (packages, kubeadm, Flatcar's /opt/bin, k0s). */
  parentPaths: /^\/(?:usr\/(?:local\/)?bin|opt\/bin|var\/lib\/k0s\/bin)\/(?:kubelet|hyperkube)$/,
  verbs: new Set(["init", "attach", "detach", "waitforattach", "isattached", "mountdevice", "unmountdevice", "mount", "unmount", "getvolumename", "expandvolume", "expandfs"]),
  source: { kind: "doc" as const, name: "Kubernetes FlexVolume driver API (the kubelet execs <plugin dir>/<vendor>~<driver>/<driver> <verb>); OpenShift 4 'Installing FlexVolume drivers' (/etc/kubernetes/kubelet-plugins/volume/exec on RHCOS); k0s docs (/etc/k0s/kubelet-plugins when /usr is read-only)", url: "https://github.com/kubernetes/design-proposals-archive/blob/main/storage/flexvolume-deployment.md" },
};
