// The engine as the runner uses it.
import { diffFindings, routeQuery, runInvestigation } from "../../shared/engine/index.js";
import type { Engine } from "./execute.js";

export const engine: Engine = { routeQuery, runInvestigation };

export { diffFindings };
