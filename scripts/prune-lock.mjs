// The npm registry reachable here lacks some other-platform builds of optional native packages (e.g.
// @msgpackr-extract/*-darwin-arm64), so `npm install` cannot record them and `npm ci` then refuses the lock
// ("Missing: ... from lock file"). This drops optional dependencies that have no package entry from the lock,
// which npm would skip on this platform anyway. Run after `npm install` changes package-lock.json.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const names = new Set(Object.keys(lock.packages));
const present = (dep) => [...names].some((k) => k === `node_modules/${dep}` || k.endsWith(`/node_modules/${dep}`));
let pruned = 0;
for (const [name, entry] of Object.entries(lock.packages)) {
  for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
    if (!present(dep)) {
      delete entry.optionalDependencies[dep];
      pruned++;
      process.stderr.write(`pruned ${dep} (optional dependency of ${name || "the root"}; not in the registry)\n`);
    }
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stderr.write(`${pruned} optional dependencies pruned\n`);
