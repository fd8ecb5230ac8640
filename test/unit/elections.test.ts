// Idempotent writes outlast a leader election (shared/nats/elections.ts): no responders or a timeout is tried again
// within the patience, any other error (a permission refusal, a bad request) is thrown at once.
import { test } from "tap";
import { NoRespondersError, PermissionViolationError, RequestError } from "@nats-io/transport-node";
import { throughElections } from "../../shared/nats/elections.js";

const noLeader = () => new RequestError("no responders", { cause: new NoRespondersError("$KV.inq_findings.x") });

test("a write that meets no stream leader is sent again until one answers", async (t) => {
  let calls = 0;
  const value = await throughElections(async () => {
    calls++;
    if (calls < 3) throw noLeader();
    return 42;
  }, 5_000);
  t.equal(value, 42);
  t.equal(calls, 3);
});

test("past its patience, the last error is thrown", async (t) => {
  let calls = 0;
  await t.rejects(
    throughElections(async () => {
      calls++;
      throw noLeader();
    }, 300),
    /no responders/,
  );
  t.ok(calls >= 2 && calls <= 4, `${calls} tries in 300 ms`);
});

test("an error that waiting will not change is thrown at once", async (t) => {
  let calls = 0;
  await t.rejects(
    throughElections(async () => {
      calls++;
      throw new PermissionViolationError("Permissions Violation for Publish to \"$KV.x\"", "publish", "$KV.x");
    }, 5_000),
  );
  t.equal(calls, 1);
});
