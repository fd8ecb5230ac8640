// A small Prometheus registry (text exposition format 0.0.4) shared by every service (docs/operations.md#metrics):
// counters and histograms with labels, gauges read when scraped. Label values are escaped; names are fixed in code.
export type Labels = Record<string, string>;

/** Seconds: from a fast KV step to a deep investigation. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

interface Family {
  help: string;
  type: "counter" | "gauge" | "histogram";
  render(name: string, out: string[]): void;
}

export class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();

  inc(labels: Labels = {}, by = 1): void {
    const key = labelKey(labels);
    const cur = this.values.get(key);
    if (cur) cur.value += by;
    else this.values.set(key, { labels, value: by });
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelKey(labels))?.value ?? 0;
  }

  render(name: string, out: string[]): void {
    for (const { labels, value } of this.values.values()) out.push(`${name}${formatLabels(labels)} ${value}`);
  }
}

export class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  constructor(private readonly buckets: number[]) {}

  observe(value: number, labels: Labels = {}): void {
    const key = labelKey(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    s.sum += value;
    s.count += 1;
    for (let i = 0; i < this.buckets.length; i++) if (value <= (this.buckets[i] as number)) s.counts[i] = (s.counts[i] ?? 0) + 1;
  }

  count(labels: Labels = {}): number {
    return this.series.get(labelKey(labels))?.count ?? 0;
  }

  render(name: string, out: string[]): void {
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => out.push(`${name}_bucket${formatLabels({ ...s.labels, le: String(b) })} ${s.counts[i] ?? 0}`));
      out.push(`${name}_bucket${formatLabels({ ...s.labels, le: "+Inf" })} ${s.count}`);
      out.push(`${name}_sum${formatLabels(s.labels)} ${s.sum}`);
      out.push(`${name}_count${formatLabels(s.labels)} ${s.count}`);
    }
  }
}

/** A gauge read at scrape time: one value, or one per label set. */
export type GaugeRead = () => number | Array<{ labels: Labels; value: number }>;

export class Registry {
  private readonly families = new Map<string, Family>();

  counter(name: string, help: string): Counter {
    const c = new Counter();
    this.add(name, { help, type: "counter", render: (n, out) => c.render(n, out) });
    return c;
  }

  histogram(name: string, help: string, buckets = DEFAULT_BUCKETS): Histogram {
    const h = new Histogram(buckets);
    this.add(name, { help, type: "histogram", render: (n, out) => h.render(n, out) });
    return h;
  }

  gauge(name: string, help: string, read: GaugeRead): void {
    this.add(name, {
      help,
      type: "gauge",
      render(n, out) {
        const v = read();
        if (typeof v === "number") out.push(`${n} ${v}`);
        else for (const { labels, value } of v) out.push(`${n}${formatLabels(labels)} ${value}`);
      },
    });
  }

  render(): string {
    const out: string[] = [];
    for (const [name, f] of this.families) {
      out.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`);
      f.render(name, out);
    }
    return `${out.join("\n")}\n`;
  }

  private add(name: string, family: Family): void {
    if (this.families.has(name)) throw new Error(`metric ${name} registered twice`);
    this.families.set(name, family);
  }
}

function labelKey(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}\u0000${labels[k]}`)
    .join("\u0001");
}

function formatLabels(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return "";
  return `{${keys.map((k) => `${k}="${escapeLabel(labels[k] ?? "")}"`).join(",")}}`;
}

function escapeLabel(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
