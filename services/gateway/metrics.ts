// Prometheus text exposition for the gateway: request counts by route and status, latency histogram.
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class Metrics {
  private counts = new Map<string, number>();
  private histo = new Map<string, { buckets: number[]; sum: number; count: number }>();
  private gauges = new Map<string, () => number>();

  observe(route: string, status: number, seconds: number): void {
    const key = `${route}\u0000${status}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let h = this.histo.get(route);
    if (!h) {
      h = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.histo.set(route, h);
    }
    h.sum += seconds;
    h.count += 1;
    BUCKETS.forEach((b, i) => {
      if (seconds <= b) h.buckets[i] = (h.buckets[i] ?? 0) + 1;
    });
  }

  gauge(name: string, read: () => number): void {
    this.gauges.set(name, read);
  }

  render(): string {
    const out: string[] = [];
    out.push("# HELP inquest_http_requests_total HTTP requests by route and status.", "# TYPE inquest_http_requests_total counter");
    for (const [key, n] of this.counts) {
      const [route, status] = key.split("\u0000");
      out.push(`inquest_http_requests_total{route="${esc(route ?? "")}",status="${status}"} ${n}`);
    }
    out.push("# HELP inquest_http_request_duration_seconds Request latency.", "# TYPE inquest_http_request_duration_seconds histogram");
    for (const [route, h] of this.histo) {
      BUCKETS.forEach((b, i) => out.push(`inquest_http_request_duration_seconds_bucket{route="${esc(route)}",le="${b}"} ${h.buckets[i] ?? 0}`));
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
