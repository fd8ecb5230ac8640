// The image builds what `make build` builds: no docker here, so the Dockerfile is read, not run.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "tap";
import { REPO } from "../helpers/services.js";

test("the image compiles every part make build does, from sources it copies", async (t) => {
  const makefile = readFileSync(join(REPO, "Makefile"), "utf8");
  const dockerfile = readFileSync(join(REPO, "deploy", "Dockerfile"), "utf8");
  const recipe = /^build:.*\n((?:\t.*\n)+)/m.exec(makefile)?.[1] ?? "";
  const steps = recipe.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("@"));
  t.ok(steps.length >= 3, `make build's steps: ${steps.join(" | ")}`);
  for (const step of steps) t.ok(dockerfile.includes(step), `the Dockerfile runs: ${step}`);
  const copied = [...dockerfile.matchAll(/^COPY (?!--from)(\S+) /gm)].map((m) => m[1]);
  for (const dir of ["shared", "services", "cli", "console"]) t.ok(copied.includes(dir), `the build stage copies ${dir}/`);
});
