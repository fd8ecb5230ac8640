// Stacking (shared/engine/fleet-common.ts, docs/baselines.md#fleet-common): what most hosts of the scope share is
// the fleet's configuration, kept as notes; what one host has alone, or what is suspicious however common, stays a
// finding.
import { test } from "tap";
import { routeQuery, runInvestigation, type HostData, type Report, type Row } from "../../shared/engine/index.js";
import { coverage, host, proc } from "./helpers.js";

const ANSIBLE: Row = { source: "/etc/sudoers.d/ansible", header: "ansible", rule_details: "ALL=(ALL) NOPASSWD: ALL" };
const EVERYONE: Row = { source: "/etc/sudoers.d/99-all", header: "ALL", rule_details: "ALL=(ALL) NOPASSWD: ALL" };
const module = (name: string): Row => ({ name, size: "16384", used_by: "-", status: "Live", address: "0x0" });

function fleet(n: number, tables: (i: number) => Record<string, Row[]>): HostData[] {
  return Array.from({ length: n }, (_, i) => host(tables(i), {}, `agent-${i}`, `web-${i}`));
}

function run(question: string, hosts: HostData[]): Report {
  return runInvestigation(routeQuery(question, "standard"), hosts, coverage(hosts.length), "standard");
}

const on = (r: Report, detection: string) => r.findings.filter((f) => f.detection_id === detection).map((f) => f.hostname).sort();
const notes = (r: Report, detection: string) => (r.baseline_notes ?? []).filter((n) => n.detection_id === detection && n.baseline === "fleet:common");

test("a sudoers rule on most hosts is the fleet's configuration; the same rule on one host of four is a finding", async (t) => {
  const everywhere = run("does anyone have passwordless sudo?", fleet(4, () => ({ sudoers: [ANSIBLE], deb_packages: [], kernel_modules: [] })));
  t.same(on(everywhere, "sudoers-nopasswd-all"), [], "no finding when 4 of 4 hosts carry it");
  t.equal(notes(everywhere, "sudoers-nopasswd-all").length, 4, "one note per host");
  t.match(notes(everywhere, "sudoers-nopasswd-all")[0]?.summary, /The same on 4 of the 4 hosts that returned sudoers/);
  t.equal(everywhere.verdict, "benign");

  const alone = run("does anyone have passwordless sudo?", fleet(4, (i) => ({ sudoers: i === 2 ? [ANSIBLE] : [] })));
  t.same(on(alone, "sudoers-nopasswd-all"), ["web-2"], "the one host with the rule is flagged");

  const half = run("does anyone have passwordless sudo?", fleet(6, (i) => ({ sudoers: i < 3 ? [ANSIBLE] : [] })));
  t.same(on(half, "sudoers-nopasswd-all"), ["web-0", "web-1", "web-2"], "half the hosts is not most of them");

  const other = run("does anyone have passwordless sudo?", fleet(4, (i) => ({ sudoers: [i === 0 ? { ...ANSIBLE, source: "/etc/sudoers.d/zz-backdoor" } : ANSIBLE] })));
  t.same(on(other, "sudoers-nopasswd-all"), ["web-0"], "the same rule in another file is not the fleet's");
});

test("what is suspicious however common is never kept quiet: every user root, a known rootkit", async (t) => {
  const everyone = run("does anyone have passwordless sudo?", fleet(4, () => ({ sudoers: [EVERYONE] })));
  t.same(on(everyone, "sudoers-nopasswd-all"), ["web-0", "web-1", "web-2", "web-3"]);
  const rootkit = run("any unusual kernel modules loaded?", fleet(4, () => ({ kernel_modules: [module("diamorphine")] })));
  t.same(on(rootkit, "unexpected-kernel-module"), ["web-0", "web-1", "web-2", "web-3"]);
});

test("two hosts are no majority, and hosts that did not return the table do not count", async (t) => {
  const two = run("any unusual kernel modules loaded?", fleet(2, () => ({ kernel_modules: [module("acme_hba")] })));
  t.same(on(two, "unexpected-kernel-module"), ["web-0", "web-1"]);
  // Three of five hosts returned kernel_modules, all three with the module: most of those that could say.
  const partial = run("any unusual kernel modules loaded?", fleet(5, (i): Record<string, Row[]> => (i < 3 ? { kernel_modules: [module("acme_hba")] } : {})));
  t.same(on(partial, "unexpected-kernel-module"), []);
  t.equal(notes(partial, "unexpected-kernel-module").length, 3);
});

test("the same program listening on most hosts is inventory, on whatever port; a temp-directory listener is not", async (t) => {
  const listen = (pid: number, port: number): Row => ({ pid: String(pid), port: String(port), protocol: "6", family: "2", address: "0.0.0.0", fd: "3", socket: "0", path: "" });
  const promtail = run(
    "are any hosts listening on unexpected ports?",
    fleet(5, (i) => ({ listening_ports: [listen(400, 35000 + i * 731)], processes: [proc(400, "promtail", "/usr/local/bin/promtail", "/usr/local/bin/promtail -config.file=/etc/promtail/config.yml")] })),
  );
  t.same(on(promtail, "unexpected-listener"), []);
  t.equal(notes(promtail, "unexpected-listener").length, 5);
  const conda = run(
    "are any hosts listening on unexpected ports?",
    fleet(5, (i) => ({ listening_ports: [listen(700, 29500)], processes: [proc(700, "python3", `/home/user${i}/.conda/envs/torch/bin/python3.11`, "python -m torch.distributed.run train.py")] })),
  );
  t.same(on(conda, "unexpected-listener"), [], "the same program name on the same port, each from its own install");
  const dropped = run(
    "are any hosts listening on unexpected ports?",
    fleet(5, () => ({ listening_ports: [listen(400, 8443)], processes: [proc(400, "svc", "/tmp/svc", "/tmp/svc")] })),
  );
  t.equal(on(dropped, "unexpected-listener").length, 5, "a program in /tmp listening is flagged on every host");
});

test("the same root key on most hosts is provisioning; on one host, or appended by hand everywhere, it is a finding", async (t) => {
  const BREAK_GLASS = "AAAAC3NzaC1lZDI1NTE5AAAAIBreakGlassKeyOfTheOpsTeamForRoot0000000001";
  const key = (body: string, comment: string): Row => ({ uid: "0", key: `ssh-ed25519 ${body}`, options: "", comment, key_file: "/root/.ssh/authorized_keys", algorithm: "ssh-ed25519" });
  const root: Row = { uid: "0", username: "root", shell: "/bin/bash", directory: "/root" };
  const question = "any unauthorized ssh keys on root?";
  const everywhere = run(question, fleet(5, () => ({ authorized_keys: [key(BREAK_GLASS, "ops-break-glass")], users: [root] })));
  t.same(on(everywhere, "ssh-authorized-key"), [], "one key for root on five of five hosts");
  t.equal(notes(everywhere, "ssh-authorized-key").length, 5);
  const alone = run(question, fleet(5, (i) => ({ authorized_keys: i === 3 ? [key(BREAK_GLASS, "ops-break-glass")] : [], users: [root] })));
  t.same(on(alone, "ssh-authorized-key"), ["web-3"], "the same key on one host of five");
  const byHand = run(
    question,
    fleet(5, () => ({
      authorized_keys: [key(BREAK_GLASS, "ops-break-glass")],
      users: [root],
      shell_history: [{ uid: "0", command: `echo "ssh-ed25519 ${BREAK_GLASS} x" >> /root/.ssh/authorized_keys`, history_file: "/root/.bash_history" }],
    })),
  );
  t.equal(on(byHand, "ssh-authorized-key").length, 5, "a key a shell appended by hand stays a finding on every host");
  const otherKeys = run(question, fleet(5, (i) => ({ authorized_keys: [key(`AAAAC3NzaC1lZDI1NTE5AAAAIOwnKeyOfHost${i}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`, "admin")], users: [root] })));
  t.equal(on(otherKeys, "ssh-authorized-key").length, 5, "a different key on each host is not a shared configuration");
});
