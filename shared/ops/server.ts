// The operational port of the services without an HTTP API (runner, dispatcher, ticker): GET /healthz (the
// process answers), GET /readyz (200 only while NATS is connected, the streams exist and no shutdown has begun),
// GET /metrics (Prometheus text). Off unless INQUEST_OPS_PORT is set (docs/operations.md#ops-port); the gateway
// serves the same three on its API port.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Component } from "../lifecycle.js";
import type { Logger } from "../log.js";
import type { ReadinessResult } from "../nats/readiness.js";
import type { Registry } from "./metrics.js";

export interface OpsServerOptions {
  host: string;
  port: number;
  ready(): Promise<ReadinessResult>;
  metrics: Registry;
  log: Logger;
}

export class OpsServer implements Component {
  readonly name = "ops-server";
  private server: Server | null = null;

  constructor(private readonly opts: OpsServerOptions) {}

  /** The port it listens on (the real one when configured as 0). */
  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      void this.answer(req.method ?? "GET", (req.url ?? "/").split("?")[0] ?? "/").then(({ status, type, body }) => {
        // A 503 (not ready) says when to ask again, as every 503 of the API does (docs/api.md#errors).
        res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...(status === 503 ? { "retry-after": "1" } : {}) });
        res.end(body);
      });
    });
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.opts.port, this.opts.host, () => resolve());
    });
    this.server = server;
    this.opts.log.info({ host: this.opts.host, port: this.port }, "ops port listening");
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async answer(method: string, path: string): Promise<{ status: number; type: string; body: string }> {
    const json = (status: number, body: unknown) => ({ status, type: "application/json", body: JSON.stringify(body) });
    if (method !== "GET" && method !== "HEAD") return json(405, { error: { code: "method_not_allowed", message: "only GET" } });
    switch (path) {
      case "/healthz":
        return json(200, { ok: true });
      case "/readyz": {
        const r = await this.opts.ready().catch((err: unknown) => ({ ok: false, reason: err instanceof Error ? err.message : String(err) }));
        return r.ok ? json(200, { ok: true }) : json(503, { error: { code: "unavailable", message: r.reason ?? "not ready" } });
      }
      case "/metrics":
        return { status: 200, type: "text/plain; version=0.0.4", body: this.opts.metrics.render() };
      default:
        return json(404, { error: { code: "not_found", message: `no ${path} here: /healthz, /readyz, /metrics` } });
    }
  }
}
