// The webhook subscriptions read model: oldest first (ids are time-ordered), one page per walk of the local
// index instead of listing the bucket's keys and reading each subscription.
import type { IndexKey, ReadModelSpec } from "../../shared/readmodel.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";

/** Also the cursor's prefix, as before the read model: ["subscriptions", <last id>]. */
export const SUBSCRIPTION_PREFIX: IndexKey = ["subscriptions"];

export const subscriptionIndex: ReadModelSpec<SubscriptionRecord> = {
  name: "subscriptions.v1",
  indexKeys: (r) => [[...SUBSCRIPTION_PREFIX, r.id]],
};
