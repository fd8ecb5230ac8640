// The findings bucket: a run attempt's chunks written and pruned by the runner, read by the gateway's findings pages
// (the layout is described in findings.ts and docs/nats.md#findings).
import type { KV } from "@nats-io/kv";
import { throughElections } from "../nats/elections.js";
import { decodeJson } from "../nats/kvjson.js";
import type { Finding } from "../schemas/investigation.js";
import type { FindingsChunk, FindingsRef } from "./findings.js";

export const chunkKey = (investigationId: string, attempt: number, chunk: number): string => `${investigationId}.${attempt}.${chunk}`;

/** Position of a finding in its investigation's severity order, and the filters of a findings page. */
export interface FindingsFilter {
  severity: string | null;
  agentId: string | null;
}

export class FindingsStore {
  constructor(readonly kv: KV) {}

  /** Writes one attempt's chunks (idempotent: the same keys each time) and returns their sizes. */
  async write(investigationId: string, attempt: number, chunks: readonly FindingsChunk[]): Promise<FindingsRef> {
    // A few puts in flight at once: a large run has tens of chunks.
    const WINDOW = 8;
    for (let i = 0; i < chunks.length; i += WINDOW) {
      // Each put is idempotent (fixed key and value): a stream leader election in between is waited out.
      await Promise.all(
        chunks.slice(i, i + WINDOW).map((c, j) => throughElections(() => this.kv.put(chunkKey(investigationId, attempt, i + j), c.bytes))),
      );
    }
    return { attempt, chunks: chunks.map((c) => c.ids.length) };
  }

  /** One chunk of a committed attempt ([] when missing: a pruned or never-written chunk reads as empty). */
  async chunk(investigationId: string, ref: FindingsRef, index: number): Promise<Finding[]> {
    const e = await this.kv.get(chunkKey(investigationId, ref.attempt, index));
    if (!e || e.operation !== "PUT" || e.value.length === 0) return [];
    return decodeJson<Finding[]>(e.value);
  }

  /** Every finding of a committed attempt, in order. */
  async all(investigationId: string, ref: FindingsRef): Promise<Finding[]> {
    const out: Finding[] = [];
    for (let i = 0; i < ref.chunks.length; i++) out.push(...(await this.chunk(investigationId, ref, i)));
    return out;
  }

  /**
   * Findings from position `after + 1` on that pass the filter, at most `limit`, each with its position (the
   * cursor). Reads only the chunks from the one holding that position.
   */
  async page(investigationId: string, ref: FindingsRef, filter: FindingsFilter, after: number, limit: number): Promise<{ items: Finding[]; last: number | null; more: boolean }> {
    const items: Finding[] = [];
    let start = 0;
    let last: number | null = null;
    for (let i = 0; i < ref.chunks.length; i++) {
      const size = ref.chunks[i] ?? 0;
      if (start + size <= after + 1) {
        start += size;
        continue;
      }
      const chunk = await this.chunk(investigationId, ref, i);
      for (let j = 0; j < chunk.length; j++) {
        const pos = start + j;
        const f = chunk[j] as Finding;
        if (pos <= after || !matches(f, filter)) continue;
        if (items.length === limit) return { items, last, more: true };
        items.push(f);
        last = pos;
      }
      start += size;
    }
    return { items, last, more: false };
  }

  /** Deletes the chunks of every attempt but `keep` (a crashed or superseded attempt's leftovers). Best effort. */
  async prune(investigationId: string, keep: number): Promise<number> {
    let removed = 0;
    const stale: string[] = [];
    for await (const key of await this.kv.keys(`${investigationId}.>`)) {
      if (key.split(".")[1] !== String(keep)) stale.push(key);
    }
    for (const key of stale) {
      await this.kv.purge(key);
      removed += 1;
    }
    return removed;
  }
}

export function matches(f: Finding, filter: FindingsFilter): boolean {
  return (filter.severity === null || f.severity === filter.severity) && (filter.agentId === null || f.agent_id === filter.agentId);
}
