// Prometheus text exposition for the gateway: request counts by route and status, latency histogram.
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One route's figures: requests by status, and the latency histogram (per-bucket counts, not cumulative). */
interface RouteFigures {
  byStatus: Map<number, number>;
  /** Requests in each bucket alone (the first bucket whose bound they are within); rendered cumulative. */
  buckets: number[];
  sum: number;
  count: number;
}

export class Metrics {
  private routes = new Map<string, RouteFigures>();
  private gauges = new Map<string, () => number>();

  /** Called for every request: one map lookup by route, no string built. */
  observe(route: string, status: number, seconds: number): void {
    let r = this.routes.get(route);
    if (!r) {
      r = { byStatus: new Map(), buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.routes.set(route, r);
    }
    r.byStatus.set(status, (r.byStatus.get(status) ?? 0) + 1);
    r.sum += seconds;
    r.count += 1;
    let i = 0;
    while (i < BUCKETS.length && seconds > (BUCKETS[i] as number)) i++;
    if (i < BUCKETS.length) r.buckets[i] = (r.buckets[i] as number) + 1;
  }

  gauge(name: string, read: () => number): void {
    this.gauges.set(name, read);
  }

  render(): string {
    const out: string[] = [];
    out.push("# HELP inquest_http_requests_total HTTP requests by route and status.", "# TYPE inquest_http_requests_total counter");
    for (const [route, r] of this.routes) {
      for (const [status, n] of r.byStatus) out.push(`inquest_http_requests_total{route="${esc(route)}",status="${status}"} ${n}`);
    }
    out.push("# HELP inquest_http_request_duration_seconds Request latency.", "# TYPE inquest_http_request_duration_seconds histogram");
    for (const [route, h] of this.routes) {
      let cumulative = 0;
      BUCKETS.forEach((b, i) => {
        cumulative += h.buckets[i] ?? 0;
        out.push(`inquest_http_request_duration_seconds_bucket{route="${esc(route)}",le="${b}"} ${cumulative}`);
      });
      out.push(`inquest_http_request_duration_seconds_bucket{route="${esc(route)}",le="+Inf"} ${h.count}`);
      out.push(`inquest_http_request_duration_seconds_sum{route="${esc(route)}"} ${h.sum}`);
      out.push(`inquest_http_request_duration_seconds_count{route="${esc(route)}"} ${h.count}`);
    }
    for (const [name, read] of this.gauges) out.push(`# TYPE ${name} gauge`, `${name} ${read()}`);
    return `${out.join("\n")}\n`;
  }
}

function esc(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
}
