// Characters a terminal or a text renderer obeys rather than shows: C0 controls, DEL, C1 controls, and the
// bidirectional overrides and isolates (a right-to-left override reorders what a reader sees). One class for every
// place that refuses them (what an agent declares: hostname, tags, EDR device id) or shows them escaped (the CLI's output).

/** The class's contents, `[...]` without its brackets, written for a JSON-schema `pattern` and for a RegExp alike. */
export const CONTROL_CHARACTER_CLASS = "\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069";

/**
 * A JSON-schema `pattern` for text holding none of them, `count` of its characters: `+`, `*` or `{min,max}` (a
 * record key's only bounds are its pattern's: docs/architecture.md, conventions).
 */
export function withoutControlCharacters(count: string): string {
  return `^[^${CONTROL_CHARACTER_CLASS}]${count}$`;
}
