// What a plan answer's or a snapshot's rows may be: JSON objects of any keys, their values nested at most
// MAX_ROW_DEPTH levels (checked without recursion past that depth, whatever an agent sends).
import { test } from "tap";
import { MAX_ROW_DEPTH, PlanReply, Snapshot, rowsWithinDepth, type Tables } from "../../shared/agents/protocol.js";
import { checker } from "../../shared/validate.js";

const reply = checker(PlanReply);
const snapshot = checker(Snapshot);
const answer = (tables: unknown) => ({ agent_id: "a-1", collected_at: "2026-11-28T00:00:00.000Z", tables });

/** A value nested `levels` deep as a row value: 1 is a scalar, 2 an object holding one, and so on. */
function nested(levels: number, asArray = false): unknown {
  let v: unknown = 1;
  for (let i = 1; i < levels; i++) v = asArray ? [v] : { v };
  return v;
}

test("rows are objects of any keys; anything else is refused", async (t) => {
  const good = { processes: [{ pid: 1, name: "init", "odd key with spaces": null, __proto__x: { a: [1, 2] } }], empty: [] };
  t.ok(reply.check(answer(good)).ok, "objects with any keys and values");
  t.ok(snapshot.check({ ...answer(good), hostname: "h" }).ok, "the same in a snapshot");
  for (const [what, tables] of [
    ["a number row", { p: [1] }],
    ["an array row", { p: [[1, 2]] }],
    ["a null row", { p: [null] }],
    ["a text row", { p: ["x"] }],
    ["rows not in an array", { p: { pid: 1 } }],
    ["tables as an array", [{ pid: 1 }]],
    ["no tables", null],
  ] as const) {
    t.notOk(reply.check(answer(tables)).ok, `${what} is refused`);
  }
});

test("row values nest at most MAX_ROW_DEPTH levels, objects and arrays alike", async (t) => {
  for (const asArray of [false, true]) {
    const at = (levels: number): Tables => ({ p: [{ ok: 1 }, { deep: nested(levels, asArray) }] });
    t.ok(rowsWithinDepth(at(1)), "a scalar");
    t.ok(rowsWithinDepth(at(MAX_ROW_DEPTH)), `${MAX_ROW_DEPTH} levels (${asArray ? "arrays" : "objects"})`);
    t.notOk(rowsWithinDepth(at(MAX_ROW_DEPTH + 1)), `${MAX_ROW_DEPTH + 1} levels are refused`);
    t.notOk(rowsWithinDepth(at(100_000)), "100,000 levels are refused without a stack overflow");
  }
  t.ok(rowsWithinDepth({}), "no tables");
  t.ok(rowsWithinDepth({ p: [], q: [{}] }), "empty rows");
  t.notOk(rowsWithinDepth({ p: [{ a: 1 }], q: [{ b: [1, { c: nested(MAX_ROW_DEPTH - 1) }] }] }), "a deep value in a later table, behind shallow ones");
  t.ok(rowsWithinDepth({ p: [{ a: [1, { c: nested(MAX_ROW_DEPTH - 2) }] }] }), "exactly the limit inside an array of objects");
  // As the agent's text parses: an own "__proto__" key is a value like any other.
  t.notOk(rowsWithinDepth(JSON.parse(`{"p":[{"__proto__":${JSON.stringify(nested(MAX_ROW_DEPTH + 1))}}]}`) as Tables), "a deep __proto__ value");
});
