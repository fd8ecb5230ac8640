import { test } from "tap";
import { DETECTIONS, detectionCatalog, getDetection } from "../../shared/engine/index.js";

const CONTRACT_TABLES = new Set([
  "processes", "listening_ports", "process_open_sockets", "users", "crontab", "authorized_keys", "suid_bin", "kernel_modules",
  "logged_in_users", "last", "shell_history", "deb_packages", "hash", "process_envs", "systemd_units", "sudoers", "etc_hosts", "docker_containers",
]);

test("the catalog: at least 20 well-formed Linux detections", async (t) => {
  t.ok(DETECTIONS.length >= 20, `${DETECTIONS.length} detections`);
  const ids = DETECTIONS.map((d) => d.id as string);
  t.equal(new Set(ids).size, ids.length, "ids are unique");
  for (const d of DETECTIONS) {
    t.match(d.id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, `${d.id} is kebab-case`);
    t.ok(d.title.length > 5);
    t.ok(d.tables.length > 0 && d.tables.every((x) => CONTRACT_TABLES.has(x)), `${d.id} reads contract tables only`);
    t.ok(d.attack.every((a) => /^T\d{4}(?:\.\d{3})?$/.test(a)), `${d.id} ATT&CK ids`);
    t.ok(["experimental", "test", "stable"].includes(d.maturity));
    t.ok(["info", "low", "medium", "high", "critical"].includes(d.severity));
    t.ok(d.false_positives.length > 10, `${d.id} documents false positives`);
    t.ok(Object.values(d.advice).flat().length >= 2, `${d.id} gives advice`);
    t.ok(d.precision >= 0 && d.precision <= 1 && d.recall >= 0 && d.recall <= 1);
    t.equal(getDetection(d.id), d);
  }
  t.equal(getDetection("no-such-detection"), undefined);
});

test("the catalog as plain data", async (t) => {
  const catalog = detectionCatalog();
  t.equal(catalog.length, DETECTIONS.length);
  t.same(catalog.map((c) => c.id), [...catalog.map((c) => c.id)].sort(), "sorted by id");
  t.equal(JSON.parse(JSON.stringify(catalog)).length, catalog.length, "serialisable");
});
