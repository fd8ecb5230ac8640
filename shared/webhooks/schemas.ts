// Outbound webhook API schemas (docs/api.md#webhooks). Plain JSON Schema: they validate requests
// and build the OpenAPI document.
import { Type, type Static } from "typebox";
import { literalUnion, NextCursor, NullableTimestamp, SeverityName, Timestamp } from "../schemas/common.js";
import { EventEnvelope, EventTypeSchema } from "../schemas/events.js";

export const DELIVERY_STATUSES = ["pending", "delivered", "failed_permanent"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const DeliveryStatusSchema = literalUnion(DELIVERY_STATUSES, "failed_permanent is the dead-letter state.");

const Url = Type.String({ minLength: 1, maxLength: 2048, description: "Absolute http or https URL that receives the POSTs." });
const Events = Type.Array(EventTypeSchema, { minItems: 1, maxItems: 64, description: "Event types subscribed to; taken as given on PATCH." });
export const Filters = Type.Object(
  { min_severity: Type.Optional(SeverityName) },
  { additionalProperties: false, description: "min_severity drops events whose severity is below it; events without severity pass." },
);
export type Filters = Static<typeof Filters>;

/** Bounds of the per-subscription options (docs/api.md#subscription-options). */
export const MAX_CUSTOM_HEADERS = 16;
export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 30;
export const MAX_RATE_LIMIT_PER_SECOND = 1_000;

// A header name is an RFC 9110 token; a value is visible ASCII, spaces and tabs (no CR/LF: no header injection).
const HeaderName = Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$" });
const HeaderValue = Type.String({ maxLength: 1024, pattern: "^[\\x20-\\x7E\\t]*$" });
const CustomHeaders = Type.Union(
  [Type.Record(HeaderName, HeaderValue, { maxProperties: MAX_CUSTOM_HEADERS, additionalProperties: false }), Type.Null()],
  {
    description:
      "Headers added to every POST (write-only: values are sealed at rest and never shown; replaced as a whole on PATCH, {} or null removes them). Names Inquest sets itself (Content-Type, User-Agent, X-Service-*, webhook-*, hop-by-hop headers) are refused.",
  },
);
const TimeoutSeconds = Type.Union([Type.Integer({ minimum: MIN_TIMEOUT_SECONDS, maximum: MAX_TIMEOUT_SECONDS }), Type.Null()], {
  description: "How long one attempt waits for an answer; null: the dispatcher's INQUEST_DELIVERY_TIMEOUT (10 s).",
});
const RateLimit = Type.Union([Type.Integer({ minimum: 1, maximum: MAX_RATE_LIMIT_PER_SECOND }), Type.Null()], {
  description: "At most this many POSTs start per second across every dispatcher replica; null: no limit. Waiting spends no attempt.",
});

export const CreateSubscriptionRequest = Type.Object(
  {
    url: Url,
    events: Events,
    filters: Type.Optional(Filters),
    active: Type.Optional(Type.Boolean({ description: "Default true; false pauses the subscription." })),
    headers: Type.Optional(CustomHeaders),
    timeout_seconds: Type.Optional(TimeoutSeconds),
    rate_limit_per_second: Type.Optional(RateLimit),
  },
  { additionalProperties: false },
);
export type CreateSubscriptionRequest = Static<typeof CreateSubscriptionRequest>;

/** The create fields, each optional (derived, so the two cannot drift apart). */
export const PatchSubscriptionRequest = Type.Partial(CreateSubscriptionRequest, {
  additionalProperties: false,
  description: "Only the included fields change; events and filters are replaced as a whole.",
});
export type PatchSubscriptionRequest = Static<typeof PatchSubscriptionRequest>;

export const SubscriptionView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(EventTypeSchema),
  filters: Filters,
  active: Type.Boolean(),
  disabled_reason: Type.Union([Type.Literal("endpoint_gone"), Type.Literal("failing"), Type.Null()], {
    description:
      "Set when the dispatcher turned the subscription off: endpoint_gone (it answered 410 Gone) or failing (every attempt failed for INQUEST_DISABLE_FAILING_AFTER, default 5 days); cleared by PATCH `active: true`.",
  }),
  failing_since: Type.Union([Timestamp, Type.Null()], { description: "When the current run of failed attempts began; null once an attempt succeeds." }),
  header_names: Type.Array(Type.String(), { description: "Names of the custom headers sent with every POST (their values are never shown)." }),
  timeout_seconds: TimeoutSeconds,
  rate_limit_per_second: RateLimit,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type SubscriptionView = Static<typeof SubscriptionView>;

export const CreatedSubscription = Type.Object({
  ...SubscriptionView.properties,
  secret: Type.String({ description: "whsec_ + base64 of 32 random bytes; shown only here." }),
});

export const SubscriptionList = Type.Object({ subscriptions: Type.Array(SubscriptionView), next_cursor: NextCursor });

export const SubscriptionListQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
});

export const Attempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: Timestamp,
  response_code: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer({ minimum: 0 }),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type Attempt = Static<typeof Attempt>;

export const DeliveryView = Type.Object({
  delivery_id: Type.String(),
  event_id: Type.String(),
  event_type: EventTypeSchema,
  subscription_id: Type.String(),
  status: DeliveryStatusSchema,
  attempt_count: Type.Integer({ minimum: 0 }),
  last_response_code: Type.Union([Type.Integer(), Type.Null()], { description: "null when no HTTP answer was received." }),
  last_response_body: Type.Union([Type.String(), Type.Null()], { description: "The first 4096 bytes." }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: "e.g. timeout, connection_refused, http_500, subscription_deleted." }),
  next_attempt_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  replay_of: Type.Union([Type.String(), Type.Null()]),
  attempts: Type.Array(Attempt),
});
export type DeliveryView = Static<typeof DeliveryView>;

export const DeliveryDetail = Type.Object({ ...DeliveryView.properties, envelope: EventEnvelope });

/** What an attempt's answer said, beyond its code: kept with the delivery record (30 days), shown by .../attempts. */
export const AttemptAnswer = Type.Object({
  response_headers: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
    description: "A few response headers (content-type, content-length, retry-after, date, server, x-request-id, location), each cut at 256 characters; null without an HTTP answer.",
  }),
  response_body: Type.Union([Type.String(), Type.Null()], { description: "The first 4096 bytes of the answer, as text; null without an HTTP answer." }),
});
export type AttemptAnswer = Static<typeof AttemptAnswer>;

export const AttemptDetail = Type.Object({ ...Attempt.properties, ...AttemptAnswer.properties });
export type AttemptDetail = Static<typeof AttemptDetail>;

export const AttemptList = Type.Object(
  { delivery_id: Type.String(), attempts: Type.Array(AttemptDetail) },
  { description: "Every attempt, oldest first: at most the retry budget's five per delivery, so not paginated." },
);
export type AttemptList = Static<typeof AttemptList>;

export const DeliveryList = Type.Object({ deliveries: Type.Array(DeliveryView), next_cursor: NextCursor });

/**
 * The longest subscription_id or event_id a deliveries filter takes (ids are about 30 characters; the values go into
 * the read model's LMDB keys, which are bounded). The route checks it; this schema documents it.
 */
export const FILTER_ID_MAX_CHARS = 128;

export const DeliveryListQuery = Type.Object({
  status: Type.Optional(DeliveryStatusSchema),
  subscription_id: Type.Optional(Type.String({ maxLength: FILTER_ID_MAX_CHARS })),
  event_id: Type.Optional(Type.String({ maxLength: FILTER_ID_MAX_CHARS })),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
});

export const TestDeliveryResponse = Type.Object({ delivery_id: Type.String() });
export const ReplayResponse = Type.Object({ delivery_id: Type.String(), status: DeliveryStatusSchema });

export const DEFAULT_GRACE_PERIOD_SECONDS = 24 * 3600;
export const MAX_GRACE_PERIOD_SECONDS = 7 * 24 * 3600;

export const RotateSecretRequest = Type.Object(
  {
    grace_period_seconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_GRACE_PERIOD_SECONDS, description: "How long the old secret keeps signing (default 86400 = 24 h; 0 = at once)." }),
    ),
  },
  { additionalProperties: false },
);
export type RotateSecretRequest = Static<typeof RotateSecretRequest>;

export const RotatedSecret = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: "The new secret, `whsec_<base64>`: shown only here." }),
  previous_secret_expires_at: NullableTimestamp,
});
