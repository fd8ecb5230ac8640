// ByteLru: bounded by the size of what it holds, least recently used out first, an oversized value never kept.
import { test } from "tap";
import { ByteLru } from "../../shared/byte-lru.js";

test("evicts the least recently used once the total is over the bound; a read counts as a use", async (t) => {
  const lru = new ByteLru(30); // 15 characters
  lru.set("a", "aaaaa");
  lru.set("b", "bbbbb");
  lru.set("c", "ccccc");
  t.equal(lru.totalBytes, 30);
  t.equal(lru.get("a"), "aaaaa", "a read makes a the most recently used");
  lru.set("d", "ddddd");
  t.equal(lru.get("b"), undefined, "b, the least recently used, went");
  t.same([lru.get("a"), lru.get("c"), lru.get("d")], ["aaaaa", "ccccc", "ddddd"]);
  t.equal(lru.size, 3);
  t.ok(lru.totalBytes <= 30);
});

test("a value over the bound is not kept, and replacing a key frees its old size", async (t) => {
  const lru = new ByteLru(20);
  lru.set("big", "x".repeat(11));
  t.equal(lru.get("big"), undefined);
  t.equal(lru.totalBytes, 0);
  lru.set("k", "12345");
  lru.set("k", "1234567890");
  t.equal(lru.get("k"), "1234567890");
  t.equal(lru.totalBytes, 20);
  lru.set("k", "x".repeat(11));
  t.equal(lru.get("k"), undefined, "an oversized replacement drops the old value too");
  t.equal(lru.totalBytes, 0);
});
