// Every match of a global regular expression, as String.prototype.matchAll gives them, without the copy of the
// expression that matchAll makes on every call (a RegExp constructed and initialised each time: 1-2 % of a POST's
// CPU in the gateway, where routing a question runs a dozen of them).

/** Matches of `re` (which must be global) in `text`, in order. Synchronous: it uses and resets `re.lastIndex`. */
export function allMatches(re: RegExp, text: string): RegExpExecArray[] {
  if (!re.global) throw new TypeError(`allMatches needs a global regular expression: ${String(re)}`);
  const found: RegExpExecArray[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    found.push(m);
    // As matchAll: an empty match moves on by one code point, so the scan always ends.
    if (m[0] === "") re.lastIndex = advance(text, re.lastIndex, re.unicode);
  }
  re.lastIndex = 0;
  return found;
}

function advance(text: string, index: number, unicode: boolean): number {
  if (!unicode || index + 1 >= text.length) return index + 1;
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff ? index + 2 : index + 1;
}
