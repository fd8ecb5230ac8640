// Regenerates openapi.json from a running gateway (the document is built from the route table and the
// TypeBox schemas that validate requests), and the CLI's types generated from it (cli/api-types.ts).
// `make openapi` runs this; tests fail when either copy drifts.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../test/helpers/services.js";
import { api, startStack } from "../test/helpers/stack.js";
import { renderApiTypes } from "./api-types.js";

const stack = await startStack({ services: ["gateway"] });
try {
  const doc = await api(stack.baseUrl, "GET", "/v1/openapi.json");
  if (doc.status !== 200) throw new Error(`GET /v1/openapi.json answered ${doc.status}`);
  const file = join(REPO, "openapi.json");
  writeFileSync(file, `${JSON.stringify(doc.json, null, 2)}\n`);
  process.stderr.write(`wrote ${file}\n`);
  const types = join(REPO, "cli", "api-types.ts");
  writeFileSync(types, await renderApiTypes(doc.json));
  process.stderr.write(`wrote ${types}\n`);
} finally {
  await stack.stop();
}
