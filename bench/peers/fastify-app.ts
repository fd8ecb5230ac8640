// The Fastify peer (issue 9): what a competent Node team would write for the same two endpoints against the
// same nats-server, as its own process. GET: bearer check + the same KV read of the investigation record.
// POST: bearer check + JSON-schema validation (Fastify's compiled ajv) + the same three JetStream steps as the
// gateway's trigger (work message, KV record, investigation.queued event), 202 once they are acknowledged.
// Also GET /hello (the Fastify hello world, the peer's own ceiling). Prints PORT=<n> once listening.
// Env: NATS_URL (required, else only /hello is served), PEER_BEARER_SHA256 (hex SHA-256 of the accepted token).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { jetstream } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";

const natsUrl = process.env.NATS_URL;
const tokenHash = Buffer.from(process.env.PEER_BEARER_SHA256 ?? "", "hex");

const app = Fastify({ logger: false });
app.get("/hello", async () => ({ hello: "world", ok: true }));

const unauthorized = (reply: FastifyReply) =>
  reply.code(401).send({ error: { code: "unauthorized", message: "missing or invalid bearer token" } });

function authorized(req: FastifyRequest): boolean {
  const h = req.headers.authorization;
  if (typeof h !== "string" || !h.startsWith("Bearer ") || tokenHash.length !== 32) return false;
  return timingSafeEqual(createHash("sha256").update(h.slice(7)).digest(), tokenHash);
}

function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomBytes(10).toString("hex")}`;
}

const requestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["query"],
  properties: {
    query: { type: "string", minLength: 1, maxLength: 2000 },
    depth: { type: "string", enum: ["quick", "standard", "deep"] },
    mode: { type: "string", enum: ["auto", "cached", "live"] },
    scope: { type: ["object", "null"] },
    idempotency_key: { type: "string", minLength: 1, maxLength: 255 },
  },
} as const;

interface CreateBody {
  query: string;
  depth?: "quick" | "standard" | "deep";
  mode?: "auto" | "cached" | "live";
  scope?: Record<string, unknown> | null;
}

async function withNats(url: string): Promise<void> {
  const nc = await connect({ servers: url });
  const js = jetstream(nc);
  const kv: KV = await new Kvm(js).open("inq_investigations");
  const publicUrl = "http://127.0.0.1";

  app.get<{ Params: { id: string } }>("/v1/investigations/:id", async (req, reply) => {
    if (!authorized(req)) return unauthorized(reply);
    const entry = await kv.get(req.params.id);
    if (!entry || entry.operation !== "PUT") return reply.code(404).send({ error: { code: "not_found", message: "investigation not found" } });
    const record = entry.json<Record<string, unknown>>();
    const { internal: _internal, ...detail } = record;
    return reply.send({ ...detail, links: { self: `${publicUrl}/v1/investigations/${req.params.id}` } });
  });

  app.post<{ Body: CreateBody }>("/v1/investigations", { schema: { body: requestSchema } }, async (req, reply) => {
    if (!authorized(req)) return unauthorized(reply);
    const now = new Date();
    const id = newId("inv");
    const depth = req.body.depth ?? "standard";
    const mode = req.body.mode ?? "auto";
    const record = {
      investigation_id: id, status: "queued", query: req.body.query, depth, mode, scope: req.body.scope ?? null,
      context: { trigger_source: "api", trigger_id: null, curiosity_id: null, inbound_endpoint_id: null },
      started_at: now.toISOString(), running_at: null, completed_at: null, progress: null, summary: null,
      freshness: null, error: null, findings: [], report: null,
      internal: { owner_key_id: null, seeds: [], events: { queued: newId("evt"), started: null, terminal: null, findings: {} }, run_attempts: 0 },
    };
    // The work first (a 202 means it is queued); then the record and the event, which do not depend on each other, at
    // once, as the gateway makes them.
    await js.publish("work.investigations", JSON.stringify({ investigation_id: id, record }), { msgID: id });
    const event = { event_id: record.internal.events.queued, type: "investigation.queued", created_at: record.started_at, data: { investigation_id: id, status: "queued", query: record.query } };
    await Promise.all([kv.create(id, JSON.stringify(record)), js.publish("events.investigation.queued", JSON.stringify(event), { msgID: event.event_id })]);
    return reply
      .code(202)
      .header("location", `${publicUrl}/v1/investigations/${id}`)
      .send({ investigation_id: id, status: "queued", estimated_completion_seconds: mode === "cached" ? 2 : 15, links: { self: `${publicUrl}/v1/investigations/${id}` } });
  });
}

async function main(): Promise<void> {
  if (natsUrl) await withNats(natsUrl);
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  process.stdout.write(`PORT=${new URL(address).port}\n`);
}

const stop = (): void => {
  void app.close().finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.stdin.on("end", stop);
process.stdin.resume();
main().catch((err: unknown) => {
  process.stderr.write(`fastify peer: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
