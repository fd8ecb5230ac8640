// Accounts that packages and cloud images create: base-passwd's static list, daemon users made by maintainer
// scripts or sysusers.d, vendor packages' service users, and the default users of cloud images (cloud-init).
import type { SourceRef } from "./types.js";

export interface AccountGroup {
  id: string;
  /** Usernames (exact). */
  names: readonly string[];
  /** Shells the packaging gives these accounts; an interactive shell outside this set is not explained. */
  shells: readonly string[];
  /** True for accounts meant for people (cloud default users): interactive shell, passwordless sudo. */
  interactive?: boolean;
  source: SourceRef;
}

const NOLOGIN = ["/usr/sbin/nologin", "/sbin/nologin", "/bin/false", "/usr/bin/false", ""];
const deb = (name: string, version: string, detail: string): SourceRef => ({ kind: "debian-package", name, version, release: "bookworm", detail });

export const ACCOUNT_GROUPS: readonly AccountGroup[] = [
  {
    id: "accounts:base-passwd",
    names: ["daemon", "bin", "sys", "sync", "games", "man", "lp", "mail", "news", "uucp", "proxy", "www-data", "backup", "list", "irc", "_apt", "nobody", "gnats"],
    shells: [...NOLOGIN, "/bin/sync", "/usr/bin/sync"],
    source: deb("base-passwd", "3.6.1", "/usr/share/base-passwd/passwd.master (gnats from bullseye and older)"),
  },
  {
    id: "accounts:root",
    names: ["root"],
    shells: ["/bin/bash", "/usr/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/zsh", "/bin/ash"],
    source: deb("base-passwd", "3.6.1", "/usr/share/base-passwd/passwd.master: root:*:0:0:root:/root:/bin/bash"),
  },
  {
    id: "accounts:systemd",
    names: ["systemd-network", "systemd-resolve", "systemd-timesync", "systemd-journal-remote", "systemd-coredump", "systemd-oom", "messagebus", "polkitd", "tss", "uuidd", "_rpc", "statd", "sshd", "_chrony", "chrony", "ntp", "ntpsec", "tcpdump", "avahi", "rtkit", "dnsmasq", "colord", "geoclue", "fwupd-refresh", "usbmux", "landscape", "pollinate", "lxd", "_lxd", "syslog", "dhcpcd", "_laurel", "sssd", "nm-openvpn", "saned", "pulse", "speech-dispatcher", "cups-pk-helper", "kernoops", "whoopsie", "hplip", "_flatpak", "tpm2"],
    shells: NOLOGIN,
    source: deb("systemd 252.39-1~deb12u2 sysusers.d; openssh-server, chrony, polkitd, dbus, uuid-runtime, nfs-common, rpcbind, tcpdump, avahi-daemon, rtkit, dnsmasq-base, colord, geoclue-2.0, fwupd, pollinate, lxd, sssd-common", "", "adduser --system / useradd --system in postinst, u lines in sysusers.d"),
  },
  {
    id: "accounts:mail-dns-web",
    names: ["postfix", "Debian-exim", "dovecot", "dovenull", "opendkim", "bind", "unbound", "haproxy", "nginx", "apache", "httpd", "varnish", "vcache", "varnishlog", "squid", "smmta", "smmsp", "debian-tor", "Debian-snmp", "snmp", "clamav", "debian-spamd", "nagios", "zabbix", "munin", "nut", "mosquitto", "influxdb", "caddy"],
    shells: NOLOGIN,
    source: deb("postfix, exim4-base, dovecot-core, opendkim, bind9, unbound, haproxy, varnish, squid, tor, snmpd, nagios4-common, zabbix-agent, munin, mosquitto, influxdb", "", "adduser --system lines in their postinst; nginx/apache/httpd/caddy users from upstream and RHEL packages"),
  },
  {
    id: "accounts:databases-brokers",
    names: ["mysql", "redis", "memcache", "memcached", "mongodb", "mongod", "rabbitmq", "zookeeper", "kafka", "cp-kafka", "elasticsearch", "opensearch", "logstash", "kibana", "cassandra", "clickhouse", "etcd", "couchdb", "neo4j", "nats", "pgbouncer", "proxysql", "minio"],
    shells: [...NOLOGIN, "/bin/sh"],
    source: deb("mariadb-server, redis-tools, memcached, rabbitmq-server, zookeeper (bookworm)", "", "adduser --system ... --shell /bin/false; Elastic, MongoDB, Confluent, ClickHouse upstream .deb/.rpm packaging"),
  },
  {
    id: "accounts:postgres",
    names: ["postgres"],
    shells: [...NOLOGIN, "/bin/bash", "/usr/bin/bash", "/bin/sh"],
    source: deb("postgresql-common", "248+deb12u2", "postinst: adduser --system --home /var/lib/postgresql --shell /bin/bash postgres"),
  },
  {
    id: "accounts:pgbouncer",
    names: ["pgbouncer"],
    shells: [...NOLOGIN, "/bin/bash", "/usr/bin/bash"],
    source: { kind: "doc", name: "PostgreSQL Global Development Group's pgbouncer.spec (the PGDG RPM repository): %pre useradd -m -g pgbouncer -r -s /bin/bash -c \"PgBouncer Server\" pgbouncer" },
  },
  {
    id: "accounts:monitoring",
    names: ["prometheus", "node_exporter", "node-exporter", "alertmanager", "grafana", "loki", "promtail", "telegraf", "dd-agent", "datadog", "newrelic", "nrpe", "nagios", "zabbix", "netdata", "_telegraf", "otelcol", "otelcol-contrib", "vector", "fluent-bit", "td-agent", "filebeat", "metricbeat", "consul", "vault", "nomad", "osquery", "wazuh", "ossec", "falcon", "sensu"],
    shells: NOLOGIN,
    source: deb("prometheus, prometheus-node-exporter, prometheus-alertmanager", "", "adduser --system --gecos 'Prometheus daemon' prometheus; Grafana, Datadog, HashiCorp and Elastic upstream packages; the prometheus.prometheus Ansible collection's node_exporter user"),
  },
  {
    id: "accounts:amavis",
    names: ["amavis"],
    shells: [...NOLOGIN, "/bin/sh"],
    source: deb("amavisd-new", "1:2.13.0-3", "postinst: adduser --system --group --home /var/lib/amavis --shell /bin/sh amavis"),
  },
  {
    id: "accounts:barman",
    names: ["barman"],
    shells: [...NOLOGIN, "/bin/bash", "/usr/bin/bash"],
    source: deb("barman", "3.4.0-1", "postinst: adduser --system --home /var/lib/barman --shell /bin/bash --group barman (it runs rsync and ssh to the PostgreSQL servers through that shell)"),
  },
  {
    id: "accounts:hadoop-ecosystem",
    names: ["hdfs", "yarn", "mapred", "spark", "hive", "hbase", "hue", "oozie", "livy", "zeppelin", "flink", "kudu", "impala", "solr", "sqoop", "trino", "presto", "knox", "ranger", "atlas", "nifi", "storm", "tez"],
    shells: [...NOLOGIN, "/bin/bash", "/usr/bin/bash", "/bin/sh"],
    source: { kind: "doc", name: "Apache Bigtop packaging (bigtop-packages/src: the hadoop, spark, hive, hbase, flink, zeppelin packages' preinst create their service users with a login shell, which their init scripts su into); Cloudera and HDP installs (hdfs, yarn, mapred, spark users with /bin/bash)", url: "https://github.com/apache/bigtop/tree/master/bigtop-packages/src" },
  },
  {
    id: "accounts:ci",
    names: ["gitlab-runner", "jenkins", "buildkite-agent", "github-runner", "actions-runner", "runner", "teamcity", "bamboo", "drone", "concourse", "gitlab-psql", "git", "gitlab-www", "gitlab-redis", "gitlab-prometheus"],
    shells: [...NOLOGIN, "/bin/bash", "/usr/bin/bash", "/bin/sh"],
    source: { kind: "doc", name: "GitLab Runner install docs (useradd --create-home gitlab-runner --shell /bin/bash); Jenkins Debian package (jenkins user, /bin/bash); Buildkite agent packages; GitLab Omnibus users", url: "https://docs.gitlab.com/runner/install/linux-manually/" },
  },
  {
    id: "accounts:cloud-default-user",
    names: ["ubuntu", "admin", "debian", "ec2-user", "centos", "cloud-user", "fedora", "rocky", "almalinux", "opc", "core", "azureuser", "bitnami", "arch", "alpine"],
    shells: ["/bin/bash", "/usr/bin/bash", "/bin/sh", "/bin/ash", "/bin/zsh", "/usr/bin/zsh"],
    interactive: true,
    source: { kind: "doc", name: "cloud-init config/cloud.cfg.tmpl system_info.default_user (ec2-user on Amazon, cloud-user on RHEL/CentOS, the distro name elsewhere); Debian cloud images (admin on AWS); Oracle Cloud (opc); Fedora CoreOS (core); Azure portal default (azureuser)", url: "https://github.com/canonical/cloud-init/blob/main/config/cloud.cfg.tmpl" },
  },
];

export interface CloudSudoRule {
  id: string;
  file: string;
  /** Who the rule is for: the cloud default users, the image's first user (any one user), or a fixed name. */
  who: "cloud-default-user" | "first-user" | string;
  rule: string;
  /** Only on hosts that are this kind of machine (a file name alone is anyone's to take). */
  on?: "raspberry-pi";
  source: SourceRef;
}

/** Passwordless sudo rules that cloud images' agents, and images' first-boot setup, write on every instance. */
export const CLOUD_SUDO_RULES: readonly CloudSudoRule[] = [
  {
    id: "cloud-init:sudoers",
    file: "/etc/sudoers.d/90-cloud-init-users",
    who: "cloud-default-user",
    rule: "ALL=(ALL) NOPASSWD:ALL",
    source: { kind: "doc", name: "cloud-init: default_user sudo [\"ALL=(ALL) NOPASSWD:ALL\"] written to ci_sudoers_fn /etc/sudoers.d/90-cloud-init-users (config/cloud.cfg.tmpl, cloudinit/distros)", url: "https://cloudinit.readthedocs.io/en/latest/reference/modules.html#users-and-groups" },
  },
  {
    id: "gce:google-sudoers",
    file: "/etc/sudoers.d/google_sudoers",
    who: "%google-sudoers",
    rule: "ALL=(ALL:ALL) NOPASSWD:ALL",
    source: { kind: "doc", name: "Google guest environment (google-guest-agent accounts manager): /etc/sudoers.d/google_sudoers for the google-sudoers group", url: "https://cloud.google.com/compute/docs/images/guest-environment" },
  },
  {
    // Raspberry Pi OS gives its first user (pi before April 2022, the one named at first boot since) passwordless sudo.
    id: "raspberry-pi-os:010_pi-nopasswd",
    file: "/etc/sudoers.d/010_pi-nopasswd",
    who: "first-user",
    rule: "ALL=(ALL) NOPASSWD: ALL",
    on: "raspberry-pi",
    source: { kind: "doc", name: "Raspberry Pi documentation, sudo: the first user may use sudo without a password (/etc/sudoers.d/010_pi-nopasswd, written by the image's first-boot user setup)", url: "https://www.raspberrypi.com/documentation/computers/using_linux.html" },
  },
  {
    id: "aws-ssm:ssm-user",
    file: "/etc/sudoers.d/ssm-agent-users",
    who: "ssm-user",
    rule: "ALL=(ALL) NOPASSWD:ALL",
    source: { kind: "doc", name: "AWS Systems Manager User Guide, \"Turn on or turn off ssm-user account administrative permissions\": SSM Agent creates ssm-user with /etc/sudoers.d/ssm-agent-users (ssm-user ALL=(ALL) NOPASSWD:ALL)", url: "https://docs.aws.amazon.com/systems-manager/latest/userguide/session-manager-getting-started-ssm-user-permissions.html" },
  },
];

/** Packages only Raspberry Pi OS installs (the first-boot user setup, the firmware and its kernel). */
const RASPBERRY_PI_PACKAGES: ReadonlySet<string> = new Set(["raspberrypi-sys-mods", "raspi-config", "raspberrypi-kernel", "raspberrypi-bootloader", "rpi-eeprom", "userconf-pi"]);

/** Whether the host is a Raspberry Pi running its OS: one of the OS's own packages, or a driver of a Raspberry Pi's SoC loaded (kmod:raspberrypi). */
export function isRaspberryPi(packages: readonly string[], modules: readonly string[]): boolean {
  if (packages.some((p) => RASPBERRY_PI_PACKAGES.has(p))) return true;
  return modules.some((m) => m === "vchiq" || m === "snd_bcm2835" || /^(?:bcm2835|bcm2711|bcm2712|rp1|raspberrypi|rpi|vc_sm|rpivid)_/.test(m));
}

/** What a sudo rule's host is: a Raspberry Pi, and its first user (uid 1000 with a login shell), when it has one. */
export interface SudoHost {
  raspberryPi: boolean;
  firstUser?: string;
}
