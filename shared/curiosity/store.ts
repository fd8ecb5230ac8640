// Curiosity items in their KV bucket. Every change is a compare-and-set of the pure transitions in
// schedule.ts, so the API, a ticker and a second ticker (during a leadership change) never overwrite each
// other: exactly one of them claims a given run.
import type { KV } from "@nats-io/kv";
import { newId } from "../ids.js";
import { JsonKv } from "../nats/kvjson.js";
import type { CuriosityRecord } from "./record.js";
import { applyPatch, attachInvestigation, claimRun, finishRun, type RunEnd } from "./schedule.js";
import type { CuriosityPatch } from "./schemas.js";

export type Changed = { kind: "changed"; record: CuriosityRecord } | { kind: "unchanged"; record: CuriosityRecord } | { kind: "gone" };

export class CuriosityStore {
  readonly docs: JsonKv<CuriosityRecord>;

  constructor(readonly kv: KV) {
    this.docs = new JsonKv<CuriosityRecord>(kv);
  }

  async get(id: string): Promise<CuriosityRecord | null> {
    return (await this.docs.get(id))?.value ?? null;
  }

  async create(record: CuriosityRecord): Promise<void> {
    if ((await this.docs.create(record.id, record)) === null) throw new Error(`curiosity item ${record.id} already exists`);
  }

  /** Permanent; false when there was no such item. Investigations it triggered are left alone. */
  async remove(id: string): Promise<boolean> {
    if (!(await this.docs.get(id))) return false;
    await this.docs.delete(id);
    return true;
  }

  patch(id: string, patch: CuriosityPatch, now: number): Promise<Changed> {
    return this.change(id, (r) => applyPatch(r, patch, now));
  }

  /** Claims the next run if the item is due (and still active, with no run in flight) at `now`, with its investigation's id. */
  claim(id: string, now: number): Promise<Changed> {
    const investigationId = newId("inv", now);
    return this.change(id, (r) => claimRun(r, now, investigationId));
  }

  attach(id: string, run: number, investigationId: string): Promise<Changed> {
    return this.change(id, (r) => attachInvestigation(r, run, investigationId));
  }

  finish(id: string, run: number, end: RunEnd, now: number): Promise<Changed> {
    return this.change(id, (r) => finishRun(r, run, end, now));
  }

  private async change(id: string, mutate: (r: CuriosityRecord) => CuriosityRecord | null): Promise<Changed> {
    const result = await this.docs.update(id, mutate);
    if (!result) return { kind: "gone" };
    return result.changed ? { kind: "changed", record: result.value } : { kind: "unchanged", record: result.value };
  }
}
