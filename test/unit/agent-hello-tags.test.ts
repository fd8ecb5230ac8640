// A hello's tags and EDR device id: any text an operator could give, never control characters or bidirectional
// overrides. Agents are attacker-controlled; tags are quoted in narratives, reports, the console and the CLI's
// terminal output (and selected on by scopes), the device id in the console and in EDR-triggered runs.
import { test } from "tap";
import { helloChecker } from "../../shared/agents/protocol.js";

const hello = (tags: Record<string, string>, edr: string | null = null) => ({ agent_id: "a-1", hostname: "web-01", tags, edr_device_id: edr, heartbeat_interval_ms: 5_000 });

const BAD = ["prod\nFINDING: none", "a\rb", "a\u0000b", "tab\there", "esc\u001b[2J", "del\u007f", "c1\u0085", "evil\u202egpj", "iso\u2066x\u2069"];

test("tag keys and values with control characters or bidi overrides are refused; ordinary and non-ASCII ones are not", async (t) => {
  t.ok(helloChecker.check(hello({ env: "prod", "team name": "Sécurité", 区域: "东部", empty: "" })).ok, "ordinary, spaced, non-ASCII and empty values");
  for (const bad of BAD) {
    const value = helloChecker.check(hello({ env: bad }));
    t.notOk(value.ok, `value ${JSON.stringify(bad)} refused`);
    const key = helloChecker.check(hello({ [bad]: "prod" }));
    t.notOk(key.ok, `key ${JSON.stringify(bad)} refused`);
  }
  t.ok(helloChecker.check(hello({ ["k".repeat(128)]: "v" })).ok, "a key of 128 characters");
  t.notOk(helloChecker.check(hello({ ["k".repeat(129)]: "v" })).ok, "a key of 129 is refused");
  t.notOk(helloChecker.check(hello({ ["k".repeat(10_000)]: "v" })).ok, "a key of 10,000 is refused");
  t.notOk(helloChecker.check(hello({ "": "v" })).ok, "an empty key is refused");
  const r = helloChecker.check(hello({ env: "prod\n" }));
  t.match(r.ok ? null : r.details, [{ path: "/tags/env" }], "the detail names the tag");
});

test("an EDR device id with control characters or bidi overrides is refused", async (t) => {
  t.ok(helloChecker.check(hello({}, "0123456789abcdef")).ok);
  t.ok(helloChecker.check(hello({}, null)).ok);
  for (const bad of BAD) t.notOk(helloChecker.check(hello({}, bad)).ok, `${JSON.stringify(bad)} refused`);
});
