// The events a terminal investigation owes (announce): one finding.discovered per finding, then its terminal event.
// At-least-once: a runner that dies before the end announces again from the record, with the same event ids.
import type { JetStreamClient } from "@nats-io/jetstream";
import { findingEventEncoder, publishEventBytes } from "../../shared/events.js";
import { derivedId } from "../../shared/ids.js";
import { publishTerminalEvent } from "../../shared/investigations/cancel.js";
import { chunkFindings, encodeFindings, type FindingsChunk } from "../../shared/investigations/findings.js";
import type { FindingsStore } from "../../shared/investigations/findings-store.js";
import type { InvestigationRecord } from "../../shared/investigations/record.js";
import type { Finding } from "../../shared/schemas/investigation.js";
import { forEachLimited } from "../../shared/concurrency.js";

export interface AnnounceDeps {
  js: JetStreamClient;
  findings: FindingsStore;
}

/**
 * Findings events awaiting their ack at once (a large run has thousands): a sliding window, so one slow ack holds
 * back one slot, not the next batch.
 */
const PUBLISH_WINDOW = 256;

/**
 * The events of a terminal record: one finding.discovered per finding (every finding, not only those the record
 * carries), then the terminal event. Repeats reuse the same ids: records from before findings were stored apart
 * name them in `internal.events.findings`; newer ones derive them from the terminal event and the finding.
 *
 * The findings go a chunk at a time: a run over 10,000 hosts has 10 MB of findings text, and the announce overlaps
 * the next run (make bench-fleet: at the runner's peak memory). The first announce takes the chunks just stored
 * (`stored`, emptied as it goes: each chunk's text is let go once its events are out); a repeat reads them back
 * from the findings bucket.
 */
export async function republishTerminal(deps: AnnounceDeps, r: InvestigationRecord, stored?: FindingsChunk[]): Promise<void> {
  if (r.status === "completed") {
    const ref = r.internal.findings_ref;
    const at = Date.parse(r.completed_at ?? r.started_at);
    // Each chunk is read while the one before is published: a read waits behind the window's acks, and the window
    // would drain at every chunk waiting for it (make bench-fleet: the announce of 10,000 findings took twice as long).
    async function* findings(): AsyncGenerator<{ finding_id: string; json: string | Uint8Array }> {
      if (!ref) return yield* encodeFindings(r.findings);
      if (stored) {
        for (let chunk = stored.shift(); chunk; chunk = stored.shift()) for (const f of chunkFindings([chunk])) yield { finding_id: f.finding_id, json: f.bytes };
        return;
      }
      const read = (i: number): Promise<Finding[]> => {
        const chunk = deps.findings.chunk(r.investigation_id, ref, i);
        chunk.catch(() => {}); // awaited below, in its turn; a failure read ahead is thrown then
        return chunk;
      };
      let next = read(0);
      for (let i = 0; i < ref.chunks.length; i++) {
        const chunk = await next;
        if (i + 1 < ref.chunks.length) next = read(i + 1);
        yield* encodeFindings(chunk);
      }
    }
    const eventBytes = findingEventEncoder(at, r.investigation_id);
    await forEachLimited(findings(), PUBLISH_WINDOW, async ({ finding_id: findingId, json }) => {
      const eventId = r.internal.events.findings[findingId] ?? (ref && r.internal.events.terminal ? derivedId("evt", at, `${r.internal.events.terminal}:${findingId}`) : undefined);
      if (eventId) await publishEventBytes(deps.js, "finding.discovered", eventId, eventBytes(eventId, json));
    });
  }
  await publishTerminalEvent(deps.js, r);
}

