// The curiosity read model: items by next_run_at ascending, ties by id (docs/api.md#curiosity).
import type { CuriosityRecord } from "../../shared/curiosity/record.js";
import type { IndexKey, ReadModelSpec } from "../../shared/readmodel.js";

export const curiosityIndex: ReadModelSpec<CuriosityRecord> = {
  name: "curiosity.v1",
  indexKeys: (r) => [["next", Date.parse(r.next_run_at), r.id]],
};

export const CURIOSITY_PREFIX: IndexKey = ["next"];
