// What a recovery owes a subscription (shared/webhooks/recovery.ts wasOwed): only what it wanted when the event was
// stored. A PATCH that adds a type or changes the filters starts that over (`wants_since`): no history is sent.
import { test } from "tap";
import { wasOwed } from "../../shared/webhooks/recovery.js";
import { newSubscription, patchSubscription } from "../../shared/webhooks/subscription.js";
import type { WireEnvelope } from "../../shared/schemas/events.js";

const T0 = Date.parse("2026-11-20T10:00:00.000Z");
const event = (type: string, at: number): WireEnvelope => ({ event_id: `evt_${at}`, type, created_at: new Date(at).toISOString(), data: {} }) as unknown as WireEnvelope;

test("a type added by PATCH is owed only from the PATCH on; the types listed before keep their history", async (t) => {
  const created = newSubscription("sub_OWED00000000000000000000001", { url: "https://93.184.216.34/x", events: ["investigation.queued"] }, "sealed", T0);
  t.ok(wasOwed(created, event("investigation.queued", T0 + 1_000), T0 + 1_000));
  const patched = patchSubscription(created, { events: ["investigation.queued", "investigation.completed"] }, T0 + 60_000);
  t.equal(patched.wants_since, new Date(T0 + 60_000).toISOString());
  t.notOk(wasOwed(patched, event("investigation.completed", T0 + 30_000), T0 + 30_000), "completed before it was asked for: not owed");
  t.ok(wasOwed(patched, event("investigation.completed", T0 + 90_000), T0 + 90_000), "after the PATCH: owed");
  const same = patchSubscription(patched, { events: ["investigation.completed", "investigation.queued"], active: false }, T0 + 120_000);
  t.equal(same.wants_since, patched.wants_since, "the same types in another order, and a pause, change nothing it wants");
  const filtered = patchSubscription(same, { filters: { min_severity: "low" } }, T0 + 180_000);
  t.equal(filtered.wants_since, new Date(T0 + 180_000).toISOString(), "new filters: owed from then on");
});
