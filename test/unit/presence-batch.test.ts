// A presence batch as it goes on INQ_PRESENCE: the JSON of { beats: { agent id: ms } }, whatever the ids hold.
import { test } from "tap";
import { encodeBeats, PresenceBatch } from "../../shared/agents/presence.js";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { checker } from "../../shared/validate.js";

const batch = checker(PresenceBatch);

test("a batch encodes as the JSON of its beats, read back the same", async (t) => {
  const beats = new Map<string, number>([
    ["web-01", 1795880000123],
    ["db_02-x", 0],
    // Not ids the registry takes, but the encoding must not depend on that.
    ['quote"and\\backslash', 5],
    ["ünïcode", 7],
  ]);
  const bytes = encodeBeats(beats);
  t.same(Buffer.from(bytes).toString("utf8"), Buffer.from(encodeJson({ beats: Object.fromEntries(beats) })).toString("utf8"), "the same bytes as the object's JSON");
  const read = batch.check(JSON.parse(Buffer.from(bytes).toString("utf8")));
  t.ok(read.ok);
  t.same(read.ok ? new Map(Object.entries(read.value.beats)) : null, beats);
  t.same(JSON.parse(Buffer.from(encodeBeats(new Map())).toString("utf8")), { beats: {} }, "an empty batch");
});
