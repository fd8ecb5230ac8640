// Every detection reads only osquery's real Linux tables and columns, and only the ones it declares: the declared
// names are checked against reference/osquery-linux-schema.json (osquery's table specs, with the commit they were read
// at), and each detection runs over its fixtures and corpus hosts whose rows throw on any undeclared column.
import { test } from "tap";
import { generateCorpus } from "../../corpus/generate.js";
import { DETECTIONS } from "../../shared/engine/index.js";
import type { HostData, Row } from "../../shared/engine/index.js";
import { FIXTURES } from "./detection-fixtures.js";
import { readRepoFile } from "./helpers.js";

interface Schema {
  source: { repository: string; commit: string };
  tables: Record<string, { spec: string; columns: string[] }>;
}

const SCHEMA = JSON.parse(readRepoFile("reference/osquery-linux-schema.json")) as Schema;
const COLUMNS = new Map(Object.entries(SCHEMA.tables).map(([t, v]) => [t, new Set(v.columns.map((c) => c.split(":")[0]))]));

test("the committed schema names its source and holds the core tables", async (t) => {
  t.match(SCHEMA.source.repository, /osquery\/osquery/);
  t.match(SCHEMA.source.commit, /^[0-9a-f]{40}$/);
  for (const table of ["processes", "listening_ports", "process_open_sockets", "augeas", "docker_container_mounts", "process_envs", "file"]) t.ok(COLUMNS.has(table), table);
  t.notOk(COLUMNS.get("systemd_units")?.has("exec_start"), "systemd_units has no exec_start: unit contents come from augeas");
  t.notOk(COLUMNS.get("docker_containers")?.has("mounts"), "docker_containers has no mounts: they are docker_container_mounts");
});

test("every declared table and column exists in osquery's Linux schema", async (t) => {
  for (const d of DETECTIONS) {
    for (const [table, columns] of Object.entries(d.reads)) {
      const known = COLUMNS.get(table);
      t.ok(known, `${d.id}: table ${table} exists`);
      for (const c of columns) t.ok(known?.has(c), `${d.id}: ${table}.${c} exists`);
    }
  }
});

/** A copy of the host whose rows record every column read; tables not declared throw. */
function guarded(host: HostData, reads: Readonly<Record<string, readonly string[]>>, undeclared: Set<string>): HostData {
  const tables: Record<string, Row[]> = {};
  for (const [name, rows] of Object.entries(host.tables)) {
    const allowed = new Set(reads[name] ?? []);
    tables[name] = rows.map(
      (row) =>
        new Proxy(row, {
          get(target, prop, receiver) {
            if (typeof prop === "string" && !allowed.has(prop)) undeclared.add(`${name}.${prop}`);
            return Reflect.get(target, prop, receiver);
          },
          ownKeys(target) {
            undeclared.add(`${name}.* (enumerated)`);
            return Reflect.ownKeys(target);
          },
        }),
    );
  }
  const tableProxy = new Proxy(tables, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && reads[prop] === undefined && Object.prototype.hasOwnProperty.call(target, prop)) undeclared.add(`${prop} (table)`);
      return Reflect.get(target, prop, receiver);
    },
  });
  return { ...host, tables: tableProxy };
}

test("each detection reads only what it declares", async (t) => {
  const corpusHosts = generateCorpus()
    .filter((_, i) => i % 3 === 0)
    .flatMap((s) => s.hosts);
  for (const d of DETECTIONS) {
    const undeclared = new Set<string>();
    const fixture = FIXTURES[d.id];
    const hosts = [...(fixture ? [fixture.positive, fixture.benign] : []), ...corpusHosts];
    const ctx = { entities: { ips: ["203.0.113.7"], sha256: [], advisories: [], users: [], ports: [], paths: ["/tmp"], domains: ["webhook.site"], tags: {} } };
    for (const h of hosts) d.evaluate(guarded(h, d.reads, undeclared), ctx);
    t.same([...undeclared].sort(), [], `${d.id} reads only its declared columns`);
  }
});
