import { test } from "tap";
import { compareDebVersions } from "../../shared/engine/index.js";

test("dpkg version ordering", async (t) => {
  const ascending = [
    "1.0~rc1",
    "1.0",
    "1.0-1",
    "1.0-1+b1",
    "1.0a",
    "1.0.1",
    "1.2",
    "1.10",
    "5.6.1-1",
    "5.6.1+really5.4.5-1",
    "1:0.1",
    "1:8.9p1-3ubuntu0.9",
    "1:8.9p1-3ubuntu0.10",
    "1:9.2p1-2+deb12u2",
    "1:9.2p1-2+deb12u2+acme1",
    "1:9.2p1-2+deb12u3",
  ];
  for (let i = 1; i < ascending.length; i++) {
    const a = ascending[i - 1] ?? "";
    const b = ascending[i] ?? "";
    t.ok(compareDebVersions(a, b) < 0, `${a} < ${b}`);
    t.ok(compareDebVersions(b, a) > 0, `${b} > ${a}`);
  }
  t.equal(compareDebVersions("1.0-1", "1.0-1"), 0);
  t.equal(compareDebVersions("0:1.0", "1.0"), 0, "epoch 0 is implicit");
  t.equal(compareDebVersions("1.01", "1.1"), 0, "leading zeros");
});
