// The detection catalog as plain data (for an API listing or documentation): no functions.
import { allDetections } from "./detections/registry.js";
import type { Maturity, Severity } from "./types.js";

export interface DetectionInfo {
  id: string;
  title: string;
  tables: string[];
  severity: Severity;
  attack: string[];
  maturity: Maturity;
  category: string;
  false_positives: string;
  precision: number;
  recall: number;
  calibrated: boolean;
}

export function detectionCatalog(): DetectionInfo[] {
  return allDetections().map((d) => ({
    id: d.id,
    title: d.title,
    tables: [...d.tables].sort(),
    severity: d.severity,
    attack: [...d.attack],
    maturity: d.maturity,
    category: d.category,
    false_positives: d.false_positives,
    precision: d.precision,
    recall: d.recall,
    calibrated: d.calibrated,
  }));
}
