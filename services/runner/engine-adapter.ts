// The part of the engine the runner's main thread uses (the evaluation itself runs in engine-worker.ts).
export { routeQuery } from "../../shared/engine/router.js";
