// Fan-out rules (docs/api.md#webhooks): event types, min_severity, subscriptions newer than the event, delivery ids.
import { test } from "tap";
import type { WireEnvelope } from "../../shared/schemas/events.js";
import { derivedId, ulid } from "../../shared/ids.js";
import { deliveryIdFor, deliveryIdKey, passesFilters, severityOf, wantsEvent } from "../../shared/webhooks/fanout.js";
import { newSubscription, patchSubscription } from "../../shared/webhooks/subscription.js";

const T0 = Date.parse("2026-11-22T10:00:00.000Z");
const KEY = deliveryIdKey(Buffer.alloc(32, 7)); // from a master key
const ev = (type: WireEnvelope["type"], data: Record<string, unknown>, id = "evt_01"): WireEnvelope => ({ event_id: id, type, created_at: new Date(T0).toISOString(), data });
const finding = (severity: string) => ev("finding.discovered", { investigation_id: "inv_1", finding: { severity } });
const completed = (severity: string | null) => ev("investigation.completed", { investigation_id: "inv_1", summary: severity === null ? null : { severity } });
const sub = (filters: Record<string, string> = {}, events: WireEnvelope["type"][] = ["finding.discovered", "investigation.completed", "investigation.failed", "agent.connected"]) =>
  newSubscription("sub_1", { url: "https://93.184.216.34/x", events, filters: filters as never }, "sealed", T0 - 1000);

test("severity: a finding's, or a completed investigation's summary; none otherwise", async (t) => {
  t.equal(severityOf(finding("high")), "high");
  t.equal(severityOf(completed("low")), "low");
  t.equal(severityOf(completed(null)), null);
  t.equal(severityOf(ev("investigation.failed", { summary: { severity: "critical" } })), null, "only completed investigations carry one");
  t.equal(severityOf(ev("agent.connected", { agent_id: "a" })), null);
  t.equal(severityOf(finding("bogus")), null);
});

test("min_severity: info < low < medium < high < critical; events without severity pass", async (t) => {
  const order = ["info", "low", "medium", "high", "critical"];
  for (const [i, min] of order.entries()) {
    for (const [j, s] of order.entries()) {
      t.equal(passesFilters(sub({ min_severity: min }), finding(s)), j >= i, `${s} vs min ${min}`);
    }
  }
  t.ok(passesFilters(sub({ min_severity: "critical" }), ev("investigation.failed", {})), "no severity passes");
  t.ok(passesFilters(sub({ min_severity: "critical" }), completed(null)));
  t.ok(passesFilters(sub(), finding("info")), "no filter");
  t.notOk(passesFilters(sub({ min_severity: "high" }), finding("extreme")), "a finding with no valid severity is below any minimum");
  t.notOk(passesFilters(sub({ min_severity: "info" }), ev("finding.discovered", { investigation_id: "inv_1" })), "a finding without one");
  t.ok(passesFilters(sub(), finding("extreme")), "without a minimum it passes");
});

test("wantsEvent: an old event stored again later is history to a subscription made after it happened", async (t) => {
  const s = sub(); // created T0 - 1000
  const old = { ...finding("high"), created_at: new Date(T0 - 130_000).toISOString() };
  t.notOk(wantsEvent(s, old, T0 + 5_000), "happened 129 s before the subscription, stored again after it");
  const skewed = { ...finding("high"), created_at: new Date(T0 - 2_500).toISOString() };
  t.ok(wantsEvent(s, skewed, T0 + 10), "a producer's clock 1.5 s behind the gateway's");
  t.ok(wantsEvent(s, { ...finding("high"), created_at: "not a time" }, T0), "no time of its own: storage decides");
});

test("wantsEvent: active, subscribed type, created before the event was stored, filters", async (t) => {
  const s = sub({ min_severity: "medium" });
  t.ok(wantsEvent(s, finding("high"), T0));
  t.notOk(wantsEvent(s, finding("low"), T0), "filtered");
  t.notOk(wantsEvent({ ...s, active: false }, finding("high"), T0), "paused");
  t.notOk(wantsEvent(s, ev("agent.disconnected", {}), T0), "type not subscribed");
  t.notOk(wantsEvent(s, finding("high"), T0 - 5000), "stored before the subscription existed");
  const patched = patchSubscription(s, { events: ["agent.disconnected"] }, T0);
  t.ok(wantsEvent(patched, ev("agent.disconnected", {}), T0));
  t.notOk(wantsEvent(patched, finding("high"), T0), "events replaced as a whole");
  t.same(patchSubscription(s, { filters: {} }, T0).filters, {}, "filters replaced as a whole");
  t.equal(patchSubscription(s, { active: false }, T0).url, s.url, "omitted fields stay");
});

test("one delivery id per (event, subscription), the same every time", async (t) => {
  const e = finding("high");
  const a = deliveryIdFor(e, "sub_1", T0, KEY);
  t.match(a, /^dlv_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.equal(deliveryIdFor(e, "sub_1", T0 + 99_999, KEY), a, "stable across redeliveries and republishes");
  t.equal(deliveryIdFor(e, "sub_1", T0, deliveryIdKey(Buffer.alloc(32, 7))), a, "the same for every dispatcher with the same master key");
  t.not(deliveryIdFor(e, "sub_2", T0, KEY), a, "per subscription");
  t.not(deliveryIdFor(finding("high"), "sub_1", T0, KEY), deliveryIdFor({ ...finding("high"), event_id: "evt_02" }, "sub_1", T0, KEY), "per event");
  t.equal(deliveryIdFor(e, "sub_1", T0, KEY).slice(4, 14), deliveryIdFor(ev("agent.connected", {}, "evt_x"), "sub_9", T0, KEY).slice(4, 14), "time-ordered by the event's time");
  t.equal(a.slice(4, 14), ulid(T0).slice(0, 10), "the time part is the event's created_at");
});

test("delivery ids are unguessable: keyed with a server secret, not computable from the event and subscription ids", async (t) => {
  const e = finding("high");
  const a = deliveryIdFor(e, "sub_1", T0, KEY);
  const other = deliveryIdFor(e, "sub_1", T0, deliveryIdKey(Buffer.alloc(32, 8)));
  t.match(other, /^dlv_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.not(other, a, "another master key gives another id");
  t.equal(other.slice(0, 14), a.slice(0, 14), "only the random part differs");
  t.not(a, derivedId("dlv", T0, `${e.event_id}:sub_1`), "not the plain hash of the public ids");
  t.not(a, derivedId("dlv", T0, `${e.event_id}:sub_1`, Buffer.alloc(32, 7)), "nor the HMAC under the master key itself (a purpose-bound key)");
  t.not(deliveryIdKey(Buffer.alloc(32, 7)).equals(Buffer.alloc(32, 7)), "the id key is not the master key");
});
