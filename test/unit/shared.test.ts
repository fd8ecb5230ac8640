// Pure building blocks of the foundation.
import { test } from "tap";
import { canonicalJson } from "../../shared/canonical.js";
import { ConfigError } from "../../shared/errors.js";
import { duration, durationList, int, loadConfig, oneOf, optStr, optUrl, required, withDefault } from "../../shared/config.js";
import { parseDuration } from "../../shared/durations.js";
import { loadAgentConfig } from "../../services/agent/config.js";
import { derivedId, idKey, isId, newId, ulid } from "../../shared/ids.js";
import { matchesScope, resolveScope, type AgentRecord } from "../../shared/agents/record.js";
import { computeFreshness } from "../../shared/investigations/freshness.js";
import { parseScopes } from "../../shared/auth/scopes.js";
import { iso } from "../../shared/clock.js";
import { encodeJson } from "../../shared/nats/kvjson.js";
import { envelope, findingEventBytes, findingEventEncoder } from "../../shared/events.js";
import { chunkedCount, chunkFindings, encodeFindings, inlineFindings, inlineFromChunks, packChunks, unpackChunks } from "../../shared/investigations/findings.js";

test("durations", async (t) => {
  t.equal(parseDuration("100ms"), 100);
  t.equal(parseDuration("30s"), 30_000);
  t.equal(parseDuration("2m"), 120_000);
  t.equal(parseDuration("1h"), 3_600_000);
  t.equal(parseDuration("1d"), 86_400_000);
  t.equal(parseDuration("2w"), 1_209_600_000);
  for (const bad of ["", "1", "s", "1.5s", "-1s", "1y", "1 s"]) t.equal(parseDuration(bad), null, bad);
});

test("config reports every bad variable at once, by name", async (t) => {
  const spec = { A: int(1, 0, 10), B: duration("1s"), C: oneOf(["x", "y"] as const, "x"), D: required(optStr(), "set it"), E: durationList("1s,2s", 2) };
  t.same(loadConfig(spec, { D: "d" }), { A: 1, B: 1000, C: "x", D: "d", E: [1000, 2000] });
  try {
    loadConfig(spec, { A: "11", B: "soon", C: "z", E: "1s" });
    t.fail("should throw");
  } catch (err) {
    t.ok(err instanceof ConfigError);
    const msg = (err as Error).message;
    for (const name of ["A:", "B:", "C:", "D:", "E:"]) t.match(msg, name);
  }
});

test("ids are prefixed ULIDs, time-ordered; derived ids repeat for the same seed", async (t) => {
  const a = newId("inv", 1_000);
  const b = newId("inv", 2_000);
  t.ok(isId(a, "inv"));
  t.notOk(isId(a, "cur"));
  t.ok(a < b, "later ids sort after earlier ones");
  t.equal(derivedId("dlv", 5, "e:s"), derivedId("dlv", 5, "e:s"));
  t.not(derivedId("dlv", 5, "e:s"), derivedId("dlv", 5, "e:t"));
  t.equal(iso(0), "1970-01-01T00:00:00.000Z");
  t.same([iso(1), iso(1), iso(0), iso(1_795_775_161_792)], ["1970-01-01T00:00:00.001Z", "1970-01-01T00:00:00.001Z", "1970-01-01T00:00:00.000Z", "2026-11-27T10:26:01.792Z"], "the kept last one never answers for another instant");
  t.throws(() => iso(Number.NaN), RangeError, "an invalid time still throws");
  // Random parts come from a pool refilled every ~400 ids: never the same bytes twice, within or across refills.
  const many = Array.from({ length: 2_000 }, () => newId("evt", 7));
  t.equal(new Set(many).size, many.length, "2,000 ids minted in one millisecond are all different");
  t.ok(many.every((id) => isId(id, "evt")));
});

/** ULID's encoding spelled out with BigInt: 48 bits of time, then 80 random bits, 5 bits per Crockford character. */
function referenceUlid(ms: number, random: Buffer): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let acc = BigInt(ms);
  for (const b of random.subarray(0, 10)) acc = (acc << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < 26; i++, acc >>= 5n) out = alphabet[Number(acc & 31n)] + out;
  return out;
}

test("ids keep their exact encoding: derived ids made before stay the same ids", async (t) => {
  // Values minted by the earlier (BigInt) encoder: a repeat after an upgrade must derive the same event ids.
  t.equal(ulid(1795714942697, Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])), "01M8CF71Q9000G40R40M30E209");
  t.equal(ulid(0, Buffer.alloc(10, 255)), "0000000000ZZZZZZZZZZZZZZZZ");
  t.equal(ulid(2 ** 48 - 1, Buffer.from([128, 0, 0, 0, 1, 255, 0, 0, 0, 1])), "7ZZZZZZZZZG0000001ZW000001");
  t.equal(derivedId("dlv", 5, "e:s"), "dlv_00000000052881X1EEKBNH669V");
  t.equal(derivedId("evt", 1795714942697, "evt_x:fnd_y", idKey(Buffer.alloc(32, 7), "events")), "evt_01M8CF71Q9FYKA3D855WT902WQ");
  let seed = 1;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 2_000; i++) {
    const ms = next() * 2 ** 17 + (next() % 2 ** 17);
    const random = Buffer.from(Array.from({ length: 10 }, () => next() % 256));
    const got = ulid(ms, random);
    if (got !== referenceUlid(ms, random)) return t.fail(`ulid(${ms}, ${random.toString("hex")}) = ${got}, expected ${referenceUlid(ms, random)}`);
  }
  t.pass("2,000 random times and byte strings encode as the BigInt reference does");
});

test("canonical JSON ignores key order and undefined fields", async (t) => {
  t.equal(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } }), canonicalJson({ a: { c: null, d: [1, { y: 2, z: 1 }] }, b: 1 }));
  t.equal(canonicalJson({ a: 1, b: undefined }), '{"a":1}');
  t.not(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
});

const agent = (id: string, tags: Record<string, string>, extra: Partial<AgentRecord> = {}): AgentRecord => ({
  agent_id: id,
  hostname: `${id}.example`,
  tags,
  edr_device_id: null,
  status: "online",
  registered_at: iso(0),
  last_seen_at: iso(0),
  snapshot_collected_at: null,
  heartbeat_interval_ms: 5000,
  ...extra,
});

test("scope: tags AND together, agent_ids narrows, no scope is everyone", async (t) => {
  const a = agent("a", { env: "prod", role: "web" });
  const b = agent("b", { env: "prod", role: "db" });
  t.ok(matchesScope(a, null));
  t.ok(matchesScope(a, { type: "selector", filter: { tags: { env: "prod", role: "web" } } }));
  t.notOk(matchesScope(b, { type: "selector", filter: { tags: { env: "prod", role: "web" } } }));
  t.notOk(matchesScope(a, { type: "selector", filter: { tags: { env: "prod" }, agent_ids: ["b"] } }));
  t.same(resolveScope([b, a], { type: "selector", filter: { tags: { env: "prod" } } }).map((x) => x.agent_id), ["a", "b"], "stable order");
});

test("freshness: stale and missing snapshots, recommendation limited to online agents", async (t) => {
  const now = Date.parse("2026-11-22T10:00:00.000Z");
  const fresh = agent("fresh", {}, { snapshot_collected_at: iso(now - 60_000) });
  const stale = agent("stale", {}, { snapshot_collected_at: iso(now - 7_200_000) });
  const none = agent("none", {});
  const offline = agent("offline", {}, { status: "offline" });
  const f = computeFreshness([fresh, stale, none, offline], ["processes", "users"], (tb) => (tb === "processes" ? 3600 : 86400), now);
  t.equal(f.stale_agents, 1);
  t.equal(f.agents_without_snapshot, 2);
  t.equal(f.data_age_seconds, 7200);
  t.equal(f.recommendation.should_rerun_live, true);
  t.same(f.recommendation.recommended_scope, { type: "selector", filter: { agent_ids: ["none", "stale"] } });
  const ok = computeFreshness([fresh], ["processes"], () => 3600, now);
  t.equal(ok.recommendation.should_rerun_live, false);
  t.equal(ok.recommendation.recommended_scope, null);
  t.equal(ok.data_age_seconds, 60);
});

test("freshness: a snapshot time that is no date (a record from before heartbeats were checked) counts as no snapshot, not as an unknown age for the whole scope", async (t) => {
  const now = Date.parse("2026-11-22T10:00:00.000Z");
  const fresh = agent("fresh", {}, { snapshot_collected_at: iso(now - 60_000) });
  const text = agent("text", {}, { snapshot_collected_at: "x" });
  const f = computeFreshness([fresh, text], ["processes"], () => 3600, now);
  t.equal(f.data_age_seconds, 60);
  t.equal(f.agents_without_snapshot, 1);
  t.same(f.recommendation.recommended_scope, { type: "selector", filter: { agent_ids: ["text"] } });
});

test("scopes parse strictly", async (t) => {
  t.same(parseScopes("investigations:read, webhooks:manage"), ["investigations:read", "webhooks:manage"]);
  t.match(parseScopes("admin") as string, /unknown scope/);
  t.match(parseScopes("") as string, /no scopes/);
});

test("the backlog gauge reads at most every maxAge and counts forward in between", async (t) => {
  let now = 0;
  let reads = 0;
  let depth = 5;
  const { BacklogGauge } = await import("../../shared/investigations/backlog.js");
  const gauge = new BacklogGauge(async () => {
    reads++;
    return depth;
  }, { now: () => now }, 250);
  t.equal(await gauge.current(), 5);
  gauge.noteQueued();
  gauge.noteQueued();
  t.equal(await gauge.current(), 7, "counted forward without a read");
  t.equal(reads, 1);
  depth = 1;
  now = 300;
  t.equal(await gauge.current(), 1, "a fresh read replaces the local count");
  t.equal(reads, 2);
  await Promise.all([gauge.current(), gauge.current()]);
  t.equal(reads, 2);
});

test("config: durations must be above zero; URLs must be absolute http(s) without credentials", async (t) => {
  t.throws(() => loadConfig({ D: duration("1s") }, { D: "0s" }), /above zero/);
  t.throws(() => loadConfig({ L: durationList("1s,2s", 2) }, { L: "1s,0ms" }), /above zero/);
  const spec = { U: withDefault(optUrl(), "http://127.0.0.1:8080") };
  t.same(loadConfig(spec, {}), { U: "http://127.0.0.1:8080" });
  t.same(loadConfig(spec, { U: "https://inquest.example.com/" }), { U: "https://inquest.example.com" });
  for (const bad of ["notaurl", "ftp://x", "https://user:pw@x.example", "https://x.example/?a=1"]) t.throws(() => loadConfig(spec, { U: bad }), /U:/, bad);
});

test("config: the agent's heartbeat is held at start to the periods the registry accepts in a hello (100ms..1h)", async (t) => {
  const heartbeat = (raw?: string) => loadAgentConfig({ NATS_URL: "nats://127.0.0.1:4222", INQUEST_HEARTBEAT_INTERVAL: raw }).INQUEST_HEARTBEAT_INTERVAL;
  for (const bad of ["0s", "50ms", "99ms", "2h", "61m"]) t.throws(() => heartbeat(bad), /INQUEST_HEARTBEAT_INTERVAL: expected a duration from 100ms to 1h/, bad);
  t.equal(heartbeat("100ms"), 100);
  t.equal(heartbeat("1h"), 3_600_000);
  t.equal(heartbeat(), 5_000);
});

test("a finding.discovered event built around a finding's JSON is byte for byte the envelope encoded whole", async (t) => {
  const finding = { finding_id: "fnd_1", detection_id: "reverse-shell", title: "T \"quoted\" ünïcode", severity: "high", evidence: [{ table: "processes", row: { pid: 1, cmd: "a\nb" } }] };
  const json = JSON.stringify(finding);
  const at = Date.parse("2026-11-26T12:00:00.123Z");
  const built = findingEventBytes("evt_01", at, "inv_01", json);
  const whole = encodeJson(envelope("evt_01", "finding.discovered", at, { investigation_id: "inv_01", finding } as never));
  t.same(Buffer.from(built).toString("utf8"), Buffer.from(whole).toString("utf8"));
  t.same(JSON.parse(Buffer.from(built).toString("utf8")).data.finding, finding);
  t.same(Buffer.from(findingEventBytes("evt_01", at, "inv_01", Buffer.from(json))).toString("utf8"), Buffer.from(whole).toString("utf8"), "the same from the finding's bytes");
  // One encoder for every event of an investigation: each event its own bytes, small findings and large ones alike.
  const encode = findingEventEncoder(at, "inv_01");
  const large = { ...finding, finding_id: "fnd_2", title: "é".repeat(5_000) };
  for (const [eventId, f] of [["evt_01", finding], ["evt_02", large], ["evt_03", finding]] as const) {
    const expected = Buffer.from(encodeJson(envelope(eventId, "finding.discovered", at, { investigation_id: "inv_01", finding: f } as never))).toString("utf8");
    t.same(Buffer.from(encode(eventId, JSON.stringify(f))).toString("utf8"), expected, `${eventId} from text`);
    t.same(Buffer.from(encode(eventId, Buffer.from(JSON.stringify(f)))).toString("utf8"), expected, `${eventId} from bytes`);
  }
});

test("encoded findings: inline and chunk bounds count UTF-8 bytes of the one serialization", async (t) => {
  const f = (id: string, summary: string) => ({ finding_id: id, summary }) as never;
  const encoded = encodeFindings([f("a", "x".repeat(100)), f("b", "é".repeat(100)), f("c", "y")]);
  const objects = encoded.map((e) => JSON.parse(e.json));
  t.equal(encoded[1]?.bytes, Buffer.byteLength(encoded[1]?.json ?? ""), "multi-byte characters counted as bytes");
  t.ok((encoded[1]?.bytes ?? 0) > (encoded[1]?.json.length ?? 0));
  // Each finding counts its bytes and a separator, the brackets 2.
  const chunks = packChunks(encoded, (encoded[0]?.bytes ?? 0) + (encoded[1]?.bytes ?? 0) + 4);
  t.same(chunks.map((c) => c.ids), [["a", "b"], ["c"]], "two fit one chunk; the third starts the next");
  t.same(inlineFindings(encoded, { inlineCount: 10, inlineBytes: (encoded[0]?.bytes ?? 0) + 3 }), [objects[0]], "the byte bound stops after the first");
  t.same(inlineFindings(encoded, { inlineCount: 2, inlineBytes: 1 << 20 }).length, 2, "the count bound");
});

test("findings packed in chunks: one JSON array each, and each finding cut back out of it unchanged", async (t) => {
  const f = (id: string, summary: string) => ({ finding_id: id, summary }) as never;
  const encoded = encodeFindings([f("a", "x".repeat(100)), f("b", "é, \"quoted\" [1]"), f("c", "y")]);
  const chunks = packChunks(encoded, (encoded[0]?.bytes ?? 0) + (encoded[1]?.bytes ?? 0) + 4);
  t.same(chunks.map((c) => c.ids), [["a", "b"], ["c"]], "chunked at the same bound");
  t.same(JSON.parse(Buffer.from(chunks[0]?.bytes ?? []).toString("utf8")), [JSON.parse(encoded[0]?.json ?? ""), JSON.parse(encoded[1]?.json ?? "")], "a chunk is the JSON array of its findings");
  t.same(chunks.map((c) => c.bytes.byteLength), chunks.map((c) => c.bytes.buffer.byteLength), "each chunk the whole of its own buffer (transferable, no pool's)");
  t.same([...chunkFindings(chunks)].map((f) => Buffer.from(f.bytes).toString("utf8")), encoded.map((e) => e.json), "each finding's bytes, exactly");
  t.same(unpackChunks(chunks), encoded.map(({ finding_id, json }) => ({ finding_id, json })), "each finding's text, exactly");
  t.same(unpackChunks(chunks, 2).map((e) => e.finding_id), ["a", "b"], "the first few only");
  t.equal(chunkedCount(chunks), 3);
  t.same(inlineFromChunks(chunks, { inlineCount: 2, inlineBytes: 1 << 20 }), inlineFindings(encoded, { inlineCount: 2, inlineBytes: 1 << 20 }), "the record's findings as before");
  t.same(packChunks([], 100), [], "no findings, no chunk");
});
