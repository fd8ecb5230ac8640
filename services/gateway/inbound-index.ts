// The inbound endpoints read model: endpoints oldest first (ids are time-ordered). The bucket also holds the
// `id.*` pointers, which are not listed.
import { isEndpointRecord, type EndpointBucketEntry } from "../../shared/inbound/store.js";
import type { IndexKey, ReadModelSpec } from "../../shared/readmodel.js";

export const ENDPOINTS_PREFIX: IndexKey = ["endpoints"];

export const inboundEndpointIndex: ReadModelSpec<EndpointBucketEntry> = {
  name: "inbound-endpoints.v1",
  indexKeys: (entry) => (isEndpointRecord(entry) ? [[...ENDPOINTS_PREFIX, entry.id]] : []),
};
