// Findings stored apart from the investigation record (docs/nats.md#findings): however many a run finds, no NATS
// message comes near max_payload. The runner writes a run attempt's findings, ordered by severity, as chunks of
// the findings bucket keyed `<investigation_id>.<attempt>.<chunk>`, then commits the attempt by naming it in the
// record (`internal.findings_ref`), which also carries the most severe findings up to a bound. Each attempt writes
// under its own number (the claim's `run_attempts`); an attempt the record does not name is never read, and the
// attempt that commits prunes the others. Chunks written after that prune (an attempt that stalled past its lease)
// or never pruned (a crash between the commit and the prune) stay, unread, as long as the bucket keeps entries.
//
// This file is the findings' shape and packing only, with no NATS client: the runner's engine worker threads load it
// (each thread loads its own copy of every module it imports). Reading and writing the bucket is findings-store.ts.
import { severityRank } from "../severity.js";
import type { Finding } from "../schemas/investigation.js";

/** Which run attempt's chunks hold the findings, and how many findings each chunk holds (in order). */
export interface FindingsRef {
  attempt: number;
  chunks: number[];
}

export interface FindingsBounds {
  /** Findings the record (and so the detail) carries at most. */
  inlineCount: number;
  /** Bytes of JSON the record's findings take at most. */
  inlineBytes: number;
  /** Bytes of JSON one chunk takes at most (a single larger finding gets a chunk of its own). */
  chunkBytes: number;
}

/** Well under NATS's default max_payload (1 MiB): the record and every chunk stay far from it. */
export const DEFAULT_FINDINGS_BOUNDS: FindingsBounds = { inlineCount: 100, inlineBytes: 256 * 1024, chunkBytes: 256 * 1024 };

/** Most severe first; equal severities keep the engine's order (a stable sort), so the order is stable per run. */
export function bySeverity<T extends Pick<Finding, "severity">>(findings: readonly T[]): T[] {
  return findings
    .map((f, i) => ({ f, i, rank: severityRank(f.severity) }))
    .sort((a, b) => b.rank - a.rank || a.i - b.i)
    .map((x) => x.f);
}

/**
 * A finding as JSON, serialized once (on the engine's worker thread for a new run): the record's byte bound, the
 * chunks and the finding.discovered events all use the same text.
 */
export interface EncodedFinding {
  finding_id: string;
  json: string;
  /** UTF-8 bytes of `json`. */
  bytes: number;
}

/** A finding serialized once, with its id and its size. */
export const encodeFinding = (findingId: string, json: string): EncodedFinding => ({ finding_id: findingId, json, bytes: Buffer.byteLength(json) });

/** Stored findings (a repeat of a finished run's events) as EncodedFinding. */
export function encodeFindings(findings: readonly Finding[]): EncodedFinding[] {
  return findings.map((f) => encodeFinding(f.finding_id, JSON.stringify(f)));
}

/** The leading findings that fit both bounds (the detail's findings). */
export function inlineFindings(ordered: readonly EncodedFinding[], bounds: Pick<FindingsBounds, "inlineCount" | "inlineBytes">): Finding[] {
  const out: Finding[] = [];
  let bytes = 2;
  for (const f of ordered) {
    if (out.length >= bounds.inlineCount) break;
    bytes += f.bytes + 1;
    if (bytes > bounds.inlineBytes) break;
    out.push(JSON.parse(f.json) as Finding);
  }
  return out;
}

/** Groups ordered findings into runs of at most `chunkBytes` of JSON as they come, each run handed to `emit` once full. */
export class ChunkPacker {
  private group: EncodedFinding[] = [];
  /** The brackets; each finding adds its bytes and a separator. */
  private bytes = 2;

  constructor(
    private readonly chunkBytes: number,
    private readonly emit: (group: EncodedFinding[]) => void,
  ) {}

  add(f: EncodedFinding): void {
    const size = f.bytes + 1;
    if (this.group.length > 0 && this.bytes + size > this.chunkBytes) this.flush();
    this.group.push(f);
    this.bytes += size;
  }

  /** Emits the last run, if any. */
  end(): void {
    if (this.group.length > 0) this.flush();
  }

  private flush(): void {
    const group = this.group;
    this.group = [];
    this.bytes = 2;
    this.emit(group);
  }
}

/**
 * One chunk as it is stored: the UTF-8 JSON array of its findings, built once (on the engine's worker thread for a
 * new run), with each finding's id and where its JSON ends, so the events can be cut from the same bytes.
 *
 * Bytes rather than text: the worker writes each finding's JSON straight into the chunk's own buffer and hands the
 * buffer to the main thread without a copy (a transfer), which stores it as it is. As a string, a chunk was built
 * from its findings' texts, copied across the threads, then encoded again for the bucket: over 10,000 findings,
 * 7 MB of chunk text in each thread's heap, garbage before the next full collection, at the runner's peak.
 */
export interface FindingsChunk {
  /** A view of the whole of its own ArrayBuffer (no pool's), so the buffer can be transferred. */
  bytes: Uint8Array;
  ids: string[];
  /** Byte offset just past each finding's JSON in `bytes`; the next one starts after the comma. */
  ends: number[];
}

/** Ordered findings packed into chunks of at most `chunkBytes` of JSON (ChunkPacker's bound), all at once. */
export function packChunks(ordered: readonly EncodedFinding[], chunkBytes: number): FindingsChunk[] {
  const chunks: FindingsChunk[] = [];
  const packer = new ChunkPacker(chunkBytes, (group) => chunks.push(chunkOf(group)));
  for (const f of ordered) packer.add(f);
  packer.end();
  return chunks;
}

/** One chunk of these findings, whatever their size. */
export function chunkOf(group: readonly EncodedFinding[]): FindingsChunk {
  const size = group.reduce((n, f) => n + f.bytes, 2 + Math.max(0, group.length - 1));
  const bytes = Buffer.allocUnsafeSlow(size);
  const ends: number[] = [];
  let at = 0;
  bytes[at++] = 0x5b; // [
  for (const [i, f] of group.entries()) {
    if (i > 0) bytes[at++] = 0x2c; // ,
    at += bytes.write(f.json, at, "utf8");
    ends.push(at);
  }
  bytes[at] = 0x5d; // ]
  return { bytes, ids: group.map((f) => f.finding_id), ends };
}

/** How many findings the chunks hold. */
export const chunkedCount = (chunks: readonly FindingsChunk[]): number => chunks.reduce((n, c) => n + c.ids.length, 0);

/** Each finding of the chunks, in order, its JSON (UTF-8) cut from its chunk's bytes without a copy. */
export function* chunkFindings(chunks: readonly FindingsChunk[]): Generator<{ finding_id: string; bytes: Uint8Array }> {
  for (const chunk of chunks) {
    let start = 1;
    for (let i = 0; i < chunk.ids.length; i++) {
      const end = chunk.ends[i] as number;
      yield { finding_id: chunk.ids[i] as string, bytes: chunk.bytes.subarray(start, end) };
      start = end + 1;
    }
  }
}

/** Each finding of the chunks, in order, its JSON as text; the first `limit` only, if given. */
export function unpackChunks(chunks: readonly FindingsChunk[], limit = Infinity): Array<Pick<EncodedFinding, "finding_id" | "json">> {
  const out: Array<Pick<EncodedFinding, "finding_id" | "json">> = [];
  for (const f of chunkFindings(chunks)) {
    if (out.length >= limit) break;
    out.push({ finding_id: f.finding_id, json: Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength).toString("utf8") });
  }
  return out;
}

/** The record's findings from the chunks: the leading ones within both bounds (inlineFindings). */
export function inlineFromChunks(chunks: readonly FindingsChunk[], bounds: Pick<FindingsBounds, "inlineCount" | "inlineBytes">): Finding[] {
  return inlineFindings(
    unpackChunks(chunks, bounds.inlineCount).map((f) => encodeFinding(f.finding_id, f.json)),
    bounds,
  );
}
