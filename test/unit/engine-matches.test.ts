// allMatches gives what String.prototype.matchAll gives, match for match, without copying the expression.
import { test } from "tap";
import { allMatches } from "../../shared/engine/matches.js";

const same = (re: RegExp, text: string): Array<[string, number, Array<string | undefined>]> =>
  allMatches(re, text).map((m) => [m[0], m.index, [...m].slice(1)]);
const expected = (re: RegExp, text: string): Array<[string, number, Array<string | undefined>]> =>
  [...text.matchAll(re)].map((m) => [m[0], m.index ?? -1, [...m].slice(1)]);

test("the same matches as matchAll, groups and indexes included", async (t) => {
  const cases: Array<[RegExp, string]> = [
    [/\b(\d{1,3}(?:\.\d{1,3}){3})\b/g, "from 10.0.0.1 to 192.168.1.20, then 10.0.0.1 again"],
    [/\bports?\s+((?:\d{1,5})(?:\s*(?:,|\/|and|or)\s*\d{1,5})*)/gi, "Port 22 and ports 80, 443 or 8080"],
    [/(x)?y/g, "yxyy"],
    [/a*/g, "baaac"],
    [/(?:)/g, "abc"],
    [/\u{1F600}|(?:)/gu, "a\u{1F600}b"],
    [/nothing/g, "here"],
    [/CVE-\d{4}-\d{4,7}/gi, "cve-2024-3094 and CVE-2021-44228"],
  ];
  for (const [re, text] of cases) t.same(same(re, text), expected(re, text), `${String(re)} on ${JSON.stringify(text)}`);
});

test("a shared expression is left as it was found, and can be used again at once", async (t) => {
  const re = /o/g;
  t.equal(allMatches(re, "foo boo").length, 4);
  t.equal(re.lastIndex, 0);
  re.lastIndex = 3;
  t.equal(allMatches(re, "foo").length, 2, "a lastIndex left by someone else does not skip matches");
  t.equal(re.lastIndex, 0);
});

test("a non-global expression is refused (exec would find its first match forever)", async (t) => {
  t.throws(() => allMatches(/o/, "foo"), TypeError);
});
