// Lru: bounded by its number of entries, least recently used out first (shared/lru.ts).
import { test } from "tap";
import { Lru } from "../../shared/lru.js";

test("evicts the least recently used past the bound; a read counts as a use; a set again replaces", async (t) => {
  const lru = new Lru<string, number>(2);
  lru.set("a", 1);
  lru.set("b", 2);
  t.equal(lru.get("a"), 1, "a read makes a the most recently used");
  lru.set("c", 3);
  t.equal(lru.get("b"), undefined, "b, the least recently used, went");
  t.same([lru.get("a"), lru.get("c"), lru.size], [1, 3, 2]);
  lru.set("a", 10);
  t.same([lru.get("a"), lru.size], [10, 2], "set again: replaced, not added");
  t.ok(lru.delete("a"));
  t.notOk(lru.delete("a"));
  t.equal(lru.size, 1);
});
