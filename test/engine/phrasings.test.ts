// The router against 433 questions written the way analysts write them (test/engine/phrasings.json, written apart
// from the router): each must choose at least one of the right detections, open questions must run the broad
// sweep, and user names are extracted exactly (ordinary words are never taken for users).
import { test } from "tap";
import { getDetection, routeQuery } from "../../shared/engine/index.js";
import { readRepoFile } from "./helpers.js";

interface Phrasing {
  q: string;
  any?: string[];
  sweep?: boolean;
  users?: string[];
  style: string;
}

const PHRASINGS = JSON.parse(readRepoFile("test/engine/phrasings.json")) as Phrasing[];

test("the phrasing set is large and names only real detections", async (t) => {
  t.ok(PHRASINGS.length >= 300, `${PHRASINGS.length} phrasings`);
  for (const p of PHRASINGS) for (const id of p.any ?? []) t.ok(getDetection(id), `${id} (in "${p.q}") is a detection`);
});

for (const style of [...new Set(PHRASINGS.map((p) => p.style))].sort()) {
  test(`phrasings in the ${style} style route to the right detections`, async (t) => {
    for (const p of PHRASINGS.filter((x) => x.style === style)) {
      const plan = routeQuery(p.q, "standard");
      if (p.any) {
        const hit = p.any.filter((id) => plan.detection_ids.includes(id));
        t.ok(hit.length > 0, `"${p.q}" chooses one of ${p.any.join(", ")}`, { chosen: plan.detection_ids, rationale: plan.routing_rationale });
      }
      if (p.sweep) t.equal(plan.sweep, true, `"${p.q}" runs the broad sweep`, { rationale: plan.routing_rationale });
      t.same(plan.entities.users, [...(p.users ?? [])].sort(), `"${p.q}" names users ${JSON.stringify(p.users ?? [])}`);
    }
  });
}
