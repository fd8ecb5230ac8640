// Each engine worker thread loads its own copy of every module it imports, and a worker's memory counts toward the
// runner's (issue 10: under 150 MiB with 10,000 agents). The engine needs no NATS client, schema compiler, logger or
// LMDB: a worker that pulled in @nats-io/* cost 4 MiB more resident, per worker. This walks the compiled module graph
// the worker thread loads (static imports, as tsc emits them) and names the packages it reaches.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "tap";

const WORKER = fileURLToPath(new URL("../../services/runner/engine-worker.js", import.meta.url));
// A static import or re-export (names, braces, commas, `* as`), a bare import, or a dynamic import of a literal.
const SPECIFIER = /^(?:import|export)\s[\w\s{},*$]*?from\s*"([^"\s]+)";|^import\s*"([^"\s]+)";|\bimport\(\s*"([^"\s]+)"\s*\)/gm;

/** The packages the module graph from `entry` reaches, each with the chain of files that leads to it. */
function packagesReached(entry: string): Map<string, string[]> {
  const via = new Map<string, string | null>([[entry, null]]);
  const packages = new Map<string, string[]>();
  const queue = [entry];
  const chain = (file: string): string[] => {
    const out: string[] = [];
    for (let f: string | null | undefined = file; f; f = via.get(f)) out.push(f.slice(f.indexOf("/dist/") + 6));
    return out;
  };
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const m of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const spec = (m[1] ?? m[2] ?? m[3]) as string;
      if (spec.startsWith(".")) {
        const next = resolve(dirname(file), spec);
        if (!via.has(next)) {
          via.set(next, file);
          queue.push(next);
        }
      } else if (!packages.has(spec)) {
        packages.set(spec, chain(file));
      }
    }
  }
  return packages;
}

test("an engine worker thread loads the engine and node's own modules, no client library", async (t) => {
  const reached = packagesReached(WORKER);
  t.ok(reached.size > 0, `the walk found imports: ${[...reached.keys()].join(", ")}`);
  for (const [pkg, chain] of reached) {
    t.ok(pkg.startsWith("node:"), `${pkg} is one of node's modules (reached through ${chain.join(" <- ")})`);
  }
});
