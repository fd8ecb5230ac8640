// Durations written as a number plus unit: 100ms, 30s, 2m, 1h, 1d, 1w.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION_RE = /^([0-9]+)(ms|s|m|h|d|w)$/;

/** Milliseconds, or null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const m = DURATION_RE.exec(text.trim());
  if (!m) return null;
  const value = Number(m[1]);
  const unit = UNIT_MS[m[2] as string];
  if (!Number.isSafeInteger(value) || unit === undefined) return null;
  return value * unit;
}

export function parseDurationList(text: string): number[] | null {
  const parts = text.split(",").map((p) => parseDuration(p));
  return parts.every((p): p is number => p !== null) ? parts : null;
}
