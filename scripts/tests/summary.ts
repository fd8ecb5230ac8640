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

/**
 * The lines a reader of only the end of the log needs: every `not ok` of the file with where it failed and what
 * differed (from tap's diagnostic block under it), else why the file ended.
 */
export function failureLines(output: string, exitCode: number): string[] {
  const lines = output.split("\n");
  const found: string[] = [];
  lines.forEach((line, i) => {
    if (/^\s*not ok /.test(line)) found.push(line, ...diagnosis(lines, i + 1, indentOf(line)));
  });
  if (found.length > 0 || exitCode === 0) return found;
  return [`    (exit code ${exitCode}: ${output.trimEnd().split("\n").at(-1) ?? "no output"})`];
}

const MAX_DIFF_LINES = 12;

const indentOf = (line: string): number => line.length - line.trimStart().length;

/** From the YAML block tap prints under a failed assertion (`---` to `...`): its place and its diff, indented under it. */
function diagnosis(lines: string[], from: number, indent: number): string[] {
  if (lines[from]?.trim() !== "---") return [];
  const pad = " ".repeat(indent + 2);
  let fileName: string | undefined;
  let lineNumber: string | undefined;
  const diff: string[] = [];
  let inDiff = false;
  for (const line of lines.slice(from + 1)) {
    if (line.trim() === "...") break;
    const key = /^\s*(\w+):\s*(.*)$/.exec(line);
    if (inDiff && indentOf(line) > indent + 2) {
      if (diff.length < MAX_DIFF_LINES) diff.push(`${pad}  ${line.trim()}`);
      continue;
    }
    inDiff = key?.[1] === "diff" && indentOf(line) === indent + 2;
    if (key?.[1] === "fileName") fileName ??= key[2] ?? "";
    if (key?.[1] === "lineNumber") lineNumber ??= key[2] ?? "";
  }
  const where = fileName === undefined ? [] : [`${pad}at ${fileName}${lineNumber === undefined ? "" : `:${lineNumber}`}`];
  return [...where, ...diff];
}
