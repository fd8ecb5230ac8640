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

/** One failed assertion (or how a file ended without one): its `not ok` line and where and how it failed. */
export interface Failure {
  line: string;
  detail: string[];
}

/** Every `not ok` of the file with where it failed and what differed (tap's diagnostic block under it), else why the file ended. */
export function failuresOf(output: string, exitCode: number): Failure[] {
  const lines = output.split("\n");
  const found: Failure[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\s*not ok /.test(line)) found.push({ line, detail: diagnosis(lines, i + 1, indentOf(line)) });
  }
  if (found.length > 0 || exitCode === 0) return found;
  // Node ends a crash with its version line: the error is the last line that names one.
  const last = output.trimEnd().split("\n");
  const said = last.findLast((l) => /\b\w*Error\b/.test(l)) ?? last.at(-1) ?? "no output";
  return [{ line: `    (exit code ${exitCode}: ${said.trim().slice(0, 300)})`, detail: [] }];
}

/**
 * At most `maxLines` for one file: every `not ok` line first (as many as fit), and the details of the first ones in
 * the room left, so that a file's later failures are never hidden behind its first one's diff.
 */
export function failureExcerpt(failures: Failure[], maxLines: number): string[] {
  const listed = failures.slice(0, maxLines);
  let room = maxLines - listed.length;
  const out: string[] = [];
  for (const f of listed) {
    const detail = f.detail.slice(0, room);
    room -= detail.length;
    out.push(f.line, ...detail);
  }
  if (failures.length > listed.length) out.push(`    (${failures.length - listed.length} more failed assertions in the file's output above)`);
  return out;
}

const MAX_DIFF_LINES = 12;

const indentOf = (line: string): number => line.length - line.trimStart().length;

/**
 * From the YAML block tap prints under a failed assertion (`---` to `...`): the place under its `at:` key and the
 * lines of its `diff:` key (blank ones and each line's own leading space kept), indented under the assertion.
 */
function diagnosis(lines: string[], from: number, indent: number): string[] {
  const open = lines[from];
  if (open === undefined || open.trim() !== "---") return [];
  const block = indentOf(open);
  const pad = " ".repeat(indent + 2);
  let section = "";
  let fileName: string | undefined;
  let lineNumber: string | undefined;
  const diff: string[] = [];
  for (let i = from + 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const blank = line.trim() === "";
    if (!blank && indentOf(line) <= block) {
      if (line.trim() === "...") break;
      section = /^\s*([\w-]+):/.exec(line)?.[1] ?? "";
      continue;
    }
    if (section === "diff") {
      if (diff.length < MAX_DIFF_LINES) diff.push(`${pad}  ${blank ? "" : line.slice(block + 2)}`.trimEnd());
    } else if (section === "at" && !blank) {
      const key = /^\s*(\w+):\s*(.*)$/.exec(line);
      if (key?.[1] === "fileName") fileName ??= key[2] ?? "";
      if (key?.[1] === "lineNumber") lineNumber ??= key[2] ?? "";
    }
  }
  const where = fileName === undefined ? [] : [`${pad}at ${fileName}${lineNumber === undefined ? "" : `:${lineNumber}`}`];
  return [...where, ...diff];
}
