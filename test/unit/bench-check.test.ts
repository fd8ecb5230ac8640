// The bench guard's logic (`make bench-check`, bench/figures.ts): a ratio more than 20 % below its baseline fails,
// one at or above the floor passes, a figure not measured in this run (peer skipped) is reported, not failed.
import { test } from "tap";
import { checkAgainstBaseline, chartSvg } from "../../bench/figures.js";

test("a ratio within 20 % of its baseline passes, one further below fails", async (t) => {
  const baseline = { ratios: { get_vs_fastify: 1.0, post_vs_fastify: 0.5 } };
  t.equal(checkAgainstBaseline(baseline, { get_vs_fastify: 0.81, post_vs_fastify: 0.4 }).ok, true);
  const dropped = checkAgainstBaseline(baseline, { get_vs_fastify: 0.79, post_vs_fastify: 0.6 });
  t.equal(dropped.ok, false);
  t.match(dropped.lines.join("\n"), /FAIL get_vs_fastify: 0\.79/);
});

test("a figure absent from the run (no Redis) is reported and does not fail", async (t) => {
  const r = checkAgainstBaseline({ ratios: { deliveries_vs_bullmq: 0.4 } }, { deliveries_vs_bullmq: null });
  t.equal(r.ok, true);
  t.match(r.lines[0], /skip deliveries_vs_bullmq/);
});

test("a chart shows every bar's label and value and the ratio", async (t) => {
  const svg = chartSvg({ key: "k", title: "GET <by id>", unit: "req/s", bars: [{ label: "Inquest", value: 1234 }, { label: "Fastify peer", value: 617 }], ratio: 2, target: 2 });
  t.match(svg, /GET &lt;by id&gt;/);
  t.match(svg, /1234 req\/s/);
  t.match(svg, /617 req\/s/);
  t.match(svg, /ratio 2\.00× \(target ≥ 2×\)/);
});
