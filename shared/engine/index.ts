// The investigation engine's public surface. Pure: no I/O, no clock, no randomness.
export { routeQuery, sweepDetections } from "./router.js";
export { InvestigationRun, runInvestigation, diffFindings, findingKey, markNewFindings, tableTtlSeconds } from "./report.js";
export type { FindingDiff } from "./report.js";
export { extractEntities } from "./entities.js";
export { buildGraph } from "./graph.js";
export { findPaths, PATH_BUDGETS } from "./pathfinder.js";
export type { PathfinderResult } from "./pathfinder.js";
export { assetWeight, scoreFinding } from "./severity.js";
export { compareDebVersions } from "./debversion.js";
export { DETECTIONS, getDetection, allDetections } from "./detections/registry.js";
export type { DetectionId } from "./detections/registry.js";
export type { Detection, DetectionHit, DetectionContext } from "./detections/detection.js";
export { detectionCatalog } from "./catalog.js";
export type { DetectionInfo } from "./catalog.js";
export { SEVERITIES } from "./types.js";
export type {
  AgentDirectoryEntry,
  BaselineNote,
  CoverageInput,
  Depth,
  EngineFinding,
  Evidence,
  EvidencePath,
  HostData,
  InvestigationOptions,
  Maturity,
  Mode,
  NextSteps,
  QueryEntities,
  Report,
  Route,
  RoutePlan,
  Row,
  Severity,
  TimelineEvent,
  Verdict,
} from "./types.js";
