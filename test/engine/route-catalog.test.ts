// Routing reads route-catalog.ts, generated from the registry, so that the threads that route questions (the gateway's
// trigger path, the runner's main thread) never load the detections and their baselines.
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "tap";
import { allDetections } from "../../shared/engine/index.js";
import { ROUTE_CATALOG } from "../../shared/engine/detections/route-catalog.js";

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

test("the route catalog is the registry's ids, categories and tables, in its order", async (t) => {
  t.same(
    ROUTE_CATALOG.map((d) => ({ id: d.id, category: d.category, tables: [...d.tables] })),
    allDetections().map((d) => ({ id: d.id, category: d.category, tables: [...d.tables] })),
    "stale: run make calibrate",
  );
});

/** Every module a file loads, following relative static and dynamic imports (compiled JavaScript). */
function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const m of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)) visit(resolve(dirname(file), m[1] as string));
  };
  visit(entry);
  return seen;
}

const ROUTING_ONLY = new Set(["detection.js", "route-catalog.js", "calibration.js", "advisories.js"]);

for (const main of ["services/runner/main.js", "services/gateway/main.js"]) {
  test(`${main} loads no detection or baseline (routing reads the catalog)`, async (t) => {
    const graph = [...importGraph(resolve(DIST, main))].map((f) => relative(DIST, f));
    t.ok(graph.includes("shared/engine/router.js") || graph.includes("shared/engine/planner.js"), "it routes questions");
    const engine = graph.filter((f) => f.startsWith("shared/engine/detections/") || f.startsWith("shared/engine/baselines/"));
    t.same(engine.filter((f) => !ROUTING_ONLY.has(f.slice("shared/engine/detections/".length))), [], "modules that belong on the engine thread");
  });
}

test("the engine worker still loads every detection", async (t) => {
  const graph = [...importGraph(resolve(DIST, "services/runner/engine-worker.js"))].map((f) => relative(DIST, f));
  t.ok(graph.includes("shared/engine/detections/registry.js"));
  t.ok(graph.some((f) => f.startsWith("shared/engine/baselines/")), "and the baselines");
});
