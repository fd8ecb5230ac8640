// Property-based fuzz of the inbound receiver (fast-check): random bodies, headers, signatures and URLs against
// the gateway over real HTTP. Never a 5xx; a rejected request queues nothing; a 202 with an
// investigation_id queues exactly that one (or replays it, for a repeated generic idempotency_key).
import { createHmac } from "node:crypto";
import { createRequire } from "node:module";
import fc from "fast-check";
import { test } from "tap";
import { createEndpoint, deliver, edrHeaders, investigationIds, type CreatedEndpoint } from "../helpers/inbound.js";
import { api, startStack, type Stack } from "../helpers/stack.js";

const definitions = createRequire(import.meta.url)("@octokit/webhooks-examples") as Array<{ name: string; examples: unknown[] }>;
const GITHUB_EXAMPLES = ["workflow_run", "workflow_job", "security_advisory", "ping", "push"].flatMap((name) =>
  (definitions.find((d) => d.name === name)?.examples ?? []).map((payload) => ({ event: name, raw: JSON.stringify(payload) })),
);

const CI_SECRET = "fuzz-ci-secret";
const EDR_SECRET = "fuzz-edr-secret";
const RUNS = 200;

let stack: Stack;
const endpoints: Record<"generic" | "inactive" | "ci" | "edr" | "deleted", CreatedEndpoint> = {} as never;

test("setup", async () => {
  stack = await startStack({ services: ["gateway"] });
  endpoints.generic = await createEndpoint(stack, { provider: "generic" });
  endpoints.inactive = await createEndpoint(stack, { provider: "generic", active: false });
  endpoints.ci = await createEndpoint(stack, { provider: "ci", provider_signing_secret: CI_SECRET });
  endpoints.edr = await createEndpoint(stack, { provider: "edr", provider_signing_secret: EDR_SECRET });
  endpoints.deleted = await createEndpoint(stack, { provider: "generic" });
  await api(stack.baseUrl, "DELETE", `/v1/webhooks/incoming/endpoints/${endpoints.deleted.id}`, { key: stack.key });
});

type Target =
  | { kind: "endpoint"; name: keyof typeof endpoints }
  | { kind: "wrong_provider" }
  | { kind: "unknown_provider"; provider: string }
  | { kind: "garbage_key"; key: string }
  | { kind: "tampered_key"; at: number };

const target: fc.Arbitrary<Target> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom("generic", "inactive", "ci", "edr", "deleted").map((name) => ({ kind: "endpoint" as const, name: name as keyof typeof endpoints })) },
  { weight: 1, arbitrary: fc.constant({ kind: "wrong_provider" as const }) },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{1,12}$/).filter((p) => !["generic", "edr", "ci"].includes(p)).map((provider) => ({ kind: "unknown_provider" as const, provider })) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 80 }).map((key) => ({ kind: "garbage_key" as const, key })) },
  { weight: 1, arbitrary: fc.nat({ max: 60 }).map((at) => ({ kind: "tampered_key" as const, at })) },
);

const jsonText = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null");
const genericBody = fc
  .record(
    {
      query: fc.oneof(
        { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 60 }) },
        fc.string({ minLength: 1990, maxLength: 2010 }),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      agent_ids: fc.oneof(fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }), fc.jsonValue({ maxDepth: 1 })),
      scope: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ type: fc.constant("selector"), filter: fc.record({ tags: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 2 }) }) })),
      depth: fc.oneof(fc.constantFrom("quick", "standard", "deep"), fc.string({ maxLength: 8 })),
      mode: fc.oneof(fc.constantFrom("auto", "cached", "live"), fc.jsonValue({ maxDepth: 1 })),
      idempotency_key: fc.oneof(fc.constantFrom("k-1", "k-2"), fc.string({ maxLength: 300 })),
    },
    { requiredKeys: ["query"] },
  )
  .map((b) => JSON.stringify(b));
const edrBody = fc
  .record(
    {
      device_id: fc.oneof(fc.constantFrom("dev-1", ""), fc.jsonValue({ maxDepth: 1 })),
      device: fc.record({ device_id: fc.string({ maxLength: 40 }) }),
      description: fc.oneof(fc.string({ maxLength: 1200 }), fc.jsonValue({ maxDepth: 1 })),
      severity: fc.jsonValue({ maxDepth: 1 }),
      severity_name: fc.string({ maxLength: 20 }),
      sha256: fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string({ maxLength: 70 })),
      cmdline: fc.string({ maxLength: 700 }),
      composite_id: fc.string({ maxLength: 300 }),
    },
    { requiredKeys: [] },
  )
  .map((b) => JSON.stringify(b));

const body: fc.Arbitrary<{ raw: string | Buffer; event?: string }> = fc.oneof(
  jsonText.map((raw) => ({ raw })),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ raw: Buffer.from(bytes) })),
  fc.string({ maxLength: 200 }).map((raw) => ({ raw })),
  { weight: 2, arbitrary: genericBody.map((raw) => ({ raw })) },
  edrBody.map((raw) => ({ raw })),
  { weight: 2, arbitrary: fc.constantFrom(...GITHUB_EXAMPLES) },
);

type Headers = typeof headers extends fc.Arbitrary<infer H> ? H : never;
const plain = (over: Partial<Headers> = {}): Headers => ({
  extra: {}, contentType: "application/json", signature: "valid", event: null, delivery: null, skewSeconds: 0, garbage: "", ...over,
});
const completedRun = GITHUB_EXAMPLES.find((e) => e.event === "workflow_run" && e.raw.includes('"action":"completed"'));
/** Run first, so every run covers the accepted paths of each provider (the random cases rarely build valid ones). */
const EXAMPLES: Array<[Target, { raw: string | Buffer; event?: string }, Headers]> = [
  [{ kind: "endpoint", name: "generic" }, { raw: '{"query":"fuzz seed: generic"}' }, plain({ signature: "none" })],
  [{ kind: "endpoint", name: "generic" }, { raw: '{"query":"fuzz seed: replay","idempotency_key":"k-1"}' }, plain({ signature: "none" })],
  [{ kind: "endpoint", name: "generic" }, { raw: '{"query":"fuzz seed: replay","idempotency_key":"k-1"}' }, plain({ signature: "none" })],
  [{ kind: "endpoint", name: "edr" }, { raw: '{"device_id":"dev-1","description":"fuzz seed: edr"}' }, plain()],
  [{ kind: "endpoint", name: "ci" }, completedRun ?? { raw: "{}" }, plain({ delivery: "fuzz-seed" })],
];

const token = fc.stringMatching(/^[!-~]{0,60}$/);
const headers = fc.record({
  extra: fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), token, { maxKeys: 4 }),
  contentType: fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded; charset=utf-8"),
  signature: fc.constantFrom("valid", "valid", "wrong", "garbage", "none"),
  event: fc.option(fc.oneof(fc.constantFrom("workflow_run", "workflow_job", "security_advisory", "repository_advisory", "ping", "issues"), token)),
  delivery: fc.option(token),
  skewSeconds: fc.oneof(fc.integer({ min: -30, max: 30 }), fc.integer({ min: -100_000, max: 100_000 })),
  garbage: token,
});

function pathFor(t: Target): string {
  const base = "/v1/webhooks/incoming";
  switch (t.kind) {
    case "endpoint":
      return endpoints[t.name].path;
    case "wrong_provider":
      return `${base}/ci/${endpoints.edr.key}`;
    case "unknown_provider":
      return `${base}/${t.provider}/${endpoints.generic.key}`;
    case "garbage_key":
      return `${base}/generic/${encodeURIComponent(t.key)}`;
    case "tampered_key": {
      const k = endpoints.generic.key;
      const i = t.at % k.length;
      return `${base}/generic/${k.slice(0, i)}${k[i] === "x" ? "y" : "x"}${k.slice(i + 1)}`;
    }
  }
}

test(`fuzz: ${RUNS} random receipts, never a 5xx, nothing queued when rejected`, async (t) => {
  let known = new Set(await investigationIds(stack));
  const statuses = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(target, body, headers, async (tgt, b, h) => {
      const raw = b.raw;
      // Signatures are computed over the text; for random bytes that are not UTF-8 they simply do not verify.
      const text = typeof raw === "string" ? raw : raw.toString("utf8");
      const sent: Record<string, string> = { ...h.extra, "content-type": h.contentType };
      const provider = tgt.kind === "endpoint" ? endpoints[tgt.name].provider : "generic";
      const event = b.event ?? h.event ?? undefined;
      if (provider === "ci" && h.signature !== "none") {
        // (@octokit/webhooks-methods refuses empty payloads, which the fuzz sends too: node:crypto signs here.)
        const signed = `sha256=${createHmac("sha256", h.signature === "valid" ? CI_SECRET : "wrong").update(raw).digest("hex")}`;
        sent["x-hub-signature-256"] = h.signature === "garbage" ? h.garbage : signed;
      }
      if (event !== undefined) sent["x-github-event"] = event;
      if (h.delivery !== null) sent["x-github-delivery"] = h.delivery;
      if (provider === "edr" && h.signature !== "none") {
        const signed = edrHeaders(h.signature === "valid" ? EDR_SECRET : "wrong", text, Math.floor(Date.now() / 1000) + h.skewSeconds);
        Object.assign(sent, h.signature === "garbage" ? { "x-cs-delivery-timestamp": h.garbage, "x-cs-primary-signature": h.garbage } : signed);
      }

      const r = await deliver(stack, pathFor(tgt), raw, sent);
      const outcome = r.status !== 202 ? String(r.status) : typeof r.json?.investigation_id === "string" ? "202 queued" : r.json?.ignored ? "202 ignored" : "202 error";
      statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
      if (r.status >= 500) throw new Error(`5xx: ${r.status} ${r.text}`);
      if (![202, 400, 401, 404, 413].includes(r.status)) throw new Error(`unexpected status ${r.status} ${r.text}`);
      const after = await investigationIds(stack);
      const id: unknown = r.status === 202 ? r.json?.investigation_id : undefined;
      const expected = new Set(known);
      if (typeof id === "string") expected.add(id);
      if (after.length !== expected.size || !after.every((x) => expected.has(x))) {
        throw new Error(`status ${r.status} ${r.text}: ${after.length} investigations, expected ${expected.size}`);
      }
      known = expected;
    }),
    { numRuns: RUNS, examples: EXAMPLES },
  );
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
  for (const outcome of ["202 queued", "202 ignored", "400", "401", "404"]) t.ok((statuses.get(outcome) ?? 0) > 0, `reached ${outcome}`);
});

test("JSON nested 100,000 deep in a field the receiver ignores, within 1 MiB: read, not a stack overflow", async (t) => {
  const deepArray = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  const deepObject = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
  for (const [label, deep] of [["arrays", deepArray], ["objects", deepObject]] as const) {
    const generic = await deliver(stack, endpoints.generic.path, `{"query":"deep ${label}","unused":${deep}}`, { "content-type": "application/json" });
    t.equal(generic.status, 202, `generic, ${label}: ${generic.text.slice(0, 200)}`);
    t.match(generic.json?.investigation_id, /^inv_/);
    const raw = `{"device_id":"dev-deep","description":"deep ${label}","extra":${deep}}`;
    const edr = await deliver(stack, endpoints.edr.path, raw, { "content-type": "application/json", ...edrHeaders(EDR_SECRET, raw) });
    t.equal(edr.status, 202, `edr, ${label} (its trigger id is a hash of the body): ${edr.text.slice(0, 200)}`);
    const top = await deliver(stack, endpoints.generic.path, deep, { "content-type": "application/json" });
    t.equal(top.status, 400, `generic, ${label} as the whole body: ${top.text.slice(0, 200)}`);
  }
  t.equal((await api(stack.baseUrl, "GET", "/healthz")).status, 200, "the gateway still answers");
});

test("teardown", async () => {
  await stack.stop();
});
