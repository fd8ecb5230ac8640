// A hello's hostname: any name a host could have, never control characters or bidirectional overrides (they are
// quoted in narratives, the console and the CLI's terminal output).
import { test } from "tap";
import { helloChecker } from "../../shared/agents/protocol.js";

const hello = (hostname: string) => ({ agent_id: "a-1", hostname, tags: {}, edr_device_id: null, heartbeat_interval_ms: 5_000 });

test("hostnames with control characters or bidi overrides are refused; ordinary and non-ASCII names are not", async (t) => {
  for (const name of ["web-01.prod.example.com", "WEB_01", "hôte-01", "主机-1", "a b", "x".repeat(255)]) t.ok(helloChecker.check(hello(name)).ok, JSON.stringify(name));
  for (const name of ["web-01\nFINDING: none", "web\r01", "a\u0000b", "tab\there", "esc\u001b]52;c;x\u0007", "del\u007f", "c1\u009b", "evil\u202egpj.exe", "iso\u2066late\u2069", ""]) {
    const r = helloChecker.check(hello(name));
    t.notOk(r.ok, `${JSON.stringify(name)} refused`);
  }
  const r = helloChecker.check(hello("web-01\n"));
  t.match(r.ok ? null : r.details, [{ path: "/hostname" }], "the detail names the field");
});
