// Every INQUEST_* setting a service reads (its config spec) is in the README's configuration table, so an operator
// who reads the table sees every knob (INQUEST_ENGINE_TIME_LIMIT was read by the runner and listed nowhere).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "tap";
import { REPO } from "../helpers/services.js";

test("the README's table lists every INQUEST_ setting a config spec declares", async (t) => {
  const specs = [join(REPO, "shared", "config.ts"), ...readdirSync(join(REPO, "services")).map((s) => join(REPO, "services", s, "config.ts"))];
  const declared = new Set<string>();
  for (const file of specs) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue; // a service without settings of its own
    }
    for (const m of text.matchAll(/^\s*(INQUEST_[A-Z0-9_]+):/gm)) declared.add(m[1] as string);
  }
  t.ok(declared.size >= 20, `${declared.size} settings declared`);
  // A row may name several settings that go together: "| `INQUEST_HOST` / `INQUEST_PORT` |".
  const firstCells = [...readFileSync(join(REPO, "README.md"), "utf8").matchAll(/^\| ([^|]*`INQUEST_[^|]*)\|/gm)].map((m) => m[1] as string);
  const rows = new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`(INQUEST_[A-Z0-9_]+)`/g)].map((m) => m[1] as string)));
  for (const name of [...declared].sort()) t.ok(rows.has(name), `${name} has a row`);
});
