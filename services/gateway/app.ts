// buildApp: the gateway's routes and request pipeline, without a socket. main.ts gives it a listener.
import type { AgentRecord } from "../../shared/agents/record.js";
import { ByteLru } from "../../shared/byte-lru.js";
import type { CancelDeps } from "../../shared/investigations/cancel.js";
import type { InvestigationRecord, InvestigationView } from "../../shared/investigations/record.js";
import type { TriggerDeps } from "../../shared/investigations/trigger.js";
import type { Logger } from "../../shared/log.js";
import type { JsonKv } from "../../shared/nats/kvjson.js";
import type { ReadModel } from "../../shared/readmodel.js";
import type { ConsoleSite } from "./console-site.js";
import { prepareRequest, type Authenticator, type PreparedRequest } from "./http/pipeline.js";
import { Router } from "./http/router.js";
import type { Route } from "./http/types.js";
import { Metrics } from "./metrics.js";
import { openApiDocument } from "./openapi.js";
import { agentRoutes } from "./routes/agents.js";
import { investigationRoutes } from "./routes/investigations.js";
import { opsRoutes } from "./routes/ops.js";
import { whoamiRoutes } from "./routes/whoami.js";

export const API_VERSION = "0.1.0";

/**
 * Rendered details of final investigations kept in memory: a detail is bounded (~130 KB with 100 findings), so
 * this holds a few hundred of the most read; polling clients read the same final record again and again.
 */
const FINAL_DETAILS_CACHE_BYTES = 8 * 1024 * 1024;

export interface AppDeps {
  log: Logger;
  auth: Authenticator;
  publicUrl: string;
  trigger: TriggerDeps;
  cancel: CancelDeps;
  investigations: JsonKv<InvestigationRecord>;
  investigationIndex: ReadModel<InvestigationRecord, InvestigationView>;
  listAgents(): Promise<AgentRecord[]>;
  ready(): Promise<{ ok: boolean; reason?: string }>;
  /** Routes added by other capabilities (webhooks, curiosity, inbound). */
  extraRoutes?: Route[];
  /** Metrics beside the HTTP ones (process, NATS connection): appended to GET /metrics. */
  extraMetrics?: () => string;
  /** The browser console's static files, served at `/` and `/console/` (docs/console.md). */
  console?: ConsoleSite | null;
}

export interface App {
  routes: Route[];
  metrics: Metrics;
  /** Resolves the route once per request: its body limit, then its handling. */
  prepare(method: string, path: string): PreparedRequest;
  openapi(): Record<string, unknown>;
}

export function buildApp(deps: AppDeps): App {
  const metrics = new Metrics();
  const routes: Route[] = [];
  let openapi: Record<string, unknown> | null = null;
  routes.push(
    ...opsRoutes({ ready: deps.ready, metrics: () => metrics.render() + (deps.extraMetrics?.() ?? ""), openapi: () => (openapi ??= openApiDocument(routes, API_VERSION)) }),
    ...investigationRoutes({
      trigger: deps.trigger,
      cancel: deps.cancel,
      investigations: deps.investigations,
      index: deps.investigationIndex,
      publicUrl: deps.publicUrl,
      finalDetails: new ByteLru(FINAL_DETAILS_CACHE_BYTES),
    }),
    ...agentRoutes({ listAgents: deps.listAgents }),
    ...whoamiRoutes(),
    ...(deps.extraRoutes ?? []),
  );
  const router = new Router(routes);
  const pipeline = { router, auth: deps.auth, log: deps.log, observe: (r: string, s: number, sec: number) => metrics.observe(r, s, sec) };
  return {
    routes,
    metrics,
    prepare: (method, path) => withConsole(deps.console ?? null, method, path, prepareRequest(pipeline, method, path)),
    openapi: () => (openapi ??= openApiDocument(routes, API_VERSION)),
  };
}

/** Console paths are served from its files; anything else (or a file it does not have) goes to the API pipeline. */
function withConsole(site: ConsoleSite | null, method: string, path: string, api: PreparedRequest): PreparedRequest {
  if (site === null || (path !== "/" && !path.startsWith("/console/"))) return api;
  return { bodyLimit: api.bodyLimit, handle: async (req) => site.serve(method, path, req.headers["if-none-match"]) ?? api.handle(req) };
}
