// Gateway wiring: config, NATS, components, HTTP listener, shutdown.
import { join } from "node:path";
import { AgentDirectory } from "../../shared/agents/directory.js";
import { createApiKey } from "../../shared/auth/keys.js";
import { SCOPES } from "../../shared/auth/scopes.js";
import { systemClock } from "../../shared/clock.js";
import { Lifecycle } from "../../shared/lifecycle.js";
import { connectNats } from "../../shared/nats/connect.js";
import { ReadModel, openLmdb } from "../../shared/readmodel.js";
import { checkRuntime, openRuntime, workBacklog } from "../../shared/runtime.js";
import { parseMasterKey } from "../../shared/secrets.js";
import { runService } from "../../shared/service.js";
import { engineFreshnessPlanner } from "../runner/engine-adapter.js";
import { buildApp, type App } from "./app.js";
import { KeyCache } from "./auth.js";
import { loadGatewayConfig } from "./config.js";
import { listen, isNativeUws, type HttpServer } from "./http/server.js";
import { investigationIndex } from "./investigation-index.js";

await runService("gateway", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadGatewayConfig(process.env);
  const masterKey = parseMasterKey(config.INQUEST_MASTER_KEY);
  const clock = systemClock;
  const nc = await connectNats({ servers: config.NATS_URL, name: "inquest-gateway", log });
  const life = new Lifecycle({ log, nc });
  register(life);
  const rt = await openRuntime(nc);

  if (config.INQUEST_BOOTSTRAP_KEY) {
    await createApiKey(rt.apiKeys, clock, { name: "bootstrap", scopes: [...SCOPES], key: config.INQUEST_BOOTSTRAP_KEY });
  }

  const keys = new KeyCache(rt.buckets.apiKeys, log);
  const agents = new AgentDirectory(rt.buckets.agents, log);
  const lmdb = openLmdb(join(config.INQUEST_DATA_DIR, "lmdb", "gateway"));
  const index = new ReadModel(lmdb, rt.buckets.investigations, investigationIndex, log);
  const ready = () => checkRuntime(rt);
  let app: App | null = null;

  const buildWith = (publicUrl: string): App =>
    buildApp({
      log,
      clock,
      auth: keys,
      publicUrl,
      trigger: {
        js: rt.js,
        investigations: rt.investigations,
        idempotency: rt.idempotency,
        listAgents: async () => agents.list(),
        planner: engineFreshnessPlanner,
        backlog: () => workBacklog(rt),
        maxBacklog: config.INQUEST_MAX_BACKLOG,
        publicUrl,
        clock,
      },
      cancel: { nc, js: rt.js, investigations: rt.investigations, clock, publicUrl },
      investigations: rt.investigations,
      investigationIndex: index,
      listAgents: async () => agents.list(),
      ready,
      extraRoutes: [
        // Capabilities add their routes here (webhooks, curiosity, inbound).
      ],
    });

  let server: HttpServer | null = null;
  await life.start([
    keys,
    agents,
    { name: "investigation-index", start: () => index.start(), stop: async () => { await index.stop(); await lmdb.close(); } },
    {
      name: "http",
      async start() {
        server = await listen({
          host: config.INQUEST_HOST,
          port: config.INQUEST_PORT,
          log,
          bodyLimit: (method, path) => app?.bodyLimit(method, path) ?? 0,
          handle: async (req) => (app ? app.handle(req) : { status: 503, body: { error: { code: "unavailable", message: "starting" } } }),
        });
        const publicUrl = (config.INQUEST_PUBLIC_URL ?? `http://${config.INQUEST_HOST}:${server.port}`).replace(/\/+$/, "");
        app = buildWith(publicUrl);
        log.info({ port: server.port, publicUrl, uws: isNativeUws() ? "native" : "fallback" }, "gateway listening");
        // One plain line for scripts and the all-in-one runner.
        process.stdout.write(`INQUEST_GATEWAY_URL=${publicUrl}\n`);
      },
      async stop() {
        server?.close();
      },
    },
  ]);
});
