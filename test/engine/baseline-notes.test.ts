// Baseline notes are bounded as hosts are added, and the report carries the same notes in the same order as a sort
// of every note cut to a few per (detection, baseline), whatever order the hosts came in.
import { test } from "tap";
import { BaselineNotes } from "../../shared/engine/baseline-notes.js";
import { compareText } from "../../shared/engine/order.js";
import type { BaselineNote } from "../../shared/engine/types.js";

function note(detection: string, baseline: string, agent: string, summary = `${agent} kept`): BaselineNote {
  return { detection_id: detection, agent_id: agent, hostname: `${agent}.example`, baseline, summary };
}

/** What the report carried before the notes were bounded as they came: all sorted, then the first few per baseline. */
function sortThenCut(notes: BaselineNote[], perBaseline: number): BaselineNote[] {
  const sorted = [...notes].sort((a, b) => compareText(a.detection_id, b.detection_id) || compareText(a.baseline, b.baseline) || compareText(a.agent_id, b.agent_id) || compareText(a.summary, b.summary));
  const seen = new Map<string, number>();
  return sorted.filter((n) => {
    const key = `${n.detection_id}|${n.baseline}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    return (seen.get(key) ?? 0) <= perBaseline;
  });
}

/** A small deterministic generator, so a failure is repeatable. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

test("the kept notes are the sort of all notes cut to a few per baseline, in any arrival order", async (t) => {
  const all: BaselineNote[] = [];
  for (let i = 0; i < 300; i++) {
    const agent = `host-${String((i * 37) % 120).padStart(3, "0")}`;
    all.push(note(i % 3 === 0 ? "unexpected-listener" : "kernel-module", `base-${i % 4}`, agent, `summary ${i % 5}`));
  }
  for (const seed of [1, 2, 3, 42, 1234]) {
    const notes = new BaselineNotes(7);
    for (const n of shuffled(all, seed)) notes.add(n);
    t.same(notes.sorted(), sortThenCut(all, 7), `arrival order ${seed}`);
  }
});

test("a baseline shared by a whole fleet keeps only its first notes", async (t) => {
  const notes = new BaselineNotes();
  for (let i = 9_999; i >= 0; i--) notes.add(note("unexpected-listener", "tag:allowed_ports", `sim-${String(i).padStart(5, "0")}`));
  const kept = notes.sorted();
  t.equal(kept.length, 20);
  t.equal(kept[0]?.agent_id, "sim-00000");
  t.equal(kept[19]?.agent_id, "sim-00019");
});
