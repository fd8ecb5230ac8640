// Inbound endpoints in their KV bucket. A record lives under `ep.<url_key_prefix>`, so the receiver finds it
// with one read of the prefix it parsed from the URL; `id.<id>` points back to the prefix for DELETE by id.
// Lists are served by the gateway's read model of this bucket (services/gateway/inbound-index.ts).
import type { KV } from "@nats-io/kv";
import { isId } from "../ids.js";
import { JsonKv } from "../nats/kvjson.js";
import type { InboundEndpointRecord } from "./endpoint.js";

const PREFIX_KEY = /^whk_[A-Za-z0-9]{8}$/;

/** `id.<id>` -> the prefix its record lives under. */
export interface IdEntry {
  url_key_prefix: string;
}

/** What the bucket holds: endpoint records under `ep.*`, id pointers under `id.*`. */
export type EndpointBucketEntry = InboundEndpointRecord | IdEntry;

export function isEndpointRecord(entry: EndpointBucketEntry): entry is InboundEndpointRecord {
  return "id" in entry;
}

export class InboundEndpointStore {
  private readonly records: JsonKv<InboundEndpointRecord>;
  private readonly ids: JsonKv<IdEntry>;

  constructor(readonly kv: KV) {
    this.records = new JsonKv<InboundEndpointRecord>(kv);
    this.ids = new JsonKv<IdEntry>(kv);
  }

  /**
   * Stores a new endpoint; false when its URL key prefix is already taken (the caller issues another key).
   * The id entry is written first: a crash in between leaves an id pointing nowhere (invisible), never an
   * endpoint that cannot be deleted.
   */
  async create(record: InboundEndpointRecord): Promise<boolean> {
    await this.ids.put(`id.${record.id}`, { url_key_prefix: record.url_key_prefix });
    if ((await this.records.create(`ep.${record.url_key_prefix}`, record)) !== null) return true;
    await this.ids.delete(`id.${record.id}`);
    return false;
  }

  /** The endpoint whose URL key has this prefix (`whk_<8 alphanumerics>`), or null. */
  async byPrefix(prefix: string): Promise<InboundEndpointRecord | null> {
    if (!PREFIX_KEY.test(prefix)) return null;
    return (await this.records.get(`ep.${prefix}`))?.value ?? null;
  }

  async byId(id: string): Promise<InboundEndpointRecord | null> {
    if (!isId(id, "iep")) return null;
    const entry = await this.ids.get(`id.${id}`);
    if (!entry) return null;
    const record = await this.byPrefix(entry.value.url_key_prefix);
    return record?.id === id ? record : null;
  }

  /** Removes the endpoint (its receiver URL stops working at once); false when there is no such endpoint. */
  async delete(id: string): Promise<boolean> {
    if (!isId(id, "iep")) return false;
    const entry = await this.ids.get(`id.${id}`);
    if (!entry) return false;
    const record = await this.byPrefix(entry.value.url_key_prefix);
    if (record?.id === id) await this.records.delete(`ep.${record.url_key_prefix}`);
    await this.ids.delete(`id.${id}`);
    return record?.id === id;
  }
}
