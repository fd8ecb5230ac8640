import { test } from "tap";
import { DETECTIONS } from "../../shared/engine/index.js";
import type { QueryEntities } from "../../shared/engine/index.js";
import { FIXTURES } from "./detection-fixtures.js";
import { host, proc } from "./helpers.js";

function entities(partial: Partial<QueryEntities> = {}): QueryEntities {
  return { ips: [], sha256: [], advisories: [], users: [], ports: [], paths: [], tags: {}, ...partial };
}

test("every registered detection has a positive and a benign fixture", async (t) => {
  for (const d of DETECTIONS) t.ok(FIXTURES[d.id], `fixture for ${d.id}`);
  t.same(Object.keys(FIXTURES).sort(), DETECTIONS.map((d) => d.id).sort(), "no stale fixtures");
});

for (const d of DETECTIONS) {
  test(`${d.id}: fires on the positive host, stays quiet on the look-alike`, async (t) => {
    const fixture = FIXTURES[d.id];
    if (!fixture) return t.fail(`no fixture for ${d.id}`);
    const ctx = { entities: entities(fixture.entities) };
    const hits = d.evaluate(fixture.positive, ctx);
    t.ok(hits.length > 0, "positive fires");
    for (const hit of hits) {
      t.ok(hit.summary.length > 10, "has a summary");
      t.ok(hit.evidence.length > 0, "has evidence rows");
      for (const e of hit.evidence) t.ok(d.tables.includes(e.table), `evidence table ${e.table} is one the detection declares`);
    }
    t.same(d.evaluate(fixture.benign, ctx), [], "benign look-alike is quiet");
    t.same(d.evaluate(host({}), ctx), [], "a host with no rows is quiet");
  });
}

test("severity overrides inside detections", async (t) => {
  const byId = new Map(DETECTIONS.map((d) => [d.id as string, d]));
  const deleted = byId.get("deleted-binary-running");
  const upgraded = deleted?.evaluate(host({ processes: [proc(7, "nginx", "/usr/sbin/nginx (deleted)", "nginx", { on_disk: 0 })] }));
  t.equal(upgraded?.[0]?.severity, "low", "a packaged binary replaced by an upgrade is low");
  const key = byId.get("ssh-authorized-key");
  const service = key?.evaluate(
    host({ authorized_keys: [{ uid: "33", key: "ssh-ed25519 AAAAC3x www@x" }], users: [{ uid: "33", username: "www-data", shell: "/usr/sbin/nologin" }] }),
  );
  t.equal(service?.length, 1, "a key on a service account fires");
  t.equal(service?.[0]?.severity, undefined, "at the default (medium), not the root severity");
  const root = key?.evaluate(host({ authorized_keys: [{ uid: "0", key: "ssh-ed25519 AAAAC3x m@x" }] }));
  t.equal(root?.[0]?.severity, "high", "a root key is higher");
  const listener = byId.get("unexpected-listener");
  const plain = listener?.evaluate(host({ listening_ports: [{ pid: "1", port: "8081", protocol: "6", address: "0.0.0.0" }] }, { role: "web" }));
  t.equal(plain?.[0]?.severity, undefined, "an unknown port keeps the default severity");
  t.same(listener?.evaluate(host({ listening_ports: [{ pid: "1", port: "443", protocol: "6", address: "0.0.0.0" }] }, { role: "web" })), [], "role=web expects 443");
});

test("vulnerable-package narrows to the advisories named in the question", async (t) => {
  const d = DETECTIONS.find((x) => x.id === "vulnerable-package");
  const h = host({ deb_packages: [{ name: "xz-utils", version: "5.6.1-1" }, { name: "openssh-server", version: "1:9.6p1-3" }] });
  t.equal(d?.evaluate(h).length, 2, "both advisories without a question");
  const only = d?.evaluate(h, { entities: entities({ advisories: ["CVE-2024-6387"] }) });
  t.equal(only?.length, 1);
  t.match(only?.[0]?.summary, /CVE-2024-6387/);
});
