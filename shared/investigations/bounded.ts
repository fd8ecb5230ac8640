// Keeping what grows with the fleet out of the investigation record and its events (docs/nats.md#findings): the
// engine's report lists inputs, notes and steps per finding or per host, and its narrative names every host. The
// record keeps the first `maxItems` of every list and the first `maxChars` of every text, and says what it cut
// in `report.truncated` (a JSON pointer per cut list: how many items it had). Small reports pass unchanged.
//
// Those two bounds alone do not bound the bytes: an agent's long values (a process name of 8 KB, one per row) fill
// every list to `maxItems` with texts at `maxChars`, and the record went over NATS's max_payload (a timeline of 100
// such entries: a 1.2 MB record that could never be stored, so the run failed with every host's findings). The
// report is therefore also held to `maxBytes` of JSON: while it is over, the largest list or text is cut further.

export interface Bounds {
  maxItems: number;
  maxChars: number;
  /**
   * UTF-8 bytes of the whole report's JSON at most. With the record's findings (256 KiB at most) and the summary's
   * copy of the narrative, the record stays far under max_payload (1 MiB).
   */
  maxBytes: number;
}

export const DEFAULT_REPORT_BOUNDS: Bounds = { maxItems: 100, maxChars: 8192, maxBytes: 256 * 1024 };

/** A text is not cut below this many characters to fit the report's bytes (a list is kept to one item at least). */
const MIN_TEXT_CHARS = 64;

/** A text cut to `maxChars`, saying how much was left out. */
export function boundText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)} … (${text.length - maxChars} more characters cut)`;
}

/** The report with every list and text bounded; `truncated` names the lists cut and their full lengths. */
export function boundReport(report: Record<string, unknown>, bounds: Bounds): Record<string, unknown> {
  // Items or characters kept of a list or text (by JSON pointer), tighter than the bounds: what the bytes cost.
  const limits = new Map<string, number>();
  for (;;) {
    const cut = cutReport(report, bounds, limits);
    const out = Object.keys(cut.truncated).length === 0 ? cut.out : { ...cut.out, truncated: cut.truncated };
    const bytes = jsonBytes(out);
    const largest = cut.largest;
    if (bytes <= bounds.maxBytes || !largest) return out;
    // The largest first, to the share that would fit if it alone were cut, and by half at least: a few rounds.
    const share = Math.floor((largest.kept * Math.max(0, largest.bytes - (bytes - bounds.maxBytes))) / largest.bytes);
    limits.set(largest.pointer, Math.max(largest.kind === "list" ? 1 : MIN_TEXT_CHARS, Math.min(Math.floor(largest.kept / 2), share)));
  }
}

/** A list or text that can still be cut: where it is, what it keeps (items or characters) and its bytes. */
interface Cuttable {
  pointer: string;
  kind: "list" | "text";
  kept: number;
  bytes: number;
}

/** The report cut to the bounds and `limits`, the lists cut, and the largest list or text that can be cut further. */
function cutReport(report: Record<string, unknown>, bounds: Bounds, limits: ReadonlyMap<string, number>): { out: Record<string, unknown>; truncated: Record<string, number>; largest: Cuttable | null } {
  const truncated: Record<string, number> = {};
  let largest: Cuttable | null = null;
  const consider = (c: Cuttable): void => {
    if (!largest || c.bytes > largest.bytes) largest = c;
  };
  // Each value cut, with the bytes of its JSON.
  const walk = (value: unknown, pointer: string): { value: unknown; bytes: number } => {
    if (typeof value === "string") {
      const kept = Math.min(limits.get(pointer) ?? bounds.maxChars, bounds.maxChars);
      const text = boundText(value, kept);
      const bytes = jsonBytes(text);
      if (Math.min(kept, value.length) > MIN_TEXT_CHARS) consider({ pointer, kind: "text", kept: Math.min(kept, value.length), bytes });
      return { value: text, bytes };
    }
    if (Array.isArray(value)) {
      const kept = Math.min(limits.get(pointer) ?? bounds.maxItems, bounds.maxItems, value.length);
      if (value.length > kept) truncated[pointer] = value.length;
      const items = value.slice(0, kept).map((v, i) => walk(v, `${pointer}/${i}`));
      const bytes = 2 + items.reduce((n, item) => n + item.bytes + 1, 0);
      if (kept > 1) consider({ pointer, kind: "list", kept, bytes });
      return { value: items.map((item) => item.value), bytes };
    }
    if (value !== null && typeof value === "object") {
      const entries = Object.entries(value).map(([k, v]) => [k, walk(v, `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`)] as const);
      const bytes = 2 + entries.reduce((n, [k, v]) => n + jsonBytes(k) + v.bytes + 2, 0);
      return { value: Object.fromEntries(entries.map(([k, v]) => [k, v.value])), bytes };
    }
    return { value, bytes: value === undefined ? 0 : jsonBytes(value) };
  };
  const out = walk(report, "").value as Record<string, unknown>;
  return { out, truncated, largest };
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "");
