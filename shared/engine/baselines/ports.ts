// Default listening ports of common infrastructure, mapped to the programs that own them. A port is explained
// only when one of its default programs holds it: node_exporter on 9100 is expected, a shell on 9100 is not.
// Programs are matched on processes.name (the kernel's 15-character comm) or the executable's basename.
// `jvm` names a token that must appear in the command line when the owner is a generic runtime (java, beam.smp).
import type { SourceRef } from "./types.js";

export interface PortOwner {
  id: string;
  ports: readonly number[];
  /** Inclusive ranges of ports, beside `ports` (a daemon that takes a port the kernel picks, an instance range). */
  ranges?: ReadonlyArray<readonly [number, number]>;
  /** 6 = TCP, 17 = UDP (osquery listening_ports.protocol); both when absent. */
  protocol?: 6 | 17;
  programs: readonly string[];
  /** Generic runtimes allowed when the command line contains this token (e.g. java + "kafka"). */
  /**
   * A runtime (java, python) whose command line carries `token`; with `script`, the token must be in what the
   * interpreter runs (its script, or `-m module`), not anywhere in its arguments.
   */
  runtime?: { programs: readonly string[]; token: string; script?: true; at?: { interpreter: RegExp; script: RegExp } };
  /**
   * The executable's path, when the owner is known by it alone (`programs` then only names it in summaries): the
   * process must run a matching file under the file's own name. For owners whose ports are wide ranges, where a name
   * anyone can take would explain a backdoor's port (BPFDoor binds in 42391-43390).
   */
  executable?: RegExp;
  /**
   * Which of the owner's ports the program may hold, by what its path or command line says (an SAP program holds only
   * the ports of its own instance number): for owners whose ports span wide ranges.
   */
  fits?: (port: number, program: string, path: string, cmdline: string) => boolean;
  /** Socket held by the kernel (no owning process: VXLAN, WireGuard, NFS). */
  kernel?: boolean;
  source: SourceRef;
}

const PROM_WIKI: SourceRef = { kind: "wiki", name: "Prometheus wiki: Default port allocations", url: "https://github.com/prometheus/prometheus/wiki/Default-port-allocations" };
const K8S_PORTS: SourceRef = { kind: "doc", name: "Kubernetes documentation: Ports and Protocols", url: "https://kubernetes.io/docs/reference/networking/ports-and-protocols/" };
const doc = (name: string, url?: string): SourceRef => (url ? { kind: "doc", name, url } : { kind: "doc", name });
const JAVA = ["java"];
const PYTHONS = ["python", "python3", "python3.8", "python3.9", "python3.10", "python3.11", "python3.12", "python3.13"];

/**
 * An SAP program holds only its own instance's ports (SAP Help, TCP/IP ports of all SAP products): its instance number
 * NN is in its path (/usr/sap/SID/ASCS01/exe) or in its profile's name (pf=/usr/sap/SID/SYS/profile/SID_DVEBMGS00_host);
 * the host agent holds 1128/1129 and SAProuter 3299.
 */
function sapInstancePort(port: number, program: string, path: string, cmdline: string): boolean {
  if (program === "saprouter") return port === 3299;
  if (path.startsWith("/usr/sap/hostctrl/")) return port === 1128 || port === 1129;
  const nn = /^\/usr\/sap\/[A-Z][A-Z0-9]{2}\/[A-Z]+(\d{2})\//.exec(path)?.[1] ?? /\bpf=\S*_[A-Z]+(\d{2})_[^\s/]+(?:\s|$)/.exec(cmdline)?.[1];
  if (nn === undefined) return false;
  const n = Number(nn);
  const java = [0, 1, 2, 3, 4].map((k) => 50000 + n * 100 + k);
  return [3200 + n, 3300 + n, 3600 + n, 8000 + n, 8100 + n, 44300 + n, 50013 + n * 100, 50014 + n * 100, 50016 + n * 100, ...java].includes(port);
}

export const PORT_OWNERS: readonly PortOwner[] = [
  // Remote access and core system services.
  { id: "port:sshd", ports: [22], protocol: 6, programs: ["sshd"], source: doc("OpenSSH sshd_config(5): Port 22 default") },
  // An old, clear-text login service (still the default on many embedded gateways), not a bind shell: one whose login
  // program is a shell is judged as a shell by unexpected-listener.
  { id: "port:telnetd", ports: [23], protocol: 6, programs: ["telnetd", "in.telnetd", "utelnetd"], source: doc("BusyBox telnetd (-l LOGIN, default /bin/login; port 23) and netkit in.telnetd(8)", "https://busybox.net/downloads/BusyBox.html#telnetd") },
  { id: "port:dhcp-client", ports: [68, 546], protocol: 17, programs: ["dhclient", "systemd-networkd", "systemd-network", "NetworkManager", "dhcpcd", "udhcpc", "wicked"], source: doc("RFC 2131 / RFC 8415 client ports; systemd-networkd, dhclient") },
  { id: "port:ntp", ports: [123, 323], protocol: 17, programs: ["chronyd", "ntpd", "ntpsec", "systemd-timesyncd", "systemd-timesyn", "openntpd"], source: doc("chrony.conf(5): port 123, cmdport 323") },
  { id: "port:mdns-llmnr", ports: [5353, 5355], programs: ["avahi-daemon", "systemd-resolved", "systemd-resolve"], source: doc("RFC 6762 (mDNS 5353), RFC 4795 (LLMNR 5355); systemd-resolved.service(8)") },
  { id: "port:rpcbind-nfs", ports: [111], programs: ["rpcbind", "rpc.statd", "rpc.mountd"], source: doc("rpcbind(8): port 111") },
  // statd registers with rpcbind on a port of its own choosing unless nfs.conf pins one: a reserved one it binds to send
  // its notifications from, and the kernel's pick for listening (Linux's ip_local_port_range, 32768-60999 by default).
  { id: "port:rpc-statd-dynamic", ports: [], ranges: [[600, 1023], [32768, 60999]], programs: ["rpc.statd"], executable: /^\/(?:usr\/)?sbin\/rpc\.statd$/, source: doc("rpc.statd(8): without --port, statd lets rpcbind pick its listener port; --outgoing-port likewise (nfs.conf [statd] port=, outgoing-port=)", "https://man7.org/linux/man-pages/man8/statd.8.html") },
  { id: "port:nfs-kernel", ports: [2049], kernel: true, programs: ["rpc.mountd"], source: doc("nfsd(7): kernel NFS server on 2049") },
  { id: "port:dns", ports: [53], programs: ["named", "unbound", "dnsmasq", "coredns", "systemd-resolved", "systemd-resolve", "pdns_server", "pdns_recursor", "knotd", "node-cache", "nsd", "kresd", "dnsdist"], source: doc("RFC 1035 port 53; CoreDNS and node-local-dns on Kubernetes; Knot Resolver (kresd), dnsdist") },
  { id: "port:dns-encrypted", ports: [853, 443], protocol: 6, programs: ["kresd", "dnsdist", "unbound", "coredns", "pdns_recursor", "AdGuardHome", "dnscrypt-proxy"], executable: /^(?:\/usr(?:\/local)?\/s?bin|\/opt\/AdGuardHome|)\/(?:kresd|dnsdist|unbound|coredns|pdns_recursor|AdGuardHome|dnscrypt-proxy)$/, source: doc("DNS over TLS on 853 (RFC 7858) and DNS over HTTPS on 443 (RFC 8484): Knot Resolver net.listen kind 'tls'/'doh2', dnsdist addTLSLocal/addDOHLocal, Unbound tls-port/https-port", "https://www.knot-resolver.cz/documentation/latest/config-network-server-tls.html") },
  { id: "port:bind-rndc", ports: [953], protocol: 6, programs: ["named"], source: doc("BIND 9 ARM: controls default port 953") },
  { id: "port:mail", ports: [25, 465, 587], protocol: 6, programs: ["master", "exim4", "exim", "sendmail", "smtpd", "opensmtpd", "postfix"], source: doc("Postfix master(8); exim4 (Debian); RFC 8314") },
  { id: "port:imap-pop", ports: [110, 143, 993, 995, 4190], protocol: 6, programs: ["dovecot", "imap-login", "pop3-login", "managesieve-log"], source: doc("Dovecot: imap 143/993, pop3 110/995, managesieve 4190") },
  { id: "port:cups", ports: [631], programs: ["cupsd", "cups-browsed"], source: doc("cupsd.conf(5): Listen 631") },
  { id: "port:samba", ports: [137, 138, 139, 445], programs: ["smbd", "nmbd", "samba"], source: doc("smb.conf(5): smb ports 445 139; nmbd 137/138") },
  { id: "port:snmp", ports: [161], protocol: 17, programs: ["snmpd"], source: doc("snmpd(8): UDP 161") },
  // Web servers, proxies, ingress controllers.
  { id: "port:web", ports: [80, 443, 8080, 8443], protocol: 6, programs: ["nginx", "apache2", "httpd", "caddy", "haproxy", "envoy", "traefik", "lighttpd", "openresty", "varnishd", "h2o", "nginx-ingress-c", "nginx-ingress-controller", "kong", "squid", "pomerium", "oauth2-proxy"], source: doc("RFC 9110 default ports; ingress-nginx, Traefik, HAProxy, Envoy documentation") },
  { id: "port:oracle-http-server", ports: [7777, 4443], protocol: 6, programs: ["httpd.worker", "httpd.event", "httpd.prefork"], executable: /\/ohs\/bin\/httpd\.(?:worker|event|prefork)$/, source: doc("Oracle HTTP Server 12c: the listen port 7777 and SSL port 4443 a standalone domain gets by default; httpd.worker/httpd.event are its MPM binaries under $ORACLE_HOME/ohs/bin", "https://docs.oracle.com/en/middleware/fusion-middleware/web-tier/12.2.1.4/administer-ohs/managing-oracle-http-server-ports.html") },
  { id: "port:ingress-nginx", ports: [10254, 8443], protocol: 6, programs: ["nginx-ingress-c", "nginx-ingress-controller"], source: doc("ingress-nginx: --healthz-port/metrics 10254, admission webhook 8443", "https://kubernetes.github.io/ingress-nginx/user-guide/cli-arguments/") },
  { id: "port:haproxy-stats", ports: [8404, 9101], protocol: 6, programs: ["haproxy", "haproxy_exporter"], source: doc("HAProxy docs: stats/Prometheus 8404") },
  { id: "port:varnish", ports: [6081, 6082], protocol: 6, programs: ["varnishd", "cache-main"], source: doc("varnishd(1) Debian defaults: -a :6081 -T :6082") },
  { id: "port:squid", ports: [3128], protocol: 6, programs: ["squid"], source: doc("squid.conf: http_port 3128") },
  { id: "port:restic-rest-server", ports: [8000], protocol: 6, programs: ["rest-server"], source: doc("restic rest-server README: listens on :8000 by default (--listen)", "https://github.com/restic/rest-server") },
  { id: "port:php-fpm", ports: [9000], protocol: 6, programs: ["php-fpm", "php-fpm8.2", "php-fpm8.1", "php-fpm8.3", "php-fpm7.4", "php-fpm: master", "php-fpm: pool"], source: doc("php-fpm www.conf: listen = 127.0.0.1:9000 (upstream default)") },
  { id: "port:app-servers", ports: [8000, 8001, 5000, 3000, 4000, 8081, 9000], protocol: 6, programs: ["gunicorn", "uwsgi", "uvicorn", "puma", "unicorn", "passenger", "node", "deno", "bun", "daphne", "hypercorn"], source: doc("Gunicorn bind default 127.0.0.1:8000; Flask 5000; Express/Next.js/Grafana-style 3000; Puma 3000") },
  { id: "port:service-mesh", ports: [15000, 15001, 15004, 15006, 15008, 15009, 15020, 15021, 15053, 15090], protocol: 6, programs: ["envoy", "pilot-agent", "istio-proxy"], source: doc("Istio: Ports used by Istio", "https://istio.io/latest/docs/ops/deployment/application-requirements/") },
  { id: "port:istiod", ports: [15010, 15012, 15014, 15017], protocol: 6, programs: ["pilot-discovery"], source: doc("Istio: Ports used by Istio (istiod)") },
  { id: "port:linkerd", ports: [4140, 4143, 4190, 4191, 9990, 9995, 9996, 9997, 8086], protocol: 6, programs: ["linkerd2-proxy", "linkerd-destina", "controller"], source: doc("Linkerd: ports and protocols") },
  // Databases and caches.
  { id: "port:postgres", ports: [5432], protocol: 6, programs: ["postgres", "postmaster", "patroni"], source: doc("PostgreSQL: port (integer) default 5432") },
  { id: "port:pgbouncer", ports: [6432], protocol: 6, programs: ["pgbouncer"], source: doc("pgbouncer.ini: listen_port 6432") },
  { id: "port:mysql", ports: [3306, 33060, 33062, 4567, 4568], protocol: 6, programs: ["mysqld", "mariadbd", "mysqld_safe", "mariadb"], source: doc("MySQL Port Reference (3306, X Protocol 33060, admin 33062); Galera 4567/4568 (group, IST); Galera's SST on 4444 is socat's or rsync's listener, not mysqld's") },
  { id: "port:proxysql", ports: [6032, 6033, 6070], protocol: 6, programs: ["proxysql"], source: doc("ProxySQL: admin 6032, mysql 6033") },
  { id: "port:redis", ports: [6379, 16379, 26379], protocol: 6, programs: ["redis-server", "redis-sentinel", "valkey-server", "keydb-server"], source: doc("redis.conf: port 6379, cluster bus +10000, sentinel 26379") },
  { id: "port:memcached", ports: [11211], programs: ["memcached"], source: doc("memcached(1): -p 11211") },
  { id: "port:mongodb", ports: [27017, 27018, 27019], protocol: 6, programs: ["mongod", "mongos"], source: doc("MongoDB: Default MongoDB Port") },
  { id: "port:elasticsearch", ports: [9200, 9300, 9600], protocol: 6, programs: ["elasticsearch", "opensearch"], runtime: { programs: JAVA, token: "org.elasticsearch" }, source: doc("Elasticsearch: http.port 9200, transport.port 9300; OpenSearch performance analyzer 9600") },
  { id: "port:opensearch", ports: [9200, 9300, 9600], protocol: 6, programs: [], runtime: { programs: JAVA, token: "opensearch" }, source: doc("OpenSearch: network settings (9200, 9300)") },
  { id: "port:cassandra", ports: [7000, 7001, 7199, 9042, 9160], protocol: 6, programs: [], runtime: { programs: JAVA, token: "cassandra" }, source: doc("Apache Cassandra: ports 7000/7001/7199/9042") },
  { id: "port:clickhouse", ports: [8123, 9000, 9004, 9005, 9009, 9440, 9363], protocol: 6, programs: ["clickhouse-server", "clickhouse-serv", "clickhouse"], source: doc("ClickHouse: Network ports") },
  { id: "port:influxdb", ports: [8086, 8088], protocol: 6, programs: ["influxd"], source: doc("InfluxDB: http-bind-address :8086, bind-address :8088") },
  { id: "port:etcd", ports: [2379, 2380, 2381], protocol: 6, programs: ["etcd"], source: K8S_PORTS },
  { id: "port:couchdb", ports: [5984, 4369], protocol: 6, programs: ["beam.smp", "couchdb"], source: doc("CouchDB: 5984, epmd 4369") },
  { id: "port:neo4j", ports: [7474, 7473, 7687], protocol: 6, programs: [], runtime: { programs: JAVA, token: "neo4j" }, source: doc("Neo4j: ports 7474/7473/7687") },
  { id: "port:minio", ports: [9000, 9001], protocol: 6, programs: ["minio"], source: doc("MinIO server: --address :9000, --console-address") },
  // Message brokers.
  { id: "port:kafka", ports: [9092, 9093, 9094, 9999], protocol: 6, programs: ["kafka"], runtime: { programs: JAVA, token: "kafka" }, source: doc("Apache Kafka: listeners PLAINTEXT://:9092 (server.properties)") },
  { id: "port:zookeeper", ports: [2181, 2888, 3888, 8080], protocol: 6, programs: [], runtime: { programs: JAVA, token: "zookeeper" }, source: doc("Apache ZooKeeper admin guide: clientPort 2181, 2888/3888, AdminServer 8080") },
  { id: "port:rabbitmq", ports: [5672, 5671, 15672, 15692, 25672, 4369, 1883, 61613], protocol: 6, programs: ["beam.smp", "epmd", "rabbitmq-server"], source: doc("RabbitMQ: Networking and RabbitMQ, Port Access", "https://www.rabbitmq.com/docs/networking#ports") },
  { id: "port:epmd", ports: [4369], protocol: 6, programs: ["epmd"], source: doc("Erlang epmd(1): port 4369") },
  { id: "port:mqtt", ports: [1883, 8883], protocol: 6, programs: ["mosquitto", "emqx", "vernemq"], source: doc("mosquitto.conf(5): listener 1883 / 8883") },
  { id: "port:nats", ports: [4222, 6222, 8222], protocol: 6, programs: ["nats-server"], source: doc("NATS server: client 4222, cluster 6222, monitoring 8222") },
  { id: "port:activemq", ports: [61616, 8161, 5672, 61613, 1883], protocol: 6, programs: [], runtime: { programs: JAVA, token: "activemq" }, source: doc("Apache ActiveMQ: openwire 61616, web console 8161") },
  { id: "port:nsq", ports: [4150, 4151, 4160, 4161, 4171], protocol: 6, programs: ["nsqd", "nsqlookupd", "nsqadmin"], source: doc("NSQ: nsqd 4150/4151, nsqlookupd 4160/4161") },
  // Kubernetes node and control-plane components.
  { id: "port:kubelet", ports: [10250, 10248, 10255], protocol: 6, programs: ["kubelet", "k3s", "k3s-server", "k3s-agent", "k0s", "rke2"], source: K8S_PORTS },
  { id: "port:kube-proxy", ports: [10256, 10249], protocol: 6, programs: ["kube-proxy", "k3s", "k3s-server", "k3s-agent"], source: K8S_PORTS },
  { id: "port:kube-apiserver", ports: [6443, 443], protocol: 6, programs: ["kube-apiserver", "k3s", "k3s-server", "k0s", "rke2"], source: K8S_PORTS },
  { id: "port:kube-controller-manager", ports: [10257], protocol: 6, programs: ["kube-controller", "kube-controller-manager", "k3s", "k3s-server"], source: K8S_PORTS },
  { id: "port:kube-scheduler", ports: [10259], protocol: 6, programs: ["kube-scheduler", "k3s", "k3s-server"], source: K8S_PORTS },
  { id: "port:containerd", ports: [10010, 1338], protocol: 6, programs: ["containerd", "k3s", "k3s-server", "k3s-agent"], source: doc("containerd CRI plugin: stream_server_port 10010") },
  { id: "port:calico", ports: [179, 9099, 9091, 5473], protocol: 6, programs: ["bird", "bird6", "calico-node", "calico-typha"], source: doc("Calico: network requirements (BGP 179, Typha 5473, felix health 9099)", "https://docs.tigera.io/calico/latest/getting-started/kubernetes/requirements") },
  { id: "port:cilium", ports: [4240, 4244, 4245, 9962, 9963, 9964, 9879, 9890, 9891, 6942], protocol: 6, programs: ["cilium-agent", "cilium-envoy", "cilium-operator", "cilium-health-r", "hubble-relay"], source: doc("Cilium: System requirements, firewall rules", "https://docs.cilium.io/en/stable/operations/system_requirements/") },
  { id: "port:vxlan-wireguard-kernel", ports: [4789, 8472, 51820, 51871, 6081], protocol: 17, kernel: true, programs: ["flanneld"], source: doc("Flannel backends (vxlan 8472 on Linux), IANA VXLAN 4789, Geneve 6081, WireGuard 51820 (Cilium 51871)") },
  { id: "port:coredns", ports: [53, 9153, 8080, 8181], programs: ["coredns", "node-cache"], source: doc("CoreDNS Corefile defaults in kubeadm: prometheus :9153, health :8080, ready :8181") },
  { id: "port:kube-addons", ports: [8080, 8081, 4443, 10250, 9443, 8443, 20256], protocol: 6, programs: ["kube-state-metr", "kube-state-metrics", "metrics-server", "node-problem-de", "node-problem-detector", "cadvisor", "manager", "cluster-autosca"], source: doc("kube-state-metrics (8080/8081), metrics-server (10250/4443), node-problem-detector (20256), controller-runtime webhooks (9443)") },
  // Monitoring and observability agents (Prometheus default port allocations wiki unless noted).
  { id: "port:oracle-listener", ports: [1521, 1522], protocol: 6, programs: ["tnslsnr"], source: doc("Oracle Database Net Services Administrator's Guide: the listener's default port 1521 (tnslsnr)") },
  { id: "port:pytorch-distributed", ports: [29500], protocol: 6, programs: ["torchrun", "python", "python3"], source: doc("PyTorch torchrun docs: --master-port default 29500 (the rendezvous store)", "https://pytorch.org/docs/stable/elastic/run.html") },
  // torchrun's process renames its main thread pt_main_thread; its c10d rendezvous store listens on the endpoint's port.
  { id: "port:torchrun-rendezvous", ports: [29400, 29500], protocol: 6, programs: ["pt_main_thread"], runtime: { programs: PYTHONS, token: "/bin/torchrun", script: true }, source: doc("PyTorch torchrun docs: --rdzv-backend=c10d --rdzv-endpoint=$HOST:29400 (the multi-node example's port)", "https://pytorch.org/docs/stable/elastic/run.html") },
  { id: "port:ray", ports: [6379, 8265, 10001, 52365], protocol: 6, programs: ["gcs_server", "raylet"], runtime: { programs: PYTHONS, token: "site-packages/ray/dashboard/dashboard.py", script: true }, source: doc("Ray docs, Configuring Ray: ports (GCS server 6379, dashboard 8265, Ray client server 10001, dashboard agent 52365)", "https://docs.ray.io/en/latest/ray-core/configure.html#ports-configurations") },
  { id: "port:bitcoind", ports: [8333, 8332, 18333, 38333], programs: ["bitcoind"], source: doc("Bitcoin Core: P2P port 8333 (testnet 18333, signet 38333), RPC 8332 (bitcoin.conf, -port and -rpcport)", "https://github.com/bitcoin/bitcoin/blob/master/doc/bitcoin-conf.md") },
  { id: "port:geth", ports: [30303, 8545, 8546, 8551, 6060], programs: ["geth"], source: doc("go-ethereum command-line options: --port 30303 (P2P, TCP and UDP), --http.port 8545, --ws.port 8546, --authrpc.port 8551, --metrics.port 6060", "https://geth.ethereum.org/docs/fundamentals/command-line-options") },
  { id: "port:lighthouse", ports: [9000, 9001, 5052, 5054], programs: ["lighthouse"], source: doc("Lighthouse book, advanced networking: 9000 TCP/UDP (libp2p, discovery), 9001 UDP (QUIC); the beacon node HTTP API 5052 and metrics 5054", "https://lighthouse-book.sigmaprime.io/advanced_networking.html") },
  { id: "port:sap-hana", ports: [], ranges: [[30000, 39999]], protocol: 6, programs: ["hdbindexserver", "hdbnameserver", "hdbxsengine", "hdbwebdispatcher", "hdbcompileserver", "hdbpreprocessor", "hdbdocstore", "hdbdpserver", "hdbscriptserver", "hdbesserver"], source: doc("SAP, TCP/IP Ports of All SAP Products: SAP HANA's services listen on 3<instance>00-3<instance>99 (instances 00-99: 30000-39999)", "https://help.sap.com/docs/Security/575a9f0e56f34c6e8138439eefc32b16/616a3c0b1cc748238de9c0341b15c63c.html") },
  { id: "port:localstack", ports: [4566, 4510, 4511, 4512, 4513, 4514, 4515, 4516, 4517, 4518, 4519, 4520], protocol: 6, programs: [], runtime: { programs: PYTHONS, token: "-m localstack.", script: true }, source: doc("LocalStack docs: the edge port 4566 and the external service port range 4510-4559", "https://docs.localstack.cloud/references/network-troubleshooting/endpoint-url/") },
  { id: "port:prometheus", ports: [9090], protocol: 6, programs: ["prometheus"], source: PROM_WIKI },
  { id: "port:pushgateway", ports: [9091], protocol: 6, programs: ["pushgateway", "prometheus-pushg"], source: PROM_WIKI },
  { id: "port:alertmanager", ports: [9093, 9094], programs: ["alertmanager", "prometheus-alert"], source: PROM_WIKI },
  { id: "port:node-exporter", ports: [9100], protocol: 6, programs: ["node_exporter", "prometheus-node", "prometheus-node-exporter", "node-exporter"], source: PROM_WIKI },
  { id: "port:exporters", ports: [9101, 9102, 9103, 9104, 9105, 9106, 9107, 9108, 9109, 9113, 9114, 9115, 9116, 9117, 9118, 9119, 9121, 9122, 9150, 9187, 9216, 9256, 9308, 9419, 9558, 9253, 9141, 9145, 9127, 9182, 9633], protocol: 6, programs: ["haproxy_exporter", "statsd_exporter", "collectd_exporter", "mysqld_exporter", "prometheus-mysq", "mesos_exporter", "cloudwatch_expo", "consul_exporter", "graphite_export", "nginx-prometheu", "nginx_exporter", "elasticsearch_e", "blackbox_export", "prometheus-blac", "snmp_exporter", "prometheus-snmp", "apache_exporter", "prometheus-apac", "jenkins_exporte", "bind_exporter", "redis_exporter", "prometheus-redi", "memcached_expor", "postgres_export", "prometheus-post", "mongodb_exporte", "process-exporte", "kafka_exporter", "rabbitmq_export", "systemd_exporte", "php-fpm_exporte", "zookeeper-expor", "pgbouncer_expor", "windows_exporte", "smartctl_export"], source: PROM_WIKI },
  { id: "port:thanos", ports: [10901, 10902, 10903, 10904, 10905, 10906, 10907, 10908, 10909, 10910, 10911, 10912, 19291], protocol: 6, programs: ["thanos"], source: doc("Thanos: every component's --grpc-address 10901 and --http-address 10902 by default, the docs' multi-component examples 10903-10912, receive --remote-write.address 19291", "https://thanos.io/tip/thanos/quick-tutorial.md/") },
  { id: "port:victoriametrics", ports: [8428, 8480, 8481, 8482, 8400, 8401, 8429, 8880, 8427], protocol: 6, programs: ["victoria-metrics", "vminsert", "vmselect", "vmstorage", "vmagent", "vmalert", "vmauth", "victoria-metrics-prod", "vminsert-prod", "vmselect-prod", "vmstorage-prod", "vmagent-prod", "vmalert-prod", "vmauth-prod"], source: doc("VictoriaMetrics: single-node -httpListenAddr :8428; cluster vminsert 8480, vmselect 8481, vmstorage 8482 (8400 inserts, 8401 selects); vmagent 8429, vmalert 8880, vmauth 8427", "https://docs.victoriametrics.com/cluster-victoriametrics/") },
  { id: "port:grafana", ports: [3000], protocol: 6, programs: ["grafana", "grafana-server"], source: doc("Grafana: http_port 3000 (defaults.ini)") },
  { id: "port:loki-promtail", ports: [3100, 9095, 9080, 7946], protocol: 6, programs: ["loki", "promtail", "grafana-agent", "alloy", "mimir", "tempo"], source: doc("Grafana Loki: http_listen_port 3100, grpc 9095, memberlist 7946; Promtail 9080") },
  { id: "port:tempo-jaeger-otel", ports: [3200, 4317, 4318, 8888, 8889, 13133, 55679, 1777, 14250, 14268, 16686, 6831, 6832, 5778, 9411], programs: ["tempo", "otelcol", "otelcol-contrib", "otelcol-k8s", "jaeger-agent", "jaeger-collecto", "jaeger-query", "jaeger-all-in-o", "alloy", "grafana-agent", "datadog-agent"], source: doc("OpenTelemetry Collector: OTLP 4317/4318, metrics 8888, health 13133; Jaeger ports") },
  { id: "port:datadog", ports: [8125, 8126, 5000, 5001, 5002, 5012, 6062, 6162], programs: ["agent", "trace-agent", "process-agent", "security-agent", "system-probe", "datadog-agent"], source: doc("Datadog Agent: Network traffic (DogStatsD 8125/udp, APM 8126, expvar 5000, IPC 5001)", "https://docs.datadoghq.com/agent/configuration/network/") },
  { id: "port:statsd-telegraf", ports: [8125, 8092, 8094, 8186, 9273], programs: ["telegraf", "statsd", "statsd_exporter"], source: doc("Telegraf inputs: statsd 8125/udp, http_listener 8186, prometheus_client 9273") },
  { id: "port:zabbix", ports: [10050, 10051], protocol: 6, programs: ["zabbix_agentd", "zabbix_agent2", "zabbix_server", "zabbix_proxy"], source: doc("Zabbix manual: agent ListenPort 10050, server 10051") },
  { id: "port:nagios-munin", ports: [5666, 4949], protocol: 6, programs: ["nrpe", "munin-node"], source: doc("NRPE server_port 5666; munin-node.conf port 4949") },
  { id: "port:netdata", ports: [19999], protocol: 6, programs: ["netdata"], source: doc("Netdata: default port 19999") },
  { id: "port:collectd-fluent", ports: [25826, 24224, 24231, 2020, 8686, 5044, 5140, 514, 601, 6514], programs: ["collectd", "fluentd", "td-agent", "fluent-bit", "vector", "logstash", "rsyslogd", "syslog-ng"], source: doc("collectd network 25826; Fluentd forward 24224; Fluent Bit HTTP 2020; Vector API 8686; Beats 5044; syslog 514/601/6514") },
  { id: "port:wazuh-osquery", ports: [1514, 1515, 1516, 55000], protocol: 6, programs: ["wazuh-remoted", "wazuh-authd", "ossec-remoted", "ossec-authd", "wazuh-clusterd", "wazuh-apid"], runtime: { programs: ["python3", "python3.9", "python3.10", "python3.11"], token: "/var/ossec/" }, source: doc("Wazuh: architecture, required ports (agents 1514, enrollment 1515, cluster 1516, the server API 55000, which runs under Wazuh's bundled Python in /var/ossec/framework)", "https://documentation.wazuh.com/current/getting-started/architecture.html") },
  { id: "port:awx", ports: [8050, 8051, 8052, 8013, 8043], protocol: 6, programs: ["awx-manage", "daphne"], runtime: { programs: ["uwsgi", "daphne", "python3", "python3.11", "nginx"], token: "awx" }, source: doc("AWX / Ansible Tower: uwsgi on 8050, daphne websockets 8051, the web service 8052 (inside the awx_web container or a package install, /etc/tower/uwsgi.ini)", "https://github.com/ansible/awx/blob/devel/tools/docker-compose/README.md") },
  { id: "port:teleport", ports: [3022, 3023, 3024, 3025, 3026, 3027, 3028, 3036, 3080, 443], protocol: 6, programs: ["teleport"], source: doc("Teleport: networking reference (node SSH 3022, proxy SSH 3023, reverse tunnels 3024, auth 3025, Kubernetes 3026, desktop 3028, MySQL 3036, web 3080; 443 with TLS routing)", "https://goteleport.com/docs/reference/networking/") },
  { id: "port:cowrie", ports: [2222, 2223], protocol: 6, programs: [], runtime: { programs: ["twistd", "python3", "python3.9", "python3.10", "python3.11", "python3.12", "python"], token: "cowrie" }, source: doc("Cowrie SSH/Telnet honeypot: listen_endpoints tcp:2222 (SSH) and tcp:2223 (Telnet) by default, run by twistd under its own virtualenv (cowrie-env)", "https://docs.cowrie.org/en/latest/INSTALL.html") },
  { id: "port:velociraptor", ports: [8000, 8001, 8003, 8889], protocol: 6, programs: ["velociraptor"], source: doc("Velociraptor: server config defaults (Frontend 8000, API 8001, monitoring 8003, GUI 8889)", "https://docs.velociraptor.app/docs/deployment/") },
  { id: "port:portainer", ports: [8000, 9000, 9443], protocol: 6, programs: ["portainer"], source: doc("Portainer: install docs (-p 8000:8000 -p 9443:9443; 9000 for HTTP)", "https://docs.portainer.io/start/install-ce/server/docker/linux") },
  { id: "port:hashicorp", ports: [8200, 8201, 8300, 8301, 8302, 8500, 8501, 8502, 8503, 8600, 4646, 4647, 4648], programs: ["vault", "consul", "nomad"], source: doc("HashiCorp Consul required ports; Vault api_addr 8200 / cluster 8201; Nomad 4646-4648") },
  // CI and developer infrastructure.
  { id: "port:jenkins", ports: [8080, 50000, 8443], protocol: 6, programs: ["jenkins"], runtime: { programs: JAVA, token: "jenkins" }, source: doc("Jenkins: HTTP_PORT 8080, inbound agents TCP 50000") },
  { id: "port:gitlab-runner", ports: [9252, 8093], protocol: 6, programs: ["gitlab-runner"], source: doc("GitLab Runner: listen_address :9252 (metrics), session_server 8093", "https://docs.gitlab.com/runner/monitoring/") },
  { id: "port:gitlab", ports: [80, 443, 22, 8080, 8082, 8150, 8151, 8153, 8154, 8155, 9168, 9187, 9229, 9236, 5000], protocol: 6, programs: ["puma", "gitlab-workhorse", "gitaly", "gitlab-exporter", "registry", "sidekiq", "nginx"], source: doc("GitLab Omnibus: package defaults, port list", "https://docs.gitlab.com/omnibus/package-information/defaults.html") },
  { id: "port:teamcity-sonar", ports: [8111, 9000], protocol: 6, programs: [], runtime: { programs: JAVA, token: "teamcity" }, source: doc("TeamCity server default port 8111") },
  { id: "port:sonarqube", ports: [9000, 9001], protocol: 6, programs: [], runtime: { programs: JAVA, token: "sonar" }, source: doc("SonarQube: sonar.web.port 9000") },
  { id: "port:docker-registry", ports: [5000, 5001], protocol: 6, programs: ["registry", "docker-registry", "zot", "harbor-core"], source: doc("Distribution registry: http.addr :5000") },
  { id: "port:buildkit-drone", ports: [1234, 3000, 8000, 80, 443], protocol: 6, programs: ["buildkitd", "drone-server", "drone-runner-do", "woodpecker-ser"], source: doc("BuildKit buildkitd --addr tcp 1234 (common); Drone server 80/443, runner 3000") },
  { id: "port:argocd", ports: [8080, 8081, 8082, 8083, 8084, 6379], protocol: 6, programs: ["argocd-server", "argocd-repo-ser", "argocd-applica", "argocd-dex", "redis-server"], source: doc("Argo CD: components and ports") },
  // Docker publishes a container's port (`-p`) through docker-proxy on the host: the port is whatever the run asked for,
  // and the program that answers is the container's own, judged where it listens. Only the packaged executable.
  { id: "port:docker-proxy", ports: [], ranges: [[1, 65535]], programs: ["docker-proxy"], executable: /^\/usr\/(?:s?bin|libexec\/docker)\/docker-proxy$/, source: doc("Docker docs, Packet filtering and firewalls / port publishing: with the userland proxy on (the default), dockerd starts one docker-proxy per published port, listening on the host port", "https://docs.docker.com/engine/network/packet-filtering-firewalls/#docker-on-a-router") },
  // Media servers and their managers (home labs, small offices), each on its documented default ports.
  { id: "port:jellyfin", ports: [8096, 8920, 1900, 7359], programs: ["jellyfin"], source: doc("Jellyfin docs, Networking: HTTP 8096, HTTPS 8920, client discovery UDP 7359, DLNA/SSDP UDP 1900", "https://jellyfin.org/docs/general/networking/") },
  { id: "port:plex", ports: [32400, 1900, 5353, 8324, 32410, 32412, 32413, 32414, 32469], programs: ["Plex Media Serv", "Plex Media Server", "Plex DLNA Serve", "Plex DLNA Server"], source: doc("Plex support, 'What network ports do I need to allow through my firewall?': 32400/tcp, 1900/udp, 5353/udp, 8324/tcp, 32410-32414/udp, 32469/tcp", "https://support.plex.tv/articles/201543147-what-network-ports-do-i-need-to-allow-through-my-firewall/") },
  { id: "port:servarr", ports: [8989, 7878, 9696, 8686, 8787, 6767], protocol: 6, programs: ["Sonarr", "Radarr", "Prowlarr", "Lidarr", "Readarr", "bazarr"], source: doc("Servarr wiki: default ports Sonarr 8989, Radarr 7878, Prowlarr 9696, Lidarr 8686, Readarr 8787; Bazarr 6767", "https://wiki.servarr.com/") },
  { id: "port:flaresolverr", ports: [8191], protocol: 6, programs: [], runtime: { programs: PYTHONS, token: "flaresolverr", script: true }, source: doc("FlareSolverr README: PORT default 8191", "https://github.com/FlareSolverr/FlareSolverr") },
  { id: "port:home-assistant", ports: [8123, 21063, 21064, 5353], programs: [], runtime: { programs: PYTHONS, token: "homeassistant", script: true }, source: doc("Home Assistant: http integration server_port 8123; HomeKit Bridge default port 21063 (and one up per bridge); zeroconf mDNS 5353", "https://www.home-assistant.io/integrations/homekit/") },
  // Hosting control panels and business suites, known by their install directories (their ports are many).
  { id: "port:cpanel", ports: [2077, 2078, 2079, 2080, 2082, 2083, 2086, 2087, 2095, 2096], protocol: 6, programs: ["cpsrvd", "cpdavd"], executable: /^\/usr\/local\/cpanel\/(?:cpsrvd|cpdavd)$/, source: doc("cPanel & WHM docs, 'How to Configure Your Firewall for cPanel Services': cpsrvd 2082/2083 (cPanel), 2086/2087 (WHM), 2095/2096 (Webmail); cpdavd 2077/2078 (WebDAV), 2079/2080 (CalDAV and CardDAV)", "https://docs.cpanel.net/knowledge-base/general-systems-administration/how-to-configure-your-firewall-for-cpanel-services/") },
  { id: "port:webmin", ports: [10000, 20000], programs: [], runtime: { programs: ["perl"], token: "miniserv.pl", script: true, at: { interpreter: /^\/(?:usr\/)?bin\/perl$/, script: /^\/(?:usr\/share|usr\/libexec|usr\/lib|opt)\/(?:webmin|usermin)\/miniserv\.pl$/ } }, source: doc("Webmin documentation: miniserv.pl serves Webmin on 10000 (TCP, and UDP for server discovery) and Usermin on 20000", "https://webmin.com/docs/") },
  {
    id: "port:sap-netweaver",
    ports: [1128, 1129, 3299],
    ranges: [[3200, 3399], [3600, 3699], [8000, 8199], [44300, 44399], [50000, 59999]],
    protocol: 6,
    programs: ["sapstartsrv", "disp+work", "gwrd", "icman", "msg_server", "enserver", "enq_server", "enq_replicator", "jstart", "sapwebdisp", "saprouter"],
    executable: /^\/(?:usr\/sap\/(?:[A-Z][A-Z0-9]{2}\/(?:[A-Z]+\d{2}\/exe|SYS\/exe\/(?:run|uc\/linuxx86_64|nuc\/linuxx86_64))|hostctrl\/exe|saprouter)|sapmnt\/[A-Z][A-Z0-9]{2}\/exe\/(?:uc|nuc)\/linuxx86_64)\/(?:sapstartsrv|disp\+work|gwrd|icman|msg_server|enserver|enq_server|enq_replicator|jstart|sapwebdisp|saprouter)$/,
    fits: sapInstancePort,
    source: doc("SAP Help, 'TCP/IP Ports of All SAP Products': instance NN dispatcher 32NN, gateway 33NN, message server 36NN and HTTP 81NN, ICM HTTP 80NN and HTTPS 443NN, sapstartsrv 5NN13/5NN14, Java 5NN00-5NN04, enqueue replication 5NN16; host agent 1128/1129; SAProuter 3299", "https://help.sap.com/docs/Security/575a9f0e56f34c6e8138439eefc32b16/616a3c0b1cc748238de9c0341b15c63c.html"),
  },

  { id: "port:dropbox-lan-sync", ports: [17500], programs: ["dropbox"], executable: /^\/(?:home\/[^/]+|root)\/\.dropbox-dist\/dropbox-lnx\.[\w.-]+\/dropbox$/, source: doc("Dropbox help, LAN sync: the desktop app discovers and serves peers on port 17500 (TCP and UDP)", "https://help.dropbox.com/sync/lan-sync-overview") },
  // Print management and test grids.
  { id: "port:papercut", ports: [9191, 9192, 9193], protocol: 6, programs: [], runtime: { programs: JAVA, token: "biz.papercut", script: true }, source: doc("PaperCut NG/MF: Application Server on 9191 (HTTP), 9192 (HTTPS), 9193 (site servers, SSL)", "https://www.papercut.com/help/manuals/ng-mf/common/sys-ports/") },
  { id: "port:papercut-mobility-print", ports: [9163, 9164, 5353], programs: ["pc-mobility-pri", "pc-mobility-print"], source: doc("PaperCut Mobility Print: ports 9163 (HTTP), 9164 (HTTPS), mDNS 5353", "https://www.papercut.com/help/manuals/mobility-print/set-up/ports/") },
  { id: "port:selenium-grid", ports: [4444, 4442, 4443, 5555], protocol: 6, programs: [], runtime: { programs: JAVA, token: "selenium-server", script: true }, source: doc("Selenium Grid docs: hub/router 4444, event bus 4442/4443, node 5555", "https://www.selenium.dev/documentation/grid/getting_started/") },
  // An out-of-band interaction server (OAST) that security teams and CTFs run to catch callbacks: it answers on each
  // protocol's own port. Its payloads point at it; it has no reason to run on a host it tests.
  { id: "port:interactsh", ports: [21, 25, 53, 80, 389, 443, 445, 465, 587], programs: ["interactsh-serv", "interactsh-server"], source: doc("ProjectDiscovery interactsh server: DNS 53, HTTP 80, HTTPS 443, SMTP 25/465/587, LDAP 389 (-ldap), SMB 445 (-smb), FTP 21 (-ftp)", "https://github.com/projectdiscovery/interactsh#interactsh-server") },
  { id: "port:go-dnscollector", ports: [6000], protocol: 6, programs: ["go-dnscollecto", "go-dnscollector"], source: doc("DNS-collector README: dnstap collector listening on tcp/6000 by default", "https://github.com/dmachard/DNS-collector") },
];
