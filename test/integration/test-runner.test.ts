// make test's runner (scripts/tests/run.ts) over throwaway test files: a file that fails, one that crashes, and one
// that leaves a process running all count as failures or get cleaned up, and the last line adds the counts up.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "tap";
import { failureExcerpt, failuresOf, summaryOf, type Failure } from "../../scripts/tests/summary.js";

/** Every failure line of `output` with its details, in order. */
const failureLines = (output: string, exitCode: number): string[] => failuresOf(output, exitCode).flatMap((f) => [f.line, ...f.detail]);
import { running } from "../helpers/hanging-nats.js";
import { DIST } from "../helpers/services.js";

test("summaryOf reads tap's last summary line, and a non-zero exit is never a clean pass", async (t) => {
  t.same(summaryOf("ok 1 - a\n# { total: 3, pass: 3 }\n", 0), { passed: 3, failed: 0 });
  t.same(summaryOf("# { total: 2, pass: 2 }\n# { total: 5, pass: 3, fail: 2 }\n", 1), { passed: 3, failed: 2 }, "the last one");
  t.same(summaryOf("# { total: 4, pass: 2, skip: 1, todo: 1 }\n", 0), { passed: 2, failed: 0 }, "skips and todos are not failures");
  t.same(summaryOf("# { total: 4, pass: 4 }\n", 1), { passed: 4, failed: 1 }, "passes, then exited non-zero");
  t.same(summaryOf("Error: boom\n", 1), { passed: 0, failed: 1 }, "no summary at all");
  t.same(failureLines("    not ok 1 - x\nnot ok 1 - y\n", 1), ["    not ok 1 - x", "not ok 1 - y"]);
  t.same(failureLines("ok 1\nError: boom\n", 1), ["    (exit code 1: Error: boom)"], "a crash says how it ended");
  const diagnosed = [
    "    not ok 2 - n", "      ---", "      found:", "        fileName: not-the-place.ts", "      at:", "        fileName: a.test.ts", "        lineNumber: 9",
    "      diff: |", "        --- expected", "         line1", "      ", "        -line4", "        +line3", "      stack: |", "        x", "      ...", "    ok 3 - m",
  ];
  t.same(
    failureLines(diagnosed.join("\n"), 1),
    ["    not ok 2 - n", "      at a.test.ts:9", "        --- expected", "         line1", "", "        -line4", "        +line3"],
    "with its place (from at:, not a value's key) and its whole diff (a blank line and a context line's space kept), not its stack",
  );
  const many: Failure[] = Array.from({ length: 6 }, (_, i) => ({ line: `not ok ${i + 1}`, detail: ["  at x.ts:1", "  -a", "  +b"] }));
  t.same(failureExcerpt(many, 10), ["not ok 1", "  at x.ts:1", "  -a", "  +b", "not ok 2", "  at x.ts:1", "not ok 3", "not ok 4", "not ok 5", "not ok 6"], "every failed line first, details in the room left");
  t.same(failureExcerpt(many, 4).at(-1), "    (2 more failed assertions in the file's output above)");
});

test("the runner counts every file, fails on any failure, and kills what a file left running", async (t) => {
  // Inside dist/ so that the files find tap in node_modules.
  const dir = mkdtempSync(join(DIST, "runner-fixture-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const pidFile = join(dir, "leaked.pid");
  const files = {
    "pass.test.js": `import { test } from "tap"; test("p", (t) => { t.ok(1); t.ok(1); t.end(); });`,
    "fail.test.js": `import { test } from "tap"; test("f", (t) => { t.equal(1, 2, "one is two"); t.ok(1); t.end(); });`,
    "crash.test.js": `process.stderr.write("boom: no tap at all\\n"); process.exit(3);`,
    "leak.test.js": `import { spawn } from "node:child_process"; import { writeFileSync } from "node:fs"; import { test } from "tap";
      test("l", (t) => { const c = spawn("sleep", ["300"], { stdio: "ignore" }); c.unref(); writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); t.ok(1); t.end(); });`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const r = spawnSync(process.execPath, [join(DIST, "scripts", "tests", "run.js"), ...Object.keys(files).map((f) => join(dir, f))], { encoding: "utf8", env: { PATH: process.env.PATH ?? "", TEST_JOBS: "2" } });
  const lines = r.stdout.trimEnd().split("\n");
  t.equal(lines.at(-1), "4 passed, 2 failed", "pass 2 + fail 1/1 + leak 1; the crash is one failure");
  t.equal(r.status, 1, "exits non-zero");
  t.match(r.stdout, /not ok \d+ - .*fail\.test\.js/);
  t.match(r.stdout, /not ok \d+ - .*crash\.test\.js/);
  t.match(r.stdout, /^ok \d+ - .*leak\.test\.js/m);
  const tail = r.stdout.slice(r.stdout.lastIndexOf("failed:\n"));
  t.match(tail, /not ok 1 - one is two\n\s+at \S*fail\.test\.js:1\n\s+--- expected\n\s+\+\+\+ actual\n[^]*-2\n\s+\+1\n/, "the failed assertion is repeated at the end, with where and what differed");
  t.match(tail, /exit code 3: boom: no tap at all/, "and how the crash ended");
  const leaked = Number(readFileSync(pidFile, "utf8"));
  t.notOk(running(leaked), `the sleep the file left (pid ${leaked}) was killed with its group`);
});
