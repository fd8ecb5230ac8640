// The gateway's request metrics in Prometheus text: counts by route and status, and a cumulative latency histogram.
import { test } from "tap";
import { Metrics } from "../../services/gateway/metrics.js";

test("requests are counted by route and status; the histogram's buckets are cumulative", async (t) => {
  const m = new Metrics();
  m.observe("GET /v1/x", 200, 0.0005);
  m.observe("GET /v1/x", 200, 0.003);
  m.observe("GET /v1/x", 404, 0.02);
  m.observe("GET /v1/x", 200, 9);
  m.observe('POST /v1/"y"', 202, 0.001);
  const text = m.render();
  const line = (prefix: string): string | undefined => text.split("\n").find((l) => l.startsWith(prefix));
  t.equal(line('inquest_http_requests_total{route="GET /v1/x",status="200"}'), 'inquest_http_requests_total{route="GET /v1/x",status="200"} 3');
  t.equal(line('inquest_http_requests_total{route="GET /v1/x",status="404"}'), 'inquest_http_requests_total{route="GET /v1/x",status="404"} 1');
  const bucket = (le: string): string | undefined => line(`inquest_http_request_duration_seconds_bucket{route="GET /v1/x",le="${le}"}`)?.split(" ").pop();
  t.same(["0.001", "0.0025", "0.005", "0.01", "0.025", "2.5", "+Inf"].map(bucket), ["1", "1", "2", "2", "3", "3", "4"]);
  t.equal(line('inquest_http_request_duration_seconds_count{route="GET /v1/x"}'), 'inquest_http_request_duration_seconds_count{route="GET /v1/x"} 4');
  t.match(line('inquest_http_request_duration_seconds_sum{route="GET /v1/x"}'), /9\.02\d*$/);
  t.equal(line('inquest_http_request_duration_seconds_bucket{route="POST /v1/\\"y\\"",le="0.001"}'), 'inquest_http_request_duration_seconds_bucket{route="POST /v1/\\"y\\"",le="0.001"} 1', "a bound is inclusive; quotes are escaped");
});
