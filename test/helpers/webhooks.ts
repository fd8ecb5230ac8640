// Outbound-webhook test helpers: subscriptions over the API, events straight onto the public EVENTS stream
// (docs/api.md#public-subjects: other systems may publish and read `events.<type>`), and polling of delivery records.
import { randomUUID } from "node:crypto";
import { DeliverPolicy, jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { openRuntime } from "../../shared/runtime.js";
import type { EventEnvelope } from "../../shared/schemas/events.js";
import { decodeJson } from "../../shared/nats/kvjson.js";
import { STREAMS, SUBJECTS } from "../../shared/nats/catalog.js";
import { openWebhookStores, WEBHOOK_CONSUMERS, type WebhookStores } from "../../shared/webhooks/catalog.js";
import type { DeliveryRecord } from "../../shared/webhooks/delivery.js";
import type { DeliveryStatus } from "../../shared/webhooks/schemas.js";
import type { SubscriptionRecord } from "../../shared/webhooks/subscription.js";
import { connectTo, startNats, type NatsServer } from "./nats.js";
import { api, eventually, type Stack } from "./stack.js";

export interface Sub {
  id: string;
  secret: string;
}

export async function createSub(stack: Stack, body: Record<string, unknown>): Promise<Sub> {
  const r = await api(stack.baseUrl, "POST", "/v1/webhooks/subscriptions", { key: stack.key, body });
  if (r.status !== 201) throw new Error(`create subscription: ${r.status} ${r.text}`);
  return { id: r.json.id as string, secret: r.json.secret as string };
}

let counter = 0;

/** A unique, valid event id (`evt_` + 26 Crockford characters). */
export function eventId(): string {
  const tail = (Date.now().toString(32) + randomUUID().replace(/-/g, "") + (counter++).toString(32)).toUpperCase().replace(/[ILOU]/g, "X");
  return `evt_${tail.slice(0, 26).padEnd(26, "0")}`;
}

export interface TestEvent {
  event_id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

export function makeEvent(type: string, data: Record<string, unknown> = {}, id = eventId()): TestEvent {
  return { event_id: id, type, created_at: new Date().toISOString(), data };
}

/** Publishes an envelope on `events.<type>`; `msgID` defaults to the event id, as the producers do. */
export async function publish(nc: NatsConnection, event: TestEvent, msgID: string = event.event_id): Promise<void> {
  await jetstream(nc).publish(`events.${event.type}`, JSON.stringify(event), { msgID });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export async function listDeliveries(stack: Stack, query: string): Promise<Json[]> {
  const out: Json[] = [];
  let cursor: string | null = null;
  do {
    const r = await api(stack.baseUrl, "GET", `/v1/webhooks/deliveries?limit=200&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: stack.key });
    if (r.status !== 200) throw new Error(`list deliveries: ${r.status} ${r.text}`);
    out.push(...(r.json.deliveries as Json[]));
    cursor = r.json.next_cursor as string | null;
  } while (cursor);
  return out;
}

export async function getDelivery(stack: Stack, id: string): Promise<Json> {
  const r = await api(stack.baseUrl, "GET", `/v1/webhooks/deliveries/${id}`, { key: stack.key });
  if (r.status !== 200) throw new Error(`get delivery ${id}: ${r.status} ${r.text}`);
  return r.json;
}

/** The delivery of (event, subscription), once `done` holds for it. */
export async function waitDelivery(stack: Stack, eventIdValue: string, subId: string, done: (d: Json) => boolean, timeoutMs = 15_000): Promise<Json> {
  return eventually(async () => {
    const list = await listDeliveries(stack, `event_id=${eventIdValue}&subscription_id=${subId}`);
    const d = list[0];
    if (!d) return undefined;
    return done(d) ? getDelivery(stack, d.delivery_id as string) : undefined;
  }, timeoutMs, 50);
}

export const terminal = (d: Json): boolean => d.status !== "pending";

/** A fresh nats-server with every stream and bucket provisioned, and the webhook stores opened on it. */
export async function webhookBus(): Promise<{ server: NatsServer; nc: NatsConnection; stores: WebhookStores }> {
  const server = await startNats();
  const nc = await connectTo(server.url);
  await openRuntime(nc, { replicas: 1 });
  return { server, nc, stores: await openWebhookStores(nc, await jetstreamManager(nc), jetstream(nc), 1) };
}

/** Every delivery record of the subscription, read from the bucket. */
export async function deliveriesOf(stores: WebhookStores, sub: SubscriptionRecord): Promise<DeliveryRecord[]> {
  const out: DeliveryRecord[] = [];
  for (const key of await stores.deliveries.keys()) {
    const d = (await stores.deliveries.get(key))?.value;
    if (d?.subscription_id === sub.id) out.push(d);
  }
  return out;
}

/** The fan-out's durable has acknowledged everything in the EVENTS stream (for `eventually`). */
export async function fanoutSettled(jsm: JetStreamManager): Promise<true | undefined> {
  const last = (await jsm.streams.info(STREAMS.events.name)).state.last_seq;
  const info = await jsm.consumers.info(STREAMS.events.name, WEBHOOK_CONSUMERS.fanout.durable).catch(() => null);
  return info !== null && info.ack_floor.stream_seq >= last ? true : undefined;
}

/** Every event of `type` stored in EVENTS, oldest first (read with a consumer of their subject, then deleted). */
export async function storedEventsOf(stores: WebhookStores, jsm: JetStreamManager, type: string): Promise<EventEnvelope[]> {
  const subject = SUBJECTS.event(type);
  const count = (await jsm.streams.info(STREAMS.events.name, { subjects_filter: subject })).state.subjects?.[subject] ?? 0;
  if (count === 0) return [];
  const consumer = await stores.js.consumers.get(STREAMS.events.name, { filter_subjects: subject, deliver_policy: DeliverPolicy.All });
  const out: EventEnvelope[] = [];
  for (let i = 0; i < count; i++) {
    const msg = await consumer.next({ expires: 5_000 });
    if (!msg) break;
    out.push(decodeJson(msg.data) as EventEnvelope);
  }
  await consumer.delete().catch(() => undefined);
  return out;
}

/** What a delivery's job would have written: `status` after its attempts (one for delivered, five otherwise). */
export async function endDelivery(stores: WebhookStores, id: string, status: DeliveryStatus): Promise<void> {
  await stores.deliveries.update(id, (d) => ({ ...d, status, attempt_count: status === "delivered" ? 1 : 5, next_attempt_at: null, last_error: status === "delivered" ? null : "http_500" }));
}
