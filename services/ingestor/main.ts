// Ingestor wiring: inbound webhook receipts from the gateway become investigations.
import { AgentDirectory } from "../../shared/agents/directory.js";
import { systemClock } from "../../shared/clock.js";
import { readBody } from "../../shared/inbound/body.js";
import { openInboundBuckets } from "../../shared/inbound/catalog.js";
import { InboundEndpointStore } from "../../shared/inbound/store.js";
import { triggerInvestigation } from "../../shared/investigations/trigger.js";
import { triggerDeps } from "../../shared/investigations/trigger-deps.js";
import { decryptSecret, parseMasterKey } from "../../shared/secrets.js";
import { connectService, runService } from "../../shared/service.js";
import { loadIngestorConfig } from "./config.js";
import { ReceiptResponder } from "./responder.js";

await runService("ingestor", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadIngestorConfig(process.env);
  const masterKey = parseMasterKey(config.INQUEST_MASTER_KEY);
  const clock = systemClock;
  const { nc, life, rt } = await connectService("ingestor", config, log, register);
  const buckets = await openInboundBuckets(nc, rt.replicas);
  const endpoints = new InboundEndpointStore(buckets.endpoints);
  const agents = new AgentDirectory(rt.buckets.agents, log);
  const trigger = triggerDeps({ rt, listAgents: () => agents.list(), maxBacklog: config.INQUEST_MAX_BACKLOG, publicUrl: config.INQUEST_PUBLIC_URL, clock });
  const responder = new ReceiptResponder(
    nc,
    buckets.spill,
    {
      byPrefix: (prefix) => endpoints.byPrefix(prefix),
      readBody: (body) => readBody(buckets.spill, body),
      openSecret: (sealed) => decryptSecret(masterKey, sealed),
      byEdrDevice: (deviceId) => agents.byEdrDevice(deviceId),
      byHostname: (hostname) => agents.byHostname(hostname),
      trigger: (input) => triggerInvestigation(trigger, input),
      clock,
      log,
    },
    log,
  );
  await life.start([agents, responder]);
  log.info("ingestor ready");
});
