// flat (shared/engine/flat.ts) must give back exactly the text it was given: summaries hold agents' values, which
// may be any UTF-16, lone surrogates included (a UTF-8 round trip would replace those).
import { test } from "tap";
import { flat } from "../../shared/engine/flat.js";

test("flat gives back the same text, whatever it holds", async (t) => {
  const built = ["kworker", " (pid ", String(4242), ") listens on port ", String(4444), " (0.0.0.0)"].reduce((a, b) => a + b, "");
  const cases = [
    "",
    "short",
    built,
    `lone \ud800 high and \udc00 low surrogates, an emoji 🦀, quotes " ' and \\ backslashes`,
    "control \u0000\u0001\n\t\u001f and \u2028\u2029 separators",
    "é".repeat(5_000),
    "x".repeat(2_000) + "\udfff",
  ];
  for (const text of cases) {
    const out = flat(text);
    t.equal(out, text, `the same text (${text.length} chars)`);
    t.equal(out.length, text.length);
  }
});
