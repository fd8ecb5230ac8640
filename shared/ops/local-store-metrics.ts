// The local LMDB store's mapped pages and reopens (shared/local-store.ts), for the service's /metrics.
import type { LocalStore } from "../local-store.js";
import type { Registry } from "./metrics.js";

export function localStoreMetrics(registry: Registry, store: LocalStore): void {
  registry.gauge("inquest_lmdb_mapped_bytes", "Bytes of the read models' LMDB file mapped in the process at the last measure; they count in its RSS until a reopen unmaps them.", () => store.snapshot().mappedBytes ?? 0);
  const reopens = registry.counter("inquest_lmdb_reopens_total", "Times the read models' LMDB environment was reopened to unmap its pages (past INQUEST_LMDB_MAPPED_MB).");
  reopens.inc({}, 0); // exposed as 0 from the start, so a rate over it has a first sample
  store.onReopen(() => reopens.inc());
}
