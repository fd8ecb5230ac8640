// Reading what the system published on the public EVENTS stream.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { WireEnvelope } from "../../shared/schemas/events.js";

/** Every envelope currently in EVENTS, in stream order. */
export async function readEvents(nc: NatsConnection): Promise<WireEnvelope[]> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info("EVENTS");
  const total = info.state.messages;
  if (total === 0) return [];
  const consumer = await jetstream(nc).consumers.get("EVENTS");
  const out: WireEnvelope[] = [];
  const batch = await consumer.fetch({ max_messages: total, expires: 2_000 });
  for await (const m of batch) {
    out.push(m.json<WireEnvelope>());
    if (out.length >= total) break;
  }
  return out;
}
