// Every detection, and a whole investigation, over values an attacker would craft against the engine's patterns:
// long runs of what a pattern starts with and never finishes (`grep -r grep -r ...`, `~~~~`, `/>/>/>`), behind
// the programs and files that lead a detection to its pattern (utmpdump -r, tar, a write to /etc/ld.so.preload).
// A pattern quadratic in a value's length takes minutes on 256 KiB (cubic ones days): tap's timeout fails the file.
// Linear, the whole file takes seconds. Each value below made one pattern take seconds to minutes before its fix.
import { test } from "tap";
import { allDetections } from "../../shared/engine/detections/registry.js";
import { routeQuery, runInvestigation } from "../../shared/engine/index.js";
import type { HostData, Row } from "../../shared/engine/index.js";
import { coverage, host } from "./helpers.js";

const LENGTH = 64 * 1024;
const run = (prefix: string, unit: string, suffix = "", length = LENGTH): string => prefix + unit.repeat(Math.ceil((length - prefix.length) / unit.length)) + suffix;

const HOSTILE: readonly string[] = [
  run("grep -r ", "grep -r "), // KEY_SWEEP: cubic (32 KiB: six minutes)
  run("grep -r password ", "grep -r password ", " x"), // the password grep's options and tree
  run("find / ", "find / -name "),
  run("cat ", "~"), // private keys, histories, cloud files: a scan from every "~"
  run("cat ", "/>"), // history and authorized_keys redirections
  run("echo ", "/", " > /etc/ld.so.preload"), // a library path from every "/"
  run("echo /a", ".so.", "- > /etc/ld.so.preload"),
  run("tee ", "tee ", " /etc/ld.so.preload"),
  run("utmpdump -r ", "btmp-x-", " /var/log/wtmp"),
  run("rm ", "rm "), // rm ... _history; rm -r ... an agent's directory
  run("rm -r ", "rm -r "),
  run("rm -", "r", "X"),
  run("tar -", "c"),
  run("nc ", "nc "),
  run("nc -", "e", "X"),
  run("mknod ", "mknod "),
  run("curl ", "curl ", "| https://hc-ping.com/x"),
  run("curl -o '", "/."),
  run("chmod 7", "7", "X /tmp/x"),
  run("socat ", "tcp-l:1 "),
  run("x ", "| docker login "),
  run("cat ", "/proc "),
  run("find /proc ", "find /proc "),
  run("grep ", "grep AKIA"),
  run("x", ".a"), // a URL's scheme from every letter
  run("cat ", "/tmp/a/"), // a hidden temp path from every /tmp/
  run("sh ", "1", " | nc h 1"), // a redirection's file descriptor from every digit (withoutRedirections)
  run("bash ", "<", " | openssl s_client"),
  run("curl http://", "a@", " -F f=@/tmp/x"), // a URL's user part from every character
  run("curl -T /tmp/", ".x/", " https://0x0.st"), // staged-data-exfiltration's temp files
  run("tar czf /dev/shm/", "a", " /srv && curl -F f=@/dev/shm/a https://0x0.st"),
  run("x ", "ssh -oControlMaster=auto "),
];

/** A host whose every column of every table `tables` names holds `value` (one row per table). */
function hostileHost(tables: Record<string, readonly string[]>, value: string, i: number): HostData {
  const rows: Record<string, Row[]> = {};
  for (const [table, columns] of Object.entries(tables)) rows[table] = [Object.fromEntries(columns.map((c) => [c, value]))];
  return host(rows, {}, `hostile-${i}`, `hostile-${i}`);
}

test("each detection reads hostile values in time linear in their length", async (t) => {
  const detections = allDetections();
  let evaluated = 0;
  for (const [i, value] of HOSTILE.entries()) {
    for (const d of detections) {
      d.evaluate(hostileHost(d.reads, value, i));
      evaluated++;
    }
  }
  t.equal(evaluated, HOSTILE.length * detections.length, `${detections.length} detections x ${HOSTILE.length} values of ${LENGTH / 1024} KiB`);
});

// Each pattern fixed, at 512 KiB through the detection that reads it: quadratic, each of these takes ten minutes
// or more (tap's timeout fails the file); linear, under a second.
const FIXED: ReadonlyArray<[string, string]> = [
  ["credential-file-access", run("grep -r ", "grep -r ", "", 512 * 1024)],
  ["credential-file-access", run("grep -r password ", "grep -r password ", " x", 512 * 1024)],
  ["credential-file-access", run("cat ", "~", "", 512 * 1024)],
  ["credential-file-access", run("cat ", "/proc ", "", 512 * 1024)],
  ["cloud-credential-access", run("cat ", "~", "", 512 * 1024)],
  ["cloud-credential-access", run("find / ", "find / -name ", "", 512 * 1024)],
  ["cloud-credential-access", run("x ", "| docker login ", "", 512 * 1024)],
  ["cloud-credential-access", run("grep ", "grep AKIA", "", 512 * 1024)],
  ["ld-so-preload", run("echo ", "/", " > /etc/ld.so.preload", 512 * 1024)],
  ["ld-so-preload", run("echo /a", ".so.", "- > /etc/ld.so.preload", 512 * 1024)],
  ["ld-so-preload", run("tee ", "tee ", " /etc/ld.so.preload", 512 * 1024)],
  ["log-wiping", run("utmpdump -r ", "btmp-x-", " /var/log/wtmp", 512 * 1024)],
  ["history-tampering", run("cat ", "/>", "", 512 * 1024)],
  ["history-tampering", run("rm ", "rm ", "", 512 * 1024)],
  ["credential-exfiltration", run("tar -", "c", "", 512 * 1024)],
  ["ssh-authorized-key", run("cat ", "/>", "", 512 * 1024)],
  ["service-spawned-shell", run("nc ", "nc ", "", 512 * 1024)],
  ["service-spawned-shell", run("chmod 7", "7", "X /tmp/x", 512 * 1024)],
  ["reverse-shell", run("nc ", "nc ", "", 512 * 1024)],
  ["docker-api-exposed", run("socat ", "tcp-l:1 ", "", 512 * 1024)],
  ["defense-impairment", run("rm -r ", "rm -r ", "", 512 * 1024)],
  ["defense-impairment", run("x ", "/", "x", 512 * 1024)], // every path's basename: trailing slashes
  ["ingress-tool-transfer", run("curl -o '", "/.", "", 512 * 1024)],
  ["ingress-tool-transfer", run("chmod 7", "7", "X /tmp/x", 512 * 1024)],
  ["suspicious-cron", run("curl ", "curl ", "| https://hc-ping.com/x", 512 * 1024)],
  ["unexpected-suid", run("/usr/bin/python", "1.", "x", 512 * 1024)],
  // Quadratic, not cubic: 2 s each at 64 KiB, passing the sweep above (a file timeout catches only what takes minutes).
  ["suspicious-cron", run("chmod 7", "7", "X /tmp/x", 512 * 1024)], // a mode's execute digit tried at every split
  ["suspicious-cron", run("curl -o /tmp/x https://a.example && chmod 7", "7", "X", 512 * 1024)], // download then run
  ["docker-api-exposed", run("bash ", "<", " | openssl s_client", 512 * 1024)], // a redirection from every `<` of a run
  ["reverse-shell", run("bash ", "<", " | openssl s_client", 512 * 1024)],
  // A ReDoS audit (recheck over every expression, then each path timed with crafted values): quadratic, each of these.
  ["cloud-credential-access", run("curl http://169.254.169.254/latest/meta-data/iam/security-credentials/ | ", " ", "", 512 * 1024)],
  ["credential-file-access", run("grep -", "r", "0 password /", 512 * 1024)],
  ["credential-file-access", run("john ", "--a/john ", "", 512 * 1024)],
  ["ingress-tool-transfer", run("curl https://a.example/x -", "O", "-", 512 * 1024)],
  ["log-wiping", run("true;", " ", "x", 512 * 1024)],
  ["log-wiping", run("sudo", " ", "x", 512 * 1024)],
  ["suspicious-cron", run("cat /dev/tcp/h/1 ", "cat ", "", 512 * 1024)],
  ["suspicious-cron", run("cat /dev/tcp/h/1; exec", " ", "x", 512 * 1024)],
  ["docker-api-exposed", run("socat ", "tcp-l:1", ",bind=127.0.0.1 UNIX-CONNECT:/var/run/docker.sock", 512 * 1024)],
  ["hidden-system-path-exec", run("", "/a\n", "", 512 * 1024)],
  ["credential-exfiltration", run("echo `id`; ", "nc a 1;", "", 512 * 1024)],
];

test("each pattern fixed reads 512 KiB in one pass", async (t) => {
  const byId = new Map(allDetections().map((d) => [d.id, d] as const));
  for (const [i, [id, value]] of FIXED.entries()) {
    const d = byId.get(id);
    if (!d) {
      t.fail(`no detection ${id}`);
      continue;
    }
    d.evaluate(hostileHost(d.reads, value, i));
  }
  t.pass(`${FIXED.length} values through their detections`);
});

/**
 * 512 KiB values in the rows that lead a detection to its expression, where filling every column cannot reach it; at
 * 64 KiB each took 0.2-2 s before its fix. (The audit's systemd ExecStart and Java -D expressions were rewritten too;
 * rows that reach them through a detection were not found, so they are not here.)
 */
test("crafted rows: each of the audit's paths reads 512 KiB in one pass", async (t) => {
  const big = (prefix: string, unit: string, suffix = ""): string => run(prefix, unit, suffix, 512 * 1024);
  const byId = new Map(allDetections().map((d) => [d.id, d] as const));
  const evaluate = (id: string, h: HostData, entities: Partial<Record<"ips", string[]>> = {}): void => {
    byId.get(id)?.evaluate(h, { entities: { ips: entities.ips ?? [], sha256: [], advisories: [], users: [], ports: [], paths: [], domains: [], tags: {} } });
  };
  evaluate("public-interactive-login", host({ last: [{ username: "alice", tty: "pts/0", pid: "1", type: "7", time: "1776159000", host: big("203.0.113.5", " ", "x") }] }));
  evaluate("hidden-system-path-exec", host({ augeas: [{ node: big("/files", "/Service/", "\n/Service/ExecStart/command"), label: "command", value: "/usr/lib/.x/y", path: "" }] }));
  evaluate("unexpected-listener", host({ processes: [{ pid: "12", name: "node", path: "/usr/bin/node", cmdline: big("node ", "-node "), parent: "1", uid: "1000" }], listening_ports: [{ pid: "12", port: "4444", address: "0.0.0.0", protocol: "6" }] }));
  evaluate("ioc-match", host({ shell_history: [{ uid: "0", time: "0", command: big("grep 203.0.113.7 /var/log/auth.log >", " ", "/dev/null"), history_file: "/root/.bash_history" }] }), { ips: ["203.0.113.7"] });
  t.pass("4 crafted hosts");
});

test("a sweep over hosts holding them completes", async (t) => {
  const plan = routeQuery("run a full security sweep of these hosts", "deep");
  const reads: Record<string, Set<string>> = {};
  for (const d of allDetections()) for (const [table, columns] of Object.entries(d.reads)) for (const c of columns) (reads[table] ??= new Set()).add(c);
  const tables = Object.fromEntries(Object.entries(reads).map(([table, columns]) => [table, [...columns]]));
  const hosts = HOSTILE.slice(0, 8).map((value, i) => hostileHost(tables, value, i));
  const r = runInvestigation(plan, hosts, coverage(hosts.length), "deep");
  t.ok(r.narrative.length > 0, "a report came back");
});
