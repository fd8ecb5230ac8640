// One rule for tag names: whatever an agent may declare in its hello, a scope may select, and the names a hello
// refuses a scope refuses too (shared/schemas/common.ts TAG_KEY_PATTERN). Before, a hello took "team name" and every
// scope naming it was a 400: the agent could never be selected by that tag.
import { test } from "tap";
import { Hello } from "../../shared/agents/protocol.js";
import { Scope } from "../../shared/schemas/common.js";
import { checker } from "../../shared/validate.js";

const hello = checker(Hello);
const scope = checker(Scope);

const helloWith = (name: string) => ({ agent_id: "a-1", hostname: "h", tags: { [name]: "v" }, edr_device_id: null, heartbeat_interval_ms: 5_000 });
const scopeWith = (name: string) => ({ type: "selector", filter: { tags: { [name]: "v" } } });

const NAMES: Array<[string, boolean]> = [
  ["env", true],
  ["k8s.io/role:x_y-z", true],
  ["team name", true],
  ["équipe", true],
  ["owner@example", true],
  ["k".repeat(128), true],
  ["k".repeat(129), false],
  ["", false],
  ["bad\nname", false],
  ["tab\tname", false],
  ["del\u007fname", false],
  ["c1\u0085name", false],
  ["rtl\u202ename", false],
  ["isolate\u2066name", false],
];

test("a hello and a scope take the same tag names", async (t) => {
  for (const [name, allowed] of NAMES) {
    // Escaped: the test's own output must not obey the characters it checks.
    const shown = name.length > 20 ? `${name.slice(0, 10)}... (${name.length})` : name;
    const label = JSON.stringify(shown).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    t.equal(hello.check(helloWith(name)).ok, allowed, `hello ${allowed ? "takes" : "refuses"} ${label}`);
    t.equal(scope.check(scopeWith(name)).ok, allowed, `scope ${allowed ? "takes" : "refuses"} ${label}`);
  }
});

test("a refused tag name is said to break the naming rule, not to be an unknown field", async (t) => {
  const r = scope.check(scopeWith("bad\nname"));
  t.equal(r.ok, false);
  const detail = r.ok ? undefined : r.details.find((d) => d.path === "/filter/tags/bad\nname");
  t.match(detail?.message, /^is not a valid name here: names must match /);
  const unknown = scope.check({ type: "selector", filter: { tags: {}, extra: 1 } });
  t.same(unknown.ok ? [] : unknown.details, [{ path: "/filter/extra", message: "unknown field" }], "a field the object has no place for is still unknown");
});
