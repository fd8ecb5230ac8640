// Locale-independent ordering, so sorted output is the same on every machine.

/** Compares strings by UTF-16 code units (what Array.prototype.sort does), unlike localeCompare. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
