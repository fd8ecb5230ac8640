// Just enough PromQL to evaluate a threshold alert over gauges in tests (no Prometheus here): `<metric>{<matchers>}`
// or `<agg> by (<labels>) (<metric>{<matchers>})`, compared with a number. Anything else throws, so a rule rewritten
// into another shape fails its test loudly instead of being judged by a guess.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { REPO } from "./services.js";

export interface Series {
  labels: Record<string, string>;
  value: number;
}

/** The alert rule's expression from deploy/prometheus/alerts.yaml. */
export function alertExpr(name: string): string {
  const doc = parse(readFileSync(join(REPO, "deploy", "prometheus", "alerts.yaml"), "utf8")) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> };
  const rule = doc.groups.flatMap((g) => g.rules).find((r) => r.alert === name);
  if (!rule) throw new Error(`no alert rule ${name}`);
  return rule.expr.trim();
}

type Matcher = { label: string; op: "=" | "!=" | "=~" | "!~"; value: string };

function matchers(text: string): Matcher[] {
  const out: Matcher[] = [];
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"$/.exec(part);
    if (!m) throw new Error(`unsupported label matcher: ${part}`);
    out.push({ label: m[1] as string, op: m[2] as Matcher["op"], value: (m[3] as string).replace(/\\(.)/g, "$1") });
  }
  return out;
}

function selects(ms: Matcher[], labels: Record<string, string>): boolean {
  return ms.every(({ label, op, value }) => {
    const v = labels[label] ?? "";
    if (op === "=") return v === value;
    if (op === "!=") return v !== value;
    const full = new RegExp(`^(?:${value})$`).test(v);
    return op === "=~" ? full : !full;
  });
}

const COMPARE: Record<string, (a: number, b: number) => boolean> = { ">": (a, b) => a > b, ">=": (a, b) => a >= b, "<": (a, b) => a < b, "<=": (a, b) => a <= b, "==": (a, b) => a === b };

/**
 * The series `expr` returns over these samples of `metric` (an alert fires for each one that stays for its `for:`),
 * with the labels it keeps.
 */
export function evaluate(expr: string, metric: string, samples: Series[]): Series[] {
  const m = /^(?:(max|min|sum)\s+by\s*\(([^)]*)\)\s*\()?\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{([^}]*)\})?\s*(\))?\s*(>=|<=|==|>|<)\s*([0-9.e+-]+)$/.exec(expr);
  if (!m || Boolean(m[1]) !== Boolean(m[5])) throw new Error(`unsupported expression for this helper: ${expr}`);
  const [, agg, by, name, sel = "", , op, threshold] = m;
  if (name !== metric) throw new Error(`${expr} is over ${name}, not ${metric}`);
  const picked = samples.filter((s) => selects(matchers(sel), s.labels));
  let out: Series[] = picked;
  if (agg) {
    const keep = (by as string).split(",").map((l) => l.trim()).filter((l) => l !== "");
    const groups = new Map<string, Series>();
    for (const s of picked) {
      const labels = Object.fromEntries(keep.map((l) => [l, s.labels[l] ?? ""]));
      const key = JSON.stringify(labels);
      const g = groups.get(key);
      const fold = agg === "max" ? Math.max : agg === "min" ? Math.min : (a: number, b: number) => a + b;
      groups.set(key, { labels, value: g ? fold(g.value, s.value) : s.value });
    }
    out = [...groups.values()];
  }
  const compare = COMPARE[op as string] as (a: number, b: number) => boolean;
  return out.filter((s) => compare(s.value, Number(threshold)));
}

/** The samples of one gauge in a Prometheus text exposition. */
export function gaugeSamples(text: string, metric: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split("\n")) {
    const m = new RegExp(`^${metric}(?:\\{([^}]*)\\})? (\\S+)$`).exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[1] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1] as string, l[2] as string]));
    out.push({ labels, value: Number(m[2]) });
  }
  return out;
}
