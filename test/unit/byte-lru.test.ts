// ByteLru: bounded by the bytes it holds, least recently used out first, an oversized value never kept.
import { test } from "tap";
import { ByteLru } from "../../shared/byte-lru.js";

const b = (s: string): Buffer => Buffer.from(s, "utf8");
const text = (v: Buffer | undefined): string | undefined => v?.toString("utf8");

test("evicts the least recently used once the total is over the bound; a read counts as a use", async (t) => {
  const lru = new ByteLru(15);
  lru.set("a", b("aaaaa"));
  lru.set("b", b("bbbbb"));
  lru.set("c", b("ccccc"));
  t.equal(lru.totalBytes, 15);
  t.equal(text(lru.get("a")), "aaaaa", "a read makes a the most recently used");
  lru.set("d", b("ddddd"));
  t.equal(lru.get("b"), undefined, "b, the least recently used, went");
  t.same([lru.get("a"), lru.get("c"), lru.get("d")].map(text), ["aaaaa", "ccccc", "ddddd"]);
  t.equal(lru.size, 3);
  t.ok(lru.totalBytes <= 15);
});

test("a value over the bound is not kept, and replacing a key frees its old size", async (t) => {
  const lru = new ByteLru(10);
  lru.set("big", b("x".repeat(11)));
  t.equal(lru.get("big"), undefined);
  t.equal(lru.totalBytes, 0);
  lru.set("k", b("12345"));
  lru.set("k", b("1234567890"));
  t.equal(text(lru.get("k")), "1234567890");
  t.equal(lru.totalBytes, 10);
  lru.set("k", b("x".repeat(11)));
  t.equal(lru.get("k"), undefined, "an oversized replacement drops the old value too");
  t.equal(lru.totalBytes, 0);
});

test("encode gives the UTF-8 bytes in a buffer of their own (not a slice of a shared slab)", async (t) => {
  const bytes = ByteLru.encode("a → b");
  t.equal(bytes.toString("utf8"), "a → b");
  t.equal(bytes.byteLength, 7);
  t.equal(bytes.buffer.byteLength, 7, "the whole backing store is these bytes");
});

test("sizes are bytes of UTF-8, not characters", async (t) => {
  const lru = new ByteLru(8);
  lru.set("arrow", b("→→")); // 6 bytes
  t.equal(lru.totalBytes, 6);
  lru.set("more", b("→")); // 3 more: over 8, the arrow goes
  t.equal(lru.get("arrow"), undefined);
  t.equal(text(lru.get("more")), "→");
});
