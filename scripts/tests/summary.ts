// How one test file went, read from what tap printed and how the process ended (scripts/tests/run.ts).

export interface FileResult {
  passed: number;
  failed: number;
}

/**
 * Counts from the last `# { total: 3, pass: 2, fail: 1 }` line tap prints when a file's root test ends. A file that
 * exits non-zero with no failure counted (a crash, a kill, no summary at all) counts as one failure.
 */
export function summaryOf(output: string, exitCode: number): FileResult {
  const last = output.split("\n").filter((l) => l.startsWith("# { total: ")).at(-1) ?? "";
  const count = (key: string): number => Number(new RegExp(`\\b${key}: (\\d+)`).exec(last)?.[1] ?? 0);
  const passed = count("pass");
  let failed = last.includes("fail:") ? count("fail") : count("total") - passed - count("skip") - count("todo");
  if (exitCode !== 0 && failed === 0) failed = 1;
  return { passed, failed };
}

/** The lines a reader of only the end of the log needs: every `not ok` of the file, else why it ended. */
export function failureLines(output: string, exitCode: number): string[] {
  const notOk = output.split("\n").filter((l) => /^\s*not ok /.test(l));
  if (notOk.length > 0 || exitCode === 0) return notOk;
  return [`    (exit code ${exitCode}: ${output.trimEnd().split("\n").at(-1) ?? "no output"})`];
}
