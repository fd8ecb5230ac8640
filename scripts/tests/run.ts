// make test: runs the compiled test files, each with plain `node` (they use tap's library), as many at once as there
// are CPUs, and ends with the one plain line CI reads: "N passed, N failed".
// Why not tap's runner: it starts each file with module hooks (@tapjs/processinfo, @tapjs/mock, a TypeScript loader),
// and processinfo adds itself to NODE_OPTIONS, so every service a test spawns loads its modules through a hook thread
// too. On the 2-core machine that cost more CPU than the tests: 30 unit files took 23 s of CPU with node, 74 s under
// `tap --jobs=2`. The files are JavaScript already (tsc), so none of those hooks is needed.
//   node dist/scripts/tests/run.js [dist/test/…/x.test.js …]   (default: every dist/test/**/*.test.js)
// Env: TEST_JOBS (files at once; default: the CPU count), TAP_TIMEOUT (seconds a file's root test may take; default
// 120; a file may raise its own with tap.setTimeout).
// Each file runs as a process group of its own; when it ends (or after HARD_LIMIT_MS), whatever it left running
// (services, nats-server, chromium) is killed with the group.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative, resolve } from "node:path";
import { forEachLimited } from "../../shared/concurrency.js";
import { failureExcerpt, failuresOf, summaryOf } from "./summary.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const HARD_LIMIT_MS = 10 * 60_000;
/** Files that start a whole cluster: run last, one at a time, so they never starve another file. */
const HEAVY = /\/integration\/(chaos|cluster)\.test\.js$/;

interface Ran {
  file: string;
  output: string;
  exitCode: number;
  ms: number;
}

function* testFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* testFiles(path);
    else if (name.endsWith(".test.js")) yield relative(ROOT, path);
  }
}

function runFile(file: string): Promise<Ran> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--enable-source-maps", file], {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "true", TAP_TIMEOUT: process.env.TAP_TIMEOUT ?? "120" },
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const killGroup = (): void => {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // the group is gone already
      }
    };
    const guard = setTimeout(() => {
      output += `\n# killed after ${HARD_LIMIT_MS / 1000} s\n`;
      killGroup();
    }, HARD_LIMIT_MS);
    child.once("close", (code, signal) => {
      clearTimeout(guard);
      killGroup();
      resolve({ file, output, exitCode: code ?? (signal === null ? 1 : 128), ms: performance.now() - started });
    });
  });
}

const totals = { passed: 0, failed: 0, files: 0 };
const failures: string[] = [];

/** Prints a file's output as a tap subtest (the format tap's own runner printed), and adds up its counts. */
function report({ file, output, exitCode, ms }: Ran): void {
  const { passed, failed } = summaryOf(output, exitCode);
  totals.passed += passed;
  totals.failed += failed;
  totals.files += 1;
  const line = `${failed > 0 ? "not ok" : "ok"} ${totals.files} - ${file} # time=${ms.toFixed(3)}ms`;
  const body = output.trimEnd().split("\n").map((l) => `    ${l}`).join("\n");
  process.stdout.write(`# Subtest: ${file}\n${body}\n${line}\n\n`);
  // Each failing file gets its share of the excerpt: one file failing everything must not hide another's failure.
  if (failed > 0) failures.push(...failureExcerpt(failuresOf(output, exitCode), LINES_PER_FILE), line);
}

/** How much of each failing file's failures the list at the end repeats, and of the list in all. */
const LINES_PER_FILE = 20;
const LINES_IN_ALL = 160;

const files = process.argv.length > 2 ? process.argv.slice(2).map((f) => relative(ROOT, resolve(f))) : [...testFiles(join(ROOT, "dist", "test"))];
const jobs = Number(process.env.TEST_JOBS) || availableParallelism();
process.stdout.write("TAP version 14\n");
await forEachLimited(files.filter((f) => !HEAVY.test(f)), jobs, async (f) => report(await runFile(f)));
await forEachLimited(files.filter((f) => HEAVY.test(f)), 1, async (f) => report(await runFile(f)));
process.stdout.write(`1..${totals.files}\n`);
// The failures again at the end, where a reader of only the last lines (CI's excerpt) sees them.
if (failures.length > 0) process.stdout.write(`failed:\n${failures.slice(0, LINES_IN_ALL).join("\n")}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed\n`);
process.exitCode = totals.failed > 0 ? 1 : 0;
