// A NATS call that failed and is tried again: routine unavailability (a failover) at info with its message, not a
// warning with a stack trace; anything else stays a warning with the whole error (an operator's walkthrough found
// leader elections logged as warnings with stacks).
import { test } from "tap";
import { TimeoutError } from "@nats-io/transport-node";
import { logRetriedFailure } from "../../shared/nats/errors.js";

function recorder() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  return {
    lines,
    info: (fields: object, msg: string) => void lines.push({ level: "info", fields: fields as Record<string, unknown>, msg }),
    warn: (fields: object, msg: string) => void lines.push({ level: "warn", fields: fields as Record<string, unknown>, msg }),
  };
}

test("unavailability at info with its reason only; other failures at warn with the error", async (t) => {
  const log = recorder();
  logRetriedFailure(log, new TimeoutError(), "lease renewal failed", { investigation_id: "inv_1" });
  logRetriedFailure(log, new Error("unexpected shape"), "lease renewal failed");
  t.equal(log.lines[0]?.level, "info");
  t.equal(log.lines[0]?.fields.investigation_id, "inv_1");
  t.type(log.lines[0]?.fields.reason, "string");
  t.notOk("err" in (log.lines[0]?.fields ?? {}), "no error object, so no stack");
  t.equal(log.lines[1]?.level, "warn");
  t.type(log.lines[1]?.fields.err, Error);
});
