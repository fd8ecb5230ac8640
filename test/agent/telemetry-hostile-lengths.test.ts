// The agent reads what any user may write (their own systemd units, their processes' environment) and must not spend
// quadratic time on it: each function below was a regular expression that retried every character of a long run (a
// ReDoS audit: 16 KiB of `a` in one environment value took 0.3 s, 128 KiB of blanks in a unit's ExecStart 13 s).
// Each keeps exactly what the expression it replaced gave, checked here on the forms that matter and on random text.
import { test } from "tap";
import { withoutUrlPasswords } from "../../services/agent/telemetry/env-values.js";
import { withoutComment } from "../../services/agent/telemetry/unit-files.js";

const byExpression = {
  url: (v: string) => v.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s/@:]*):[^\s/@]*@/gi, "$1:<withheld>@"),
  comment: (v: string) => v.replace(/\s+#.*$/, ""),
};

test("a URL's password is withheld as before; the user and host stay", async (t) => {
  t.equal(withoutUrlPasswords("postgres://app:s3cret@db.internal:5432/app"), "postgres://app:<withheld>@db.internal:5432/app");
  t.equal(withoutUrlPasswords("a http://u:p@h b https://v:q@i"), "a http://u:<withheld>@h b https://v:<withheld>@i");
  t.equal(withoutUrlPasswords("1http://u:p@h"), "1http://u:<withheld>@h", "a scheme after a digit");
  t.equal(withoutUrlPasswords("http://nouser@h"), "http://nouser@h");
  t.equal(withoutUrlPasswords("redis://:pw@cache:6379"), "redis://:<withheld>@cache:6379", "an empty user");
});

test("a unit value's trailing comment is cut as before", async (t) => {
  t.equal(withoutComment("/usr/bin/x --flag # run it"), "/usr/bin/x --flag");
  t.equal(withoutComment("/usr/bin/x#not-a-comment"), "/usr/bin/x#not-a-comment");
  t.equal(withoutComment("a #b\nc"), "a #b\nc", "a comment does not run past a line end");
  t.equal(withoutComment("a\n #x"), "a", "the blanks before it, line end included");
});

test("both give what their expressions gave, on random text", async (t) => {
  const alphabet = ["a", "B", "1", "+", ".", "-", ":", "/", "@", " ", "#", "\n", "\t", "\r", "://", "h:p@"];
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let differ = 0;
  for (let n = 0; n < 20_000; n++) {
    let v = "";
    for (let i = 0, len = 1 + Math.floor(next() * 14); i < len; i++) v += alphabet[Math.floor(next() * alphabet.length)];
    if (withoutUrlPasswords(v) !== byExpression.url(v) || withoutComment(v) !== byExpression.comment(v)) differ++;
  }
  t.equal(differ, 0, "20,000 random values");
});

test("512 KiB of what made the expressions quadratic reads in one pass", async (t) => {
  const size = 512 * 1024;
  t.equal(withoutUrlPasswords("a".repeat(size) + "://u:p@h").endsWith("://u:<withheld>@h"), true);
  t.equal(withoutUrlPasswords("a".repeat(size)).length, size);
  t.equal(withoutComment(`/bin/true${" ".repeat(size)}x`).length, size + 10);
  t.equal(withoutComment(`/bin/true${" #".repeat(size / 2)}`), "/bin/true");
});
