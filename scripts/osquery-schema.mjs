// Builds reference/osquery-linux-schema.json from an osquery source checkout: every table osquery builds on Linux
// (the platform lists in specs/CMakeLists.txt) with its columns (schema() plus extended_schema() for LINUX/POSIX).
// Usage: node scripts/osquery-schema.mjs <osquery git dir or work tree> [commit]
// The output records the commit and each table's spec file, so every column can be traced to its source.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";

const [repo, commitArg] = process.argv.slice(2);
if (!repo) {
  console.error("usage: node scripts/osquery-schema.mjs <osquery repo> [commit]");
  process.exit(2);
}
const git = (...args) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
const commit = (commitArg ?? git("rev-parse", "HEAD")).trim();
const date = git("show", "-s", "--format=%cI", commit).trim();
const show = (path) => git("show", `${commit}:${path}`);

const cmake = show("specs/CMakeLists.txt");
const files = new Set();
const independent = cmake.match(/set\(platform_independent_spec_files([\s\S]*?)\)/)?.[1] ?? "";
for (const m of independent.matchAll(/^\s*([\w/]+\.table)\s*$/gm)) files.add(m[1]);
for (const m of cmake.matchAll(/"([\w/]+\.table):([\w,]+)"/g)) if (m[2].split(",").includes("linux")) files.add(m[1]);
if (/OSQUERY_BUILD_AWS/.test(cmake)) for (const m of cmake.matchAll(/"(ec2_[\w]+\.table)"/g)) files.add(m[1]);

function columnsOf(block) {
  return [...block.matchAll(/Column\(\s*"(\w+)"\s*,\s*(\w+)/g)].map((m) => ({ name: m[1], type: m[2] }));
}

const tables = {};
for (const file of [...files].sort()) {
  const text = show(`specs/${file}`);
  const name = text.match(/table_name\("(\w+)"/)?.[1];
  if (!name) continue;
  const base = text.match(/\nschema\(\[([\s\S]*?)\n\]\)/)?.[1] ?? "";
  const cols = columnsOf(base);
  for (const m of text.matchAll(/extended_schema\(([^,]+),\s*\[([\s\S]*?)\n\]\)/g)) {
    const platforms = m[1];
    if (/\bLINUX\b|\bPOSIX\b/.test(platforms) || (/lambda/.test(platforms) && /linux/i.test(platforms))) cols.push(...columnsOf(m[2]));
  }
  const seen = new Set();
  tables[name] = {
    spec: `specs/${file}`,
    columns: cols.filter((c) => (seen.has(c.name) ? false : (seen.add(c.name), true))).map((c) => `${c.name}:${c.type}`),
  };
}

const out = {
  source: { repository: "https://github.com/osquery/osquery", commit, date, generated_by: "scripts/osquery-schema.mjs" },
  note: "Tables osquery builds on Linux with their columns (name:type), read from the table specs at this commit.",
  tables,
};
writeFileSync(new URL("../reference/osquery-linux-schema.json", import.meta.url), JSON.stringify(out, null, 1) + "\n");
console.log(`${Object.keys(tables).length} tables written`);
