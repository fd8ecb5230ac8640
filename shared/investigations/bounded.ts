// Keeping what grows with the fleet out of the investigation record and its events (docs/nats.md#findings): the
// engine's report lists inputs, notes and steps per finding or per host, and its narrative names every host. The
// record keeps the first `maxItems` of every list and the first `maxChars` of every text, and says what it cut
// in `report.truncated` (a JSON pointer per cut list: how many items it had). Small reports pass unchanged.

export interface Bounds {
  maxItems: number;
  maxChars: number;
}

export const DEFAULT_REPORT_BOUNDS: Bounds = { maxItems: 100, maxChars: 8192 };

/** A text cut to `maxChars`, saying how much was left out. */
export function boundText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)} … (${text.length - maxChars} more characters cut)`;
}

/** The report with every list and text bounded; `truncated` names the lists cut and their full lengths. */
export function boundReport(report: Record<string, unknown>, bounds: Bounds): Record<string, unknown> {
  const truncated: Record<string, number> = {};
  const walk = (value: unknown, pointer: string): unknown => {
    if (typeof value === "string") return boundText(value, bounds.maxChars);
    if (Array.isArray(value)) {
      if (value.length > bounds.maxItems) truncated[pointer] = value.length;
      return value.slice(0, bounds.maxItems).map((v, i) => walk(v, `${pointer}/${i}`));
    }
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`)]));
    }
    return value;
  };
  const out = walk(report, "") as Record<string, unknown>;
  return Object.keys(truncated).length === 0 ? out : { ...out, truncated };
}
