// InOrder (parts in order within a segment, linear) and the patterns rewritten on it keep their meaning.
import { test } from "tap";
import { InOrder } from "../../shared/engine/in-order.js";
import { passwordGrep } from "../../shared/engine/detections/credential-file-access.js";
import { heartbeatPing } from "../../shared/engine/baselines/index.js";

test("parts in order, within one segment, each after the last", async (t) => {
  const p = new InOrder(/[|;]/, [/\bgrep\b/, /-r\b/, /KEY/]);
  t.ok(p.test("grep -r KEY /"));
  t.ok(p.test("ls; grep -n -r 'PRIVATE KEY' ~"), "in a later segment");
  t.notOk(p.test("KEY grep -r"), "out of order");
  t.notOk(p.test("grep -r x | KEY"), "across a stop");
  t.notOk(p.test("grep KEY -r"), "the second part after the first, the third after the second");
  t.same(p.find("ls | xgrep; a grep -r KEY b"), { index: 14, end: 25 }, "the span in the whole text");
  t.equal(p.find("nothing"), null);
  const alt = new InOrder(/\n/, [/a/, /b/], [/c/]);
  t.ok(alt.test("x\nc"), "any alternative");
  t.notOk(alt.test("b a"));
});

test("the password grep reads options, pattern and tree as before", async (t) => {
  t.ok(passwordGrep("grep -rni password /"));
  t.ok(passwordGrep("grep -r -i --include=*.conf 'passwd' /etc/ | head"));
  t.ok(passwordGrep("egrep -R -e secret /home"), "-e is an option; its value the pattern");
  t.notOk(passwordGrep("grep -i password /"), "not recursive");
  t.notOk(passwordGrep("grep -r password ./src"), "not a whole tree");
  t.notOk(passwordGrep("grep -r hello password /"), "the password word is not the pattern");
  t.notOk(passwordGrep("grep -r password | ls /"), "the tree is in another command");
});

test("a heartbeat ping is cut at its command's end", async (t) => {
  const cut = heartbeatPing("/opt/backup.sh && curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/abc-123");
  t.equal(cut?.rest.trim(), "/opt/backup.sh", "the ping removed");
  const piped = heartbeatPing("curl -s https://hc-ping.com/x|sh");
  t.match(piped?.rest ?? "", /\|sh/, "a pipe after the URL stays in what is re-checked");
});
