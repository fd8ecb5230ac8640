// The committed openapi.json is what the gateway serves; regenerate with `make openapi`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "tap";
import { REPO } from "../helpers/services.js";
import { api, startStack } from "../helpers/stack.js";

test("the committed openapi.json matches the document the gateway generates", async (t) => {
  const stack = await startStack({ services: ["gateway"] });
  t.teardown(() => stack.stop());
  const served = await api(stack.baseUrl, "GET", "/v1/openapi.json");
  t.equal(served.status, 200);
  const committed = JSON.parse(readFileSync(join(REPO, "openapi.json"), "utf8")) as unknown;
  t.same(served.json, committed, "openapi.json is stale: run `make openapi` and commit it");
  const paths = Object.keys(served.json.paths as Record<string, unknown>);
  t.ok(paths.includes("/v1/investigations/{id}"));
});
