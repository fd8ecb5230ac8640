// Text from the service printed to a terminal. Reports quote what agents collected (shell history, process names,
// hostnames), which anyone on a monitored host can write: an escape sequence in it would be obeyed by the operator's
// terminal (OSC 52 writes the clipboard, cursor moves overwrite the verdict, a right-to-left override reorders a
// line). Control characters (C0, DEL, C1) and bidirectional controls are printed as visible escapes instead.

import { CONTROL_CHARACTER_CLASS } from "../shared/control-characters.js";

const CONTROL = new RegExp(`[${CONTROL_CHARACTER_CLASS}]`, "g");
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\t" };

/** `text` safe to print: every control shown as `\xNN` / `\uNNNN` (`\n`, `\r` by name, a tab kept). */
export function terminalLine(text: string): string {
  return text.replace(CONTROL, escapeOne);
}

/** As terminalLine, but line breaks are kept (a narrative's paragraphs); a lone `\r` is still shown, not obeyed. */
export function terminalLines(text: string): string {
  return text.split("\n").map(terminalLine).join("\n");
}

function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}
