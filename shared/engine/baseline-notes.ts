// The baseline notes a report carries: what a benign baseline kept from being flagged, at most a few per
// (detection, baseline) so a large fleet stays readable.
//
// Kept bounded as hosts are added rather than cut at the end: over 10,000 hosts that share one baseline (every web
// host's nginx on 443), the run held a note per host, 3 MB, until the report cut them to twenty. The notes kept
// are the first by agent and summary, whatever order the hosts came in, so the report depends only on the hosts.
import { compareText } from "./order.js";
import type { BaselineNote } from "./types.js";

export const MAX_NOTES_PER_BASELINE = 20;

/** Report order: by detection, baseline, agent, then summary. */
export function byNoteOrder(a: BaselineNote, b: BaselineNote): number {
  return compareText(a.detection_id, b.detection_id) || compareText(a.baseline, b.baseline) || compareText(a.agent_id, b.agent_id) || compareText(a.summary, b.summary);
}

export class BaselineNotes {
  /** Per (detection, baseline): the notes that come first in report order, at most `perBaseline`, sorted. */
  private readonly kept = new Map<string, BaselineNote[]>();

  constructor(private readonly perBaseline = MAX_NOTES_PER_BASELINE) {}

  add(note: BaselineNote): void {
    const key = `${note.detection_id}\n${note.baseline}`;
    const notes = this.kept.get(key);
    if (!notes) {
      this.kept.set(key, [note]);
      return;
    }
    if (notes.length >= this.perBaseline) {
      if (byNoteOrder(note, notes[notes.length - 1] as BaselineNote) >= 0) return;
      notes.pop();
    }
    // Sorted insertion: the list is short (perBaseline), and ties keep the earlier note, as a stable sort would.
    let at = notes.length;
    while (at > 0 && byNoteOrder(note, notes[at - 1] as BaselineNote) < 0) at--;
    notes.splice(at, 0, note);
  }

  /** The kept notes in report order. */
  sorted(): BaselineNote[] {
    return [...this.kept.values()].flat().sort(byNoteOrder);
  }
}
