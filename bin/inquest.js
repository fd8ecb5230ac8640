#!/usr/bin/env node
// The operator CLI; `make build` compiles it to dist/cli.
import("../dist/cli/main.js").catch((err) => {
  if (err && err.code === "ERR_MODULE_NOT_FOUND") {
    process.stderr.write("inquest: not built yet; run `make build` first\n");
    process.exit(2);
  }
  throw err;
});
