// Benign look-alikes from ordinary administration: cloud-init defaults, maintenance cron jobs, config-management
// fan-out, admins downloading things, logins through the bastion/VPN, heavy but legitimate CPU, CI doing CI.
import { cron, run, withDecoys, type Family } from "./kit.js";
import { adminKey, rsaKey, GOOD_DESTS, hostileIp } from "./fleet.js";
import { sshSession } from "./base-host.js";
import { containerRow } from "./attacks-container.js";

const cloudInit: Family = {
  name: "cloud-init-defaults", kind: "benign", attack: [], count: 5,
  sources: ["cloud-init docs: disable_root and the 'Please login as the user' forced command", "cloud-init docs: Users and Groups module (sudo: ALL=(ALL) NOPASSWD:ALL)", "Ubuntu cloud images: /etc/sudoers.d/90-cloud-init-users"],
  q: {
    direct: ["any unauthorized SSH keys for root on {host}?", "who can sudo without a password in {env}?", "any NOPASSWD sudo rules on the {role}?", "check root's authorized_keys on {host}"],
    paraphrase: ["could someone log into {host} as the superuser?", "can any account on {host} become admin without a password?", "did anyone give themselves a way back into {host}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const hosts = Array.from({ length: rng.int(1, 3) }, () => ctx.base(rng.pick(["web", "app", "db", "cache", "monitoring"] as const)));
    for (const b of hosts) {
      const u = b.cloudUser.name;
      b.h.add("authorized_keys", { uid: 0, algorithm: "ssh-ed25519", key: adminKey(rng), options: `no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command="echo 'Please login as the user \\"${u}\\" rather than the user \\"root\\".';echo;sleep 10;exit 142"`, comment: `${ctx.fleet.env}-provisioning`, key_file: "/root/.ssh/authorized_keys" });
    }
    return { hosts: hosts.map((b) => ({ b, compromised: false })) };
  },
};

const CRON_JOBS: Array<[string, string, string]> = [
  ["/etc/cron.d/certbot", "0 */12 * * *", "root test -x /usr/bin/certbot -a \\! -d /run/systemd/system && perl -e 'sleep int(rand(43200))' && certbot -q renew"],
  ["/etc/cron.d/restic-backup", "15 2 * * *", "root /usr/local/bin/restic-backup.sh >> /var/log/restic.log 2>&1"],
  ["/etc/cron.d/borgmatic", "0 3 * * *", "root PATH=$PATH:/usr/bin:/usr/local/bin /usr/bin/borgmatic --verbosity -1 --syslog-verbosity 1"],
  ["/etc/cron.d/sysstat", "5-55/10 * * * *", "root command -v debian-sa1 > /dev/null && debian-sa1 1 1"],
  ["/var/spool/cron/crontabs/postgres", "30 1 * * *", "pg_dumpall | gzip > /var/backups/pg/all-$(date +\\%F).sql.gz"],
  ["/etc/cron.d/logrotate-hourly", "0 * * * *", "root /usr/sbin/logrotate /etc/logrotate.hourly.conf"],
  ["/etc/cron.d/mdadm", "57 0 * * 0", "root if [ -x /usr/share/mdadm/checkarray ] && [ $(date +\\%d) -le 7 ]; then /usr/share/mdadm/checkarray --cron --all --idle --quiet; fi"],
  ["/etc/cron.d/geoipupdate", "47 4 * * 3", "root /usr/bin/geoipupdate"],
  ["/etc/cron.d/acme-sh", "7 0 * * *", "root \"/root/.acme.sh\"/acme.sh --cron --home \"/root/.acme.sh\" > /dev/null"],
  ["/etc/cron.d/awscli-s3-sync", "*/30 * * * *", "root aws s3 sync /var/www/uploads s3://acme-prod-uploads/ --only-show-errors"],
  // BIND ARM and Unbound docs: refresh the root hints monthly; a firewall blocklist pulled into a config file.
  ["/etc/cron.d/root-hints", "20 4 1 * *", "root curl -sS -o /etc/bind/db.root https://www.internic.net/domain/named.root && /usr/sbin/rndc reload"],
  ["/etc/cron.d/spamhaus-drop", "40 5 * * *", "root wget -qO /etc/nginx/conf.d/drop.list https://www.spamhaus.org/drop/drop.txt && nginx -s reload"],
];

const cronMaint: Family = {
  name: "maintenance-cron", kind: "benign", attack: [], count: 5,
  sources: ["Debian package certbot: /etc/cron.d/certbot", "BIND 9 ARM: root hints (named.root from www.internic.net)", "Spamhaus DROP list: download instructions", "restic docs: scheduling backups", "borgmatic docs: How to set up backups (cron)", "Debian package sysstat: /etc/cron.d/sysstat"],
  q: {
    direct: ["any malicious cron jobs on {host}?", "check crontabs in {env} for anything suspicious", "is there cron persistence on the {role}?"],
    paraphrase: ["is something set to run on a schedule on {host} that we didn't expect?", "what keeps running every night on {host}?", "is anything coming back on a timer on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "db", "app", "monitoring"] as const));
    for (const [path, sched, cmd] of rng.sample(CRON_JOBS, rng.int(2, 4))) cron(b.h, path, sched, cmd);
    if (rng.chance(0.5)) run(b.h, { name: "restic", path: "/usr/bin/restic", cmdline: "restic backup --one-file-system /etc /srv /var/lib/postgresql --exclude-caches", ageMin: 60, ageMax: 1_800 });
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const fanout: Family = {
  name: "config-mgmt-fanout", kind: "benign", attack: [], count: 5,
  sources: ["Ansible docs: Connection methods and details (ssh, ControlPersist)", "Salt docs: salt-ssh", "Ansible docs: become"],
  q: {
    direct: ["is there SSH lateral movement between our servers?", "why is one host SSHing into many others in {env}?", "any worm-like spreading over SSH?"],
    paraphrase: ["is something hopping from server to server?", "why are the {role} getting root logins from one machine?", "is one box controlling lots of others?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const mgmt = ctx.base("bastion", { name: `${rng.pick(["mgmt", "ansible", "deploy", "salt-master"])}-0${rng.int(1, 3)}` });
    const targets = Array.from({ length: rng.int(1, 3) }, () => ctx.base(rng.pick(["web", "app", "db", "cache"] as const)));
    const admin = mgmt.admins[0] ?? mgmt.cloudUser;
    const tool = rng.pick(["ansible", "salt-ssh"] as const);
    const bash = sshSession(mgmt.h, rng, mgmt.sshd, admin, ctx.fleet.officeIps[0] ?? "81.2.69.160", "pts/0", mgmt.h.recent(600, 3_600));
    const ap = run(mgmt.h, { name: tool === "ansible" ? "ansible-playboo" : "salt-ssh", path: "/usr/bin/python3.12", cmdline: tool === "ansible" ? "/usr/bin/python3 /usr/bin/ansible-playbook -i inventory/prod site.yml --limit webservers -b" : "/usr/bin/python3 /usr/bin/salt-ssh '*' state.apply", uid: admin.uid, parent: bash, cwd: `/home/${admin.name}/infra`, ageMin: 60, ageMax: 500 });
    for (const t of targets) {
      const pid = run(mgmt.h, { name: "ssh", path: "/usr/bin/ssh", cmdline: `ssh -C -o ControlMaster=auto -o ControlPersist=60s -o KbdInteractiveAuthentication=no -o PreferredAuthentications=gssapi-with-mic,gssapi-keyex,hostbased,publickey -o PasswordAuthentication=no -o User="${admin.name}" -o ConnectTimeout=10 -o ControlPath="/home/${admin.name}/.ansible/cp/${rng.hex(10)}" ${t.h.spec.ip} /bin/sh -c 'sudo -H -S -n  -u root /bin/sh -c '"'"'echo BECOME-SUCCESS-${rng.alnum(32)} ; /usr/bin/python3'"'"' && sleep 0'`, uid: admin.uid, parent: ap, ageMin: 30, ageMax: 60 });
      mgmt.h.conn(pid, t.h.spec.ip, 22);
      const acct = t.admins.find((a) => a.name === admin.name) ?? t.cloudUser;
      const tb = sshSession(t.h, rng, t.sshd, acct, mgmt.h.spec.ip, "", t.h.recent(30, 60));
      run(t.h, { name: "python3", path: "/usr/bin/python3.12", cmdline: `/usr/bin/python3 /home/${acct.name}/.ansible/tmp/ansible-tmp-${t.h.now}.${rng.int(100000, 999999)}-${rng.int(1000, 9999)}-${rng.int(1e13, 9e13)}/AnsiballZ_apt.py`, uid: 0, parent: tb, ageMin: 5, ageMax: 20 });
    }
    return { hosts: [{ b: mgmt, compromised: false }, ...targets.map((b) => ({ b, compromised: false }))] };
  },
};

const DOWNLOADS = [
  "wget https://github.com/prometheus/node_exporter/releases/download/v1.8.2/node_exporter-1.8.2.linux-amd64.tar.gz", "curl -LO https://dl.k8s.io/release/v1.30.4/bin/linux/amd64/kubectl",
  "curl -fsSL https://download.docker.com/linux/ubuntu/gpg | sudo gpg --dearmor -o /etc/apt/keyrings/docker.gpg", "wget -qO- https://packages.grafana.com/gpg.key | sudo apt-key add -",
  "curl -sSL https://raw.githubusercontent.com/helm/helm/main/scripts/get-helm-3 | bash", "wget https://www.postgresql.org/media/keys/ACCC4CF8.asc", "sudo apt-get install -y jq htop",
  "curl -O https://releases.hashicorp.com/terraform/1.9.5/terraform_1.9.5_linux_amd64.zip", "tar xzf node_exporter-1.8.2.linux-amd64.tar.gz", "curl -s https://ifconfig.me",
  "pip install --user awscli", "curl -sS https://bootstrap.pypa.io/get-pip.py -o get-pip.py", "sudo dnf install -y tmux", "wget https://github.com/restic/restic/releases/download/v0.17.1/restic_0.17.1_linux_amd64.bz2",
];

const adminDownloads: Family = {
  name: "admin-downloads", kind: "benign", attack: [], count: 5,
  sources: ["Docker docs: Install Docker Engine on Ubuntu", "Helm docs: Installing Helm (get-helm-3 script)", "Kubernetes docs: Install kubectl on Linux", "prometheus/node_exporter releases"],
  q: {
    direct: ["did anyone download tools onto {host}?", "any curl | bash or wget activity in {env}?", "check the {role} for ingress tool transfer", "any download-and-execute on {host}?"],
    paraphrase: ["did someone bring programs from the internet onto {host}?", "what was fetched onto {host} recently?", "is anyone installing things they shouldn't on the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["monitoring", "app", "web", "bastion", "k8s"] as const));
    const a = b.admins[0] ?? b.cloudUser;
    b.h.history(a.uid, a.home, ["cd ~", ...rng.sample(DOWNLOADS, rng.int(3, 6))], b.h.recent(600, 86_400 * 2));
    b.h.file(`${a.home}/node_exporter-1.8.2.linux-amd64.tar.gz`, { uid: a.uid, gid: a.uid, size: 10_676_343, mode: "0664" });
    if (rng.chance(0.4)) {
      const pid = run(b.h, { name: "apt-get", path: "/usr/bin/apt-get", cmdline: "apt-get install -y jq htop", uid: 0, ageMin: 10, ageMax: 60 });
      const m = run(b.h, { name: "http", path: "/usr/lib/apt/methods/http", cmdline: "/usr/lib/apt/methods/http", uid: 42, parent: pid, ageMin: 10, ageMax: 10 });
      b.h.conn(m, rng.pick(GOOD_DESTS.archive), 80);
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const bastionLogins: Family = {
  name: "bastion-vpn-logins", kind: "benign", attack: [], count: 5,
  sources: ["OpenSSH manual: ProxyJump", "AWS docs: Linux bastion hosts", "Teleport/OpenSSH bastion deployment guides"],
  q: {
    direct: ["any SSH logins from public IP addresses on {host}?", "who logged into the {role} from the internet?", "any suspicious interactive logins in {env}?"],
    paraphrase: ["is someone from outside logged into {host}?", "who has been getting into the {role} and from where?", "did a stranger sign in to {host}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base("bastion");
    const h = b.h;
    const office = ctx.fleet.officeIps[0] ?? "81.2.69.160";
    for (const a of b.admins) {
      const bash = sshSession(h, rng, b.sshd, a, office.replace(/\d+$/, String(rng.int(2, 250))), `pts/${rng.int(0, 6)}`, h.recent(300, 20_000));
      if (rng.chance(0.6)) {
        const t = `${ctx.fleet.prefix}${rng.int(10, 250)}`;
        const s = run(h, { name: "ssh", path: "/usr/bin/ssh", cmdline: `ssh ${a.name}@${t}`, uid: a.uid, parent: bash, ageMin: 60, ageMax: 200 });
        h.conn(s, t, 22);
      }
      h.add("last", { username: a.name, tty: "pts/2", pid: h.allocPid(), type: 7, type_name: "user-process", time: h.recent(86_400, 86_400 * 5), host: office });
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const newAdmin: Family = {
  name: "admin-user-onboarding", kind: "benign", attack: [], count: 5,
  sources: ["Ansible docs: ansible.builtin.user module", "Ubuntu Server docs: User management (adduser, sudo group)", "Debian adduser(8)"],
  q: {
    direct: ["any new privileged local accounts on {host}?", "who was added to sudo recently in {env}?", "any unauthorized SSH keys on the {role}?"],
    paraphrase: ["did someone make themselves an account on {host}?", "who new can become admin on the {role}?", "are there logins on {host} we don't know about?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const hosts = Array.from({ length: rng.int(1, 3) }, () => ctx.base(rng.pick(["web", "app", "db", "bastion"] as const)));
    const name = rng.pick(["nsato", "rkumar", "lmoreno", "tbrown", "ezhou", "pgarcia"]);
    const key = rng.chance(0.5) ? adminKey(rng) : rsaKey(rng);
    for (const b of hosts) {
      const uid = 1010 + rng.int(0, 5);
      b.h.add("users", { uid, gid: uid, uid_signed: uid, gid_signed: uid, username: name, description: `${name},,,`, directory: `/home/${name}`, shell: "/bin/bash", uuid: "" });
      b.h.add("user_groups", { uid, gid: b.h.spec.distro.pkg === "deb" ? 27 : 10 });
      b.h.add("authorized_keys", { uid, algorithm: key.startsWith("AAAAB3") ? "ssh-rsa" : "ssh-ed25519", key, options: "", comment: `${name}@acme-laptop`, key_file: `/home/${name}/.ssh/authorized_keys` });
      b.h.add("shadow", { password_status: "locked", hash_alg: "", last_change: Math.floor(b.h.now / 86_400) - 1, min: 0, max: 99999, warning: 7, inactive: -1, expire: -1, flag: -1, username: name });
    }
    return { hosts: hosts.map((b) => ({ b, compromised: false })) };
  },
};

const HOT: Array<[string, string, string, number]> = [
  ["ffmpeg", "/usr/bin/ffmpeg", "ffmpeg -hide_banner -i /srv/media/incoming/{id}.mov -c:v libx264 -preset slow -crf 22 -c:a aac /srv/media/out/{id}.mp4", 1500],
  ["zstd", "/usr/bin/zstd", "zstd -T0 -19 /var/backups/pg/all-2024.sql", 0],
  ["java", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java -Xmx8g -jar /opt/reports/report-batch.jar --month=current", 1500],
  ["make", "/usr/bin/make", "make -j16 bzImage modules", 0], ["clamscan", "/usr/bin/clamscan", "clamscan -r -i /srv/uploads", 0],
  ["python3", "/usr/bin/python3.12", "/opt/ml/venv/bin/python3 train.py --epochs 40 --workers 8", 1500],
];

const hotCpu: Family = {
  name: "legit-high-cpu", kind: "benign", attack: [], count: 5,
  sources: ["FFmpeg documentation: H.264 encoding guide", "zstd manual", "Prometheus node_exporter: CPU saturation alerting guide"],
  q: {
    direct: ["any cryptominers on {host}?", "is there a Monero miner running in {env}?", "any stratum connections from the {role}?"],
    paraphrase: ["is something eating all the CPU on {host}?", "why is {host} pegged at 100% CPU?", "what is making the {role} so slow?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["app", "db", "ci-runner", "monitoring"] as const));
    const [name, path, cmd, uid] = rng.pick(HOT);
    const pid = run(b.h, { name, path, cmdline: cmd.replace(/\{id\}/g, rng.hex(8)), uid, cwd: "/srv", ageMin: 600, ageMax: 14_400, threads: b.h.spec.cpus });
    const row = b.h.rows("processes").find((r) => r.pid === String(pid));
    if (row) {
      row.user_time = String((b.h.now - Number(row.start_time)) * 1000 * b.h.spec.cpus * 0.85);
      row.state = "R";
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

const ciNormal: Family = {
  name: "ci-normal", kind: "benign", attack: [], count: 5,
  sources: ["GitHub docs: About self-hosted runners (communication with GitHub)", "GitLab docs: Use Docker to build Docker images (docker:dind, privileged)", "npm docs: registry.npmjs.org"],
  q: {
    direct: ["is a CI job exfiltrating data from {host}?", "any privileged containers on the CI runners?", "any CI runner connecting to unusual destinations in {env}?", "any downloads piped to a shell on the {role}?"],
    paraphrase: ["is a build on {host} sending our secrets somewhere?", "did one of the build machines talk to a strange server?", "is anything odd happening on the build boxes?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base("ci-runner");
    const h = b.h;
    const runner = b.svc.runner ?? 1;
    const uid = Number(h.rows("processes").find((p) => p.pid === String(runner))?.uid ?? "999");
    const work = uid === 1600 ? "/home/runner/work/app/app" : `/home/gitlab-runner/builds/${rng.alnum(8)}/0/acme/app`;
    const sh = run(h, { name: "bash", path: "/usr/bin/bash", cmdline: `/usr/bin/bash -e ${uid === 1600 ? `/home/runner/work/_temp/${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}.sh` : "/tmp/build-script"}`, uid, parent: runner, cwd: work, ageMin: 30, ageMax: 900 });
    const npm = run(h, { name: "npm ci", path: "/usr/bin/node", cmdline: "npm ci --no-audit --no-fund", uid, parent: sh, cwd: work, ageMin: 20, ageMax: 20 });
    h.conn(npm, rng.pick(GOOD_DESTS.npm), 443);
    const git = run(h, { name: "git", path: "/usr/bin/git", cmdline: "git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin", uid, parent: sh, cwd: work, ageMin: 20, ageMax: 20 });
    h.conn(git, rng.pick(GOOD_DESTS.github), 443);
    if (rng.chance(0.6)) {
      const c = containerRow(h, rng, { name: `runner-${rng.alnum(8)}-project-${rng.int(100, 999)}-concurrent-0-${rng.hex(16)}-docker-0`, image: "docker:27-dind", command: "dockerd-entrypoint.sh", privileged: true, ageMin: 60, ageMax: 900 });
      void c;
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: false }] });
  },
};

// An analyst hunting for an indicator from a threat report: log searches, a lookup, a firewall block. The indicator
// is in shell history; the host never talked to it.
const iocHunt: Family = {
  name: "analyst-ioc-hunt", kind: "benign", attack: [], count: 4,
  sources: ["CISA advisories: 'search logs for the listed IP addresses and domains' (incident response guidance)", "iptables(8): -j DROP", "fail2ban-client(1): set <jail> banip", "dig(1), whois(1)"],
  q: {
    direct: ["any sign of the attacker's infrastructure on {host}?", "did anything in {env} talk to the IPs in the CISA alert?"],
    paraphrase: ["are we affected by the campaign in today's threat report?", "has {host} been in touch with known bad addresses?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["bastion", "monitoring", "web"] as const));
    const ip = hostileIp(rng);
    const domain = `${rng.pick(["cdn-sync", "update-check", "api-telemetry", "static-assets"])}-${rng.int(10, 99)}.${rng.pick(["xyz", "top", "online"])}`;
    const user = rng.pick(b.admins.length > 0 ? b.admins : [b.cloudUser]);
    const cmds = rng.sample([
      `sudo zgrep -c ${ip} /var/log/nginx/access.log*`,
      `sudo grep -rn "${ip}" /var/log/auth.log /var/log/syslog | tail -20`,
      `sudo journalctl --since "-7d" | grep -i ${domain}`,
      `dig +short ${domain}`,
      `whois ${ip} | grep -iE 'orgname|country'`,
      `sudo ss -tnp dst ${ip}`,
      `sudo iptables -I OUTPUT -d ${ip} -j DROP`,
      `sudo fail2ban-client set sshd banip ${ip}`,
    ], rng.int(3, 5));
    b.h.history(user.uid, user.home, ["cd /tmp", ...cmds, "history | tail"], b.h.recent(600, 86_400));
    return withDecoys(ctx, { hosts: [{ b, compromised: false }], indicators: [ip, domain] });
  },
};

export const BENIGN_ADMIN_FAMILIES: Family[] = [cloudInit, cronMaint, fanout, adminDownloads, bastionLogins, newAdmin, hotCpu, ciNormal, iocHunt];
