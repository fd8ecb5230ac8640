// Patterns of the form A[^stops]*B[^stops]*C, matched in time linear in the text.
//
// As one regular expression such a pattern is quadratic or worse in the length of a value: the regular expression
// engine tries A at every place it occurs and scans the rest of its segment for B from each one (and for C from
// each B). Everything an agent reports is attacker-controlled; a 32 KiB command line of `grep -r ` repeated held
// KEY_SWEEP (credential-file-access) for six minutes, and the runner fails an evaluation past its time limit, every
// host's findings with it. Here each segment is read once per part: the earliest A, then the earliest B after it,
// then the earliest C after that. The earliest of each leaves the most room for the next, so the answer is the
// pattern's. The parts themselves must be linear (no gap that can scan past another start of the same part).

export interface Span {
  /** Where the first part's match starts, in the whole text. */
  index: number;
  /** Just past the last part's match. */
  end: number;
}

export class InOrder {
  private readonly stops: RegExp;
  private readonly alternatives: RegExp[][];

  /**
   * `stops`: the characters no gap may cross (the pattern's `[^...]`); `alternatives`: each one a list of parts
   * that must occur in order within one segment (a single part is a plain search).
   */
  constructor(stops: RegExp, ...alternatives: ReadonlyArray<readonly RegExp[]>) {
    this.stops = new RegExp(stops.source, withGlobal(stops.flags));
    this.alternatives = alternatives.map((parts) => parts.map((p) => new RegExp(p.source, withGlobal(p.flags))));
  }

  test(text: string): boolean {
    return this.find(text) !== null;
  }

  /** The first segment's match (of the first alternative that matches there), or null. */
  find(text: string): Span | null {
    let start = 0;
    for (;;) {
      this.stops.lastIndex = start;
      const stop = this.stops.exec(text);
      const end = stop ? stop.index : text.length;
      const segment = text.slice(start, end);
      for (const parts of this.alternatives) {
        const span = inSegment(segment, parts);
        if (span) return { index: start + span.index, end: start + span.end };
      }
      if (!stop) return null;
      start = end + Math.max(stop[0].length, 1);
    }
  }
}

function inSegment(segment: string, parts: readonly RegExp[]): Span | null {
  let at = 0;
  let index = -1;
  for (const part of parts) {
    part.lastIndex = at;
    const m = part.exec(segment);
    if (!m) return null;
    if (index < 0) index = m.index;
    at = m.index + m[0].length;
  }
  return { index, end: at };
}

const withGlobal = (flags: string): string => (flags.includes("g") ? flags : `${flags}g`).replace("y", "");
