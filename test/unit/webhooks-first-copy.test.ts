// When the fan-out may skip looking for an existing delivery record (services/dispatcher/first-copy.ts): only for
// the first copy the stream can have stored, proved by the message id and the duplicate window.
import { test } from "tap";
import { headers } from "@nats-io/nats-core";
import { CONSUMER_CREATED_MARGIN_MS, FIRST_COPY_HORIZON_MS, FIRST_DELIVERY_FRESH_MS, isFirstDelivery, isFirstStoredCopy, messageIdOf } from "../../services/dispatcher/first-copy.js";
import { STREAMS } from "../../shared/nats/catalog.js";

const T0 = Date.parse("2026-11-27T10:00:00.000Z");
const event = { event_id: "evt_01", created_at: new Date(T0).toISOString() };

test("the horizon is half the EVENTS stream's duplicate window", async (t) => {
  t.equal(FIRST_COPY_HORIZON_MS * 2 * 1_000_000, STREAMS.events.duplicate_window);
  t.equal(FIRST_COPY_HORIZON_MS, 60_000);
});

test("stored with its event id as message id, soon after it was made: the first copy", async (t) => {
  t.ok(isFirstStoredCopy(event, "evt_01", T0 + 5));
  t.ok(isFirstStoredCopy(event, "evt_01", T0 + FIRST_COPY_HORIZON_MS - 1), "just inside the horizon");
  t.ok(isFirstStoredCopy(event, "evt_01", T0 - 30_000), "a publisher clock ahead of the server's (within the horizon)");
});

test("anything else keeps the record check", async (t) => {
  t.notOk(isFirstStoredCopy(event, "evt_01", T0 + FIRST_COPY_HORIZON_MS), "at the horizon: a second copy could be stored by then");
  t.notOk(isFirstStoredCopy(event, "evt_01", T0 + 3_600_000), "an old event (republished after a crash)");
  t.notOk(isFirstStoredCopy(event, undefined, T0 + 5), "no message id: the stream deduplicated nothing");
  t.notOk(isFirstStoredCopy(event, "", T0 + 5), "an empty message id");
  t.notOk(isFirstStoredCopy(event, "evt_02", T0 + 5), "a message id that is not the event id");
  t.notOk(isFirstStoredCopy({ ...event, created_at: "not a date" }, "evt_01", T0 + 5), "no usable created_at");
  t.notOk(isFirstStoredCopy(event, "evt_01", Number.NaN), "no stored time");
});

test("the message id is read from the Nats-Msg-Id header", async (t) => {
  const h = headers();
  h.set("Nats-Msg-Id", "evt_01");
  t.equal(messageIdOf({ headers: h }), "evt_01");
  t.equal(messageIdOf({ headers: undefined }), undefined);
  t.equal(messageIdOf({ headers: headers() }), undefined);
});

test("a first delivery: not redelivered, stored after the durable was made, and fresh", async (t) => {
  const created = T0 - 3_600_000;
  const at = (over: Partial<{ redelivered: boolean; consumerCreatedMs: number | null; nowMs: number }> = {}) => ({ redelivered: false, consumerCreatedMs: created, nowMs: T0 + 20, ...over });
  t.ok(isFirstDelivery(T0, at()), "stored an hour after the durable, received 20 ms later");
  t.notOk(isFirstDelivery(T0, at({ redelivered: true })), "a redelivery");
  t.notOk(isFirstDelivery(T0, at({ consumerCreatedMs: null })), "the durable's creation unknown");
  t.notOk(isFirstDelivery(T0, at({ consumerCreatedMs: T0 + 60_000 })), "stored before the durable was made: replayed history");
  t.notOk(isFirstDelivery(T0, at({ consumerCreatedMs: T0 - CONSUMER_CREATED_MARGIN_MS })), "within the margin after it was made");
  t.ok(isFirstDelivery(T0, at({ consumerCreatedMs: T0 - CONSUMER_CREATED_MARGIN_MS - 1 })), "just past the margin");
  t.notOk(isFirstDelivery(T0, at({ nowMs: T0 + FIRST_DELIVERY_FRESH_MS })), "received too long after it was stored (a backlog)");
  t.ok(isFirstDelivery(T0, at({ nowMs: T0 - 500 })), "this process's clock a little behind the server's");
  t.notOk(isFirstDelivery(Number.NaN, at()), "no stored time");
});
