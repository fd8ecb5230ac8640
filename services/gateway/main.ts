// Gateway wiring: config, NATS, components, HTTP listener, shutdown.
import { lookup } from "node:dns/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentDirectory } from "../../shared/agents/directory.js";
import { PresenceFollower, withPresence } from "../../shared/agents/presence.js";
import { registerBootstrapKey } from "../../shared/auth/keys.js";
import { systemClock } from "../../shared/clock.js";
import { LocalStore } from "../../shared/local-store.js";
import { ReadModel } from "../../shared/readmodel.js";
import { bucketStream, coreStreams } from "../../shared/runtime.js";
import { Readiness } from "../../shared/nats/readiness.js";
import { Registry } from "../../shared/ops/metrics.js";
import { RuntimeMetrics } from "../../shared/ops/runtime-metrics.js";
import { localStoreMetrics } from "../../shared/ops/local-store-metrics.js";
import { triggerDeps } from "../../shared/investigations/trigger-deps.js";
import { parseMasterKey } from "../../shared/secrets.js";
import { connectService, runService } from "../../shared/service.js";
import { buildApp, type App } from "./app.js";
import { KeyCache } from "./auth.js";
import { loadConsoleSite } from "./console-site.js";
import { loadGatewayConfig } from "./config.js";
import { listen, isNativeUws, type HttpServer } from "./http/server.js";
import { freePort } from "../../shared/net.js";
import { investigationIndex } from "./investigation-index.js";
import { DEFAULT_REQUEUE, Requeuer, requeuedMetric } from "./requeue.js";
import { inboundRoutes } from "./routes/inbound.js";
import { INBOUND_BUCKETS, INBOUND_STREAMS, openInboundBuckets } from "../../shared/inbound/catalog.js";
import { ReceiptStore } from "../../shared/inbound/receipt-store.js";
import { ReplayGuard } from "../../shared/inbound/replay-guard.js";
import { ReceiptRecorder } from "./routes/inbound-receipts.js";
import { receiptIndex } from "./receipt-index.js";
import { eventTypeRoutes } from "./routes/event-types.js";
import { InboundEndpointStore } from "../../shared/inbound/store.js";
import { inboundEndpointIndex } from "./inbound-index.js";
import { triggerInvestigation } from "../../shared/investigations/trigger.js";
import { decryptSecret } from "../../shared/secrets.js";
import { curiosityIndex } from "./curiosity-index.js";
import { FindingsStore } from "../../shared/investigations/findings-store.js";
import { findingRoutes } from "./routes/findings.js";
import { curiosityRoutes } from "./routes/curiosity.js";
import { CURIOSITY_BUCKETS, openCuriosityItems } from "../../shared/curiosity/catalog.js";
import { CuriosityStore } from "../../shared/curiosity/store.js";
import { openWebhookStores, WEBHOOK_BUCKETS, WEBHOOK_STREAMS } from "../../shared/webhooks/catalog.js";
import { checkTarget } from "../../shared/webhooks/targets.js";
import { deadLettersIn, deliveryIndex, pendingDeliveryIds } from "./delivery-index.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { recoveryRoutes } from "./routes/webhook-recovery.js";
import { subscriptionIndex } from "./subscription-index.js";
import { useCursorKey } from "./http/pagination.js";

await runService("gateway", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadGatewayConfig(process.env);
  const masterKey = parseMasterKey(config.INQUEST_MASTER_KEY);
  useCursorKey(masterKey);
  const clock = systemClock;
  const { nc, life, rt } = await connectService("gateway", config, log, register);

  if (config.INQUEST_BOOTSTRAP_KEY) {
    const { record } = await registerBootstrapKey(rt.apiKeys, clock, config.INQUEST_BOOTSTRAP_KEY);
    if (record.revoked_at) log.warn({ key_id: record.id }, "INQUEST_BOOTSTRAP_KEY was revoked and stays revoked; set a new one");
  }

  const keys = new KeyCache(rt.buckets.apiKeys, log, { clock });
  const agents = new AgentDirectory(rt.buckets.agents, log);
  // Last-seen times of heartbeats that went to presence rather than the record (shared/agents/presence.ts).
  const presence = new PresenceFollower({ nc, js: rt.js, jsm: rt.jsm, log, clock });
  const lmdb = new LocalStore(join(config.INQUEST_DATA_DIR, "lmdb", "gateway"), {
    mappedBudgetBytes: config.INQUEST_LMDB_MAPPED_MB * 1024 * 1024,
    log,
    // Lists cannot be served without it: stop (readiness false first) and exit non-zero, for a restart to open it.
    onBroken: () => void life.stop().finally(() => process.exit(1)),
  });
  const index = new ReadModel(lmdb, rt.buckets.investigations, investigationIndex, log);
  const curiosityKv = await openCuriosityItems(nc, rt.replicas);
  const curiosity = new ReadModel(lmdb, curiosityKv, curiosityIndex, log);
  const inbound = await openInboundBuckets(nc, rt.replicas);
  const inboundStore = new InboundEndpointStore(inbound.endpoints);
  const inboundIndex = new ReadModel(lmdb, inbound.endpoints, inboundEndpointIndex, log);
  const receiptStore = new ReceiptStore({ receipts: inbound.receipts, js: rt.js, jsm: rt.jsm, masterKey, maxPayload: () => nc.info?.max_payload ?? 1024 * 1024 });
  const receipts = { recorder: new ReceiptRecorder(receiptStore, log, clock), index: new ReadModel(lmdb, inbound.receipts, receiptIndex, log) };
  const replayGuard = new ReplayGuard(inbound.signatures);
  const webhooks = await openWebhookStores(nc, rt.jsm, rt.js, rt.replicas);
  const deliveries = new ReadModel(lmdb, webhooks.deliveriesKv, deliveryIndex, log);
  const subscriptions = new ReadModel(lmdb, webhooks.subscriptionsKv, subscriptionIndex, log);
  const resolveHost = async (host: string) => (await lookup(host, { all: true })).map((a) => a.address);
  const capabilityStreams = [
    bucketStream(CURIOSITY_BUCKETS.items.name),
    ...Object.values(INBOUND_BUCKETS).map((b) => bucketStream(b.name)),
    ...Object.values(INBOUND_STREAMS).map((st) => st.name),
    ...Object.values(WEBHOOK_BUCKETS).map((b) => bucketStream(b.name)),
    ...Object.values(WEBHOOK_STREAMS).map((st) => st.name),
  ];
  const readiness = new Readiness(nc, () => [...coreStreams(), ...capabilityStreams], 1_000, () => life.draining);
  const ready = () => readiness.check();
  const runtimeRegistry = new Registry();
  const runtimeMetrics = new RuntimeMetrics(runtimeRegistry, nc, rt.jsm, [], log);
  localStoreMetrics(runtimeRegistry, lmdb);
  const requeued = requeuedMetric(runtimeRegistry);
  const requeuer = new Requeuer({ js: rt.js, jsm: rt.jsm, investigations: rt.investigations, index, clock, log, onRequeued: () => requeued.inc() }, { ...DEFAULT_REQUEUE, queuedForMs: config.INQUEST_REQUEUE_AFTER });
  // Built by `make build` beside the services (dist/console); without it the gateway serves the API alone.
  const consoleSite = loadConsoleSite(fileURLToPath(new URL("../../console", import.meta.url)));
  const buildWith = (publicUrl: string): App => {
    const trigger = triggerDeps({ rt, listAgents: () => agents.list(), maxBacklog: config.INQUEST_MAX_BACKLOG, clock });
    return buildApp({
      log,
      auth: keys,
      publicUrl,
      trigger,
      cancel: { nc, js: rt.js, investigations: rt.investigations, clock },
      investigations: rt.investigations,
      investigationIndex: index,
      listAgents: async () => agents.list().map((a) => withPresence(a, presence.lastSeen(a.agent_id))),
      ready,
      extraMetrics: () => runtimeRegistry.render(),
      console: consoleSite,
      extraRoutes: [
        // Capabilities add their routes here (webhooks, curiosity, inbound).
        ...findingRoutes({ investigations: rt.investigations, findings: new FindingsStore(rt.buckets.findings) }),
        ...inboundRoutes({
          store: inboundStore,
          index: inboundIndex,
          receive: {
            byPrefix: (prefix) => inboundStore.byPrefix(prefix),
            openSecret: (sealed) => decryptSecret(masterKey, sealed),
            byEdrDevice: (deviceId) => agents.byEdrDevice(deviceId),
            byHostname: (hostname) => agents.byHostname(hostname),
            trigger: (input) => triggerInvestigation(trigger, input),
            claimSignature: (endpointId, material, receiptId) => replayGuard.claim(endpointId, material, receiptId),
            clock,
            log,
          },
          receipts,
          masterKey,
          publicUrl,
          clock,
        }),
        ...eventTypeRoutes(),
        ...curiosityRoutes({ store: new CuriosityStore(curiosityKv), index: curiosity, clock, minIntervalMs: config.INQUEST_CURIOSITY_MIN_INTERVAL }),
        ...webhookRoutes({
          manage: {
            stores: webhooks,
            masterKey,
            clock,
            publicUrl,
            checkUrl: (url) => checkTarget(url, { allowPrivate: config.INQUEST_ALLOW_PRIVATE_TARGETS, resolve: resolveHost }),
            pendingDeliveries: async (id) => pendingDeliveryIds(deliveries, id),
          },
          stores: webhooks,
          deliveryIndex: deliveries,
          subscriptionIndex: subscriptions,
          clock,
        }),
        ...recoveryRoutes({
          request: {
            stores: webhooks,
            masterKey,
            clock,
            deadLetters: async (id, since, until) => {
              await deliveries.catchUp();
              return deadLettersIn(deliveries, id, since, until);
            },
          },
          stores: webhooks,
        }),
      ],
    });
  };

  /**
   * The app is built before the socket listens, so every request meets it. Links need the public URL; without
   * INQUEST_PUBLIC_URL it names the port, so port 0 takes a free port first (and another if that one was taken
   * before the listen).
   */
  const listenWithApp = async (): Promise<{ server: HttpServer; publicUrl: string }> => {
    for (let attempt = 1; ; attempt++) {
      const port = config.INQUEST_PORT !== 0 || config.INQUEST_PUBLIC_URL ? config.INQUEST_PORT : await freePort(config.INQUEST_HOST);
      const publicUrl = (config.INQUEST_PUBLIC_URL ?? `http://${config.INQUEST_HOST}:${port}`).replace(/\/+$/, "");
      const app: App = buildWith(publicUrl);
      try {
        return { server: await listen({ host: config.INQUEST_HOST, port, log, prepare: (method, path) => app.prepare(method, path) }), publicUrl };
      } catch (err) {
        if (port === config.INQUEST_PORT || attempt >= 5) throw err;
        log.warn({ port }, "the free port was taken before the gateway listened; trying another");
      }
    }
  };

  let server: HttpServer | null = null;
  await life.start([
    readiness,
    runtimeMetrics,
    keys,
    agents,
    presence,
    { name: "local-store", start: async () => lmdb.start(), stop: () => lmdb.close() },
    { name: "investigation-index", start: () => index.start(), stop: () => index.stop() },
    requeuer,
    { name: "curiosity-index", start: () => curiosity.start(), stop: () => curiosity.stop() },
    { name: "delivery-index", start: () => deliveries.start(), stop: () => deliveries.stop() },
    { name: "subscription-index", start: () => subscriptions.start(), stop: () => subscriptions.stop() },
    { name: "inbound-endpoint-index", start: () => inboundIndex.start(), stop: () => inboundIndex.stop() },
    { name: "inbound-receipt-index", start: () => receipts.index.start(), stop: () => receipts.index.stop() },
    {
      name: "http",
      async start() {
        const listening = await listenWithApp();
        server = listening.server;
        const publicUrl = listening.publicUrl;
        log.info({ port: server.port, publicUrl, uws: isNativeUws() ? "native" : "fallback" }, "gateway listening");
        // One plain line for scripts and the all-in-one runner.
        process.stdout.write(`INQUEST_GATEWAY_URL=${publicUrl}\n`);
      },
      async stop() {
        await server?.close();
        await receipts.recorder.drain();
      },
    },
  ]);
});
