// The bench's headline figures as ratios (Inquest ÷ peer or ÷ ceiling, higher is better), the baseline check
// behind `make bench-check`, and one chart per figure (SVG, converted to PNG with rsvg-convert when present).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";

export interface Bar {
  label: string;
  value: number;
}

export interface Figure {
  /** Stable key used by bench/baseline.json. */
  key: string;
  title: string;
  unit: string;
  /** Inquest first, then the peer, then the ceiling (when there is one). */
  bars: Bar[];
  /** Inquest ÷ peer (or peer ÷ Inquest for "lower is better" units), so higher is always better; null when the peer was skipped. */
  ratio: number | null;
  /** The issue 9 target for `ratio`, when there is one. */
  target: number | null;
}

export interface Baseline {
  /** figure key -> ratio measured in the run the baseline was taken from. */
  ratios: Record<string, number>;
}

export interface CheckResult {
  ok: boolean;
  lines: string[];
}

/** Fails when a ratio is more than `tolerance` (0.2 = 20 %) below its baseline; a figure absent from this run (peer skipped) is reported, not failed. */
export function checkAgainstBaseline(baseline: Baseline, current: Record<string, number | null>, tolerance = 0.2): CheckResult {
  const lines: string[] = [];
  let ok = true;
  for (const [key, base] of Object.entries(baseline.ratios)) {
    const now = current[key];
    if (now === undefined || now === null) {
      lines.push(`skip ${key}: not measured in this run (baseline ${base.toFixed(2)})`);
      continue;
    }
    const floor = base * (1 - tolerance);
    const pass = now >= floor;
    if (!pass) ok = false;
    lines.push(`${pass ? "ok  " : "FAIL"} ${key}: ${now.toFixed(2)} (baseline ${base.toFixed(2)}, floor ${floor.toFixed(2)})`);
  }
  return { ok, lines };
}

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A horizontal bar chart of one figure. */
export function chartSvg(f: Figure): string {
  const width = 640;
  const rowH = 34;
  const left = 170;
  const top = 52;
  const height = top + f.bars.length * rowH + 34;
  const max = Math.max(1e-9, ...f.bars.map((b) => b.value));
  const colors = ["#2b6cb0", "#c05621", "#718096"];
  const rows = f.bars.map((b, i) => {
    const y = top + i * rowH;
    const w = Math.max(1, ((width - left - 200) * b.value) / max);
    return [
      `<text x="${left - 8}" y="${y + 19}" text-anchor="end" font-size="13">${esc(b.label)}</text>`,
      `<rect x="${left}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowH - 10}" fill="${colors[i] ?? "#718096"}"/>`,
      `<text x="${(left + w + 6).toFixed(1)}" y="${y + 19}" font-size="13">${esc(fmtValue(b.value, f.unit))}</text>`,
    ].join("");
  });
  const ratio = f.ratio === null ? "peer skipped" : `ratio ${f.ratio.toFixed(2)}×${f.target !== null ? ` (target ≥ ${f.target}×)` : ""}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, sans-serif">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="24" font-size="16" font-weight="bold">${esc(f.title)}</text>`,
    `<text x="12" y="42" font-size="12" fill="#4a5568">${esc(`${f.unit}; ${ratio}`)}</text>`,
    ...rows,
    "</svg>",
  ].join("\n");
}

function fmtValue(v: number, unit: string): string {
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${unit}`;
}

/** Writes `<base>.svg` and, when rsvg-convert is on PATH, `<base>.png`; returns whether the PNG was made. */
export function writeChart(f: Figure, base: string): boolean {
  writeFileSync(`${base}.svg`, chartSvg(f));
  const r = spawnSync("rsvg-convert", ["-o", `${base}.png`, `${base}.svg`], { timeout: 20_000 });
  return r.status === 0;
}
