// Start-up provisioning waits out an unavailable JetStream (a cluster electing a leader, a node restarting) and
// fails loudly on anything else, or once its patience is spent.
import { JetStreamApiError } from "@nats-io/jetstream";
import { NoRespondersError, RequestError, TimeoutError } from "@nats-io/transport-node";
import { test } from "tap";
import { ProvisioningError } from "../../shared/errors.js";
import { patiently } from "../../shared/nats/provision.js";

test("an unavailable JetStream is waited out; the answer is the first success", async (t) => {
  let calls = 0;
  const value = await patiently(async () => {
    calls++;
    if (calls < 3) throw new ProvisioningError("stream EVENTS: unavailable", { cause: new TimeoutError() });
    return "provisioned";
  }, 10_000);
  t.equal(value, "provisioned");
  t.equal(calls, 3, "tried again twice");
});

test("a cluster still forming (no peers to place the replicas on, 10005) is waited out like an election", async (t) => {
  let calls = 0;
  const noPeers = new JetStreamApiError({ code: 400, err_code: 10005, description: "no suitable peers for placement" });
  const value = await patiently(async () => {
    calls++;
    if (calls < 3) throw new ProvisioningError("stream EVENTS (replicas 3): no suitable peers for placement", { cause: noPeers });
    return "placed";
  }, 10_000);
  t.equal(value, "placed");
  t.equal(calls, 3);
  const otherBadRequest = new JetStreamApiError({ code: 400, err_code: 10003, description: "bad request" });
  await t.rejects(
    patiently(async () => {
      throw new ProvisioningError("stream EVENTS: bad request", { cause: otherBadRequest });
    }, 10_000),
    /bad request/,
    "another 400 is not waited out",
  );
});

test("any other error is thrown at once", async (t) => {
  let calls = 0;
  await t.rejects(
    patiently(async () => {
      calls++;
      throw new ProvisioningError("stream EVENTS: the server kept max_age=0, expected 2592000000000000");
    }, 10_000),
    /the server kept/,
  );
  t.equal(calls, 1);
});

test("no responders (a server without JetStream) is said at once: waiting would not change it", async (t) => {
  let calls = 0;
  await t.rejects(
    patiently(async () => {
      calls++;
      throw new RequestError("no responders", { cause: new NoRespondersError("$JS.API.INFO") });
    }, 10_000),
  );
  t.equal(calls, 1);
});

test("unavailable past its patience: the last error is thrown", async (t) => {
  let calls = 0;
  await t.rejects(
    patiently(async () => {
      calls++;
      throw new TimeoutError();
    }, 600),
  );
  t.ok(calls >= 2, `tried ${calls} times, then gave up`);
});
