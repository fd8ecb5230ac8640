#!/usr/bin/env node
// The operator CLI; `make build` compiles it to dist/cli.
import { existsSync } from "node:fs";

const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write("inquest: not built yet; run `make build` first\n");
  process.exit(2);
}
// Any other failure to load (a dependency missing: `npm ci` not run) says what it is, not "not built".
await import(main.href);
