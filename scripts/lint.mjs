// House-rule checks that TypeScript does not make (docs/architecture.md#house-rules): run by `make check`.
//  - process.env is read only in main.ts files, the CLI, scripts, bench and test helpers;
//  - no `export *`;
//  - a service never imports another service's files (shared code lives in shared/);
//  - source files stay under 400 lines (generated files, whose first line says so, excepted).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const problems = [];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (name.endsWith(".ts")) yield path;
  }
}

const envAllowed = (rel) => rel.endsWith("/main.ts") || /^(cli|scripts|bench|test)\//.test(rel);

for (const top of ["services", "shared", "cli"]) {
  for (const file of files(join(root, top))) {
    const rel = relative(root, file).split(sep).join("/");
    const text = readFileSync(file, "utf8");
    const lines = text.split("\n");
    const generated = lines[0]?.startsWith("// Generated from") === true;
    if (lines.length > 400 && !generated) problems.push(`${rel}: ${lines.length} lines (split it: files stay under 400)`);
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, "");
      if (/process\.env\b/.test(code) && !envAllowed(rel)) problems.push(`${rel}:${i + 1}: process.env below main.ts (parse config in main.ts and pass it down)`);
      if (/^\s*export \* from/.test(line)) problems.push(`${rel}:${i + 1}: export * (name the exports)`);
      const m = /from "(\.\.\/[^"]+)"/.exec(line);
      if (m && rel.startsWith("services/")) {
        const own = rel.split("/")[1];
        const target = join(file, "..", m[1]);
        const targetRel = relative(root, target).split(sep).join("/");
        if (targetRel.startsWith("services/") && targetRel.split("/")[1] !== own) problems.push(`${rel}:${i + 1}: imports another service's file ${targetRel} (move shared code to shared/)`);
      }
    });
  }
}

if (problems.length > 0) {
  process.stderr.write(`${problems.join("\n")}\n${problems.length} problem(s)\n`);
  process.exit(1);
}
process.stdout.write("lint: house rules hold\n");
