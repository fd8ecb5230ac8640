import fc from "fast-check";
import { test } from "tap";
import { parseAuthorizedKey, parseHistory } from "../../services/agent/telemetry/accounts.js";
import { parseCronLine } from "../../services/agent/telemetry/persistence.js";
import { parseUnitEntries, summariseUnit } from "../../services/agent/telemetry/unit-files.js";
import { decodeEndpoint, formatIpv6, parseNetFile } from "../../services/agent/telemetry/net.js";
import { parseStat, parseStatus } from "../../services/agent/telemetry/proc.js";
import { parseControl } from "../../services/agent/telemetry/packages.js";
import { parseUtmp, UTMP_RECORD_SIZE } from "../../services/agent/telemetry/utmp.js";
import { parsePasswd } from "../../services/agent/telemetry/util.js";

const hexBytes = (hex: string) => (hex.match(/../g) ?? []).map((b) => Number.parseInt(b, 16));

test("formatIpv6 follows inet_ntop", async (t) => {
  const cases: Array<[string, string]> = [
    ["00000000000000000000000000000000", "::"],
    ["00000000000000000000000000000001", "::1"],
    ["fe800000000000000000000000000001", "fe80::1"],
    ["20010db8000000000000000000000000", "2001:db8::"],
    ["20010db8000000010000000000000001", "2001:db8:0:1::1"],
    ["20010db8000100000001000000000001", "2001:db8:1:0:1::1"], // longest run wins
    ["20010db8000000000001000000000001", "2001:db8::1:0:0:1"], // first of equal runs wins
    ["20010db8000100010001000100010001", "2001:db8:1:1:1:1:1:1"],
    ["20010db8000000010001000100010001", "2001:db8:0:1:1:1:1:1"], // a single zero is not compressed
    ["00000000000000000000ffff7f000001", "::ffff:127.0.0.1"],
    ["000000000000000000000000c0a80001", "::192.168.0.1"],
  ];
  for (const [hex, want] of cases) t.equal(formatIpv6(hexBytes(hex)), want, want);
});

test("formatIpv6 agrees with WHATWG URL serialisation outside the IPv4 forms", async (t) => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }), (words) => {
      const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
      // inet_ntop prints dotted IPv4 only when the first five words are zero; URL never does.
      fc.pre(!words.slice(0, 5).every((w) => w === 0));
      const viaUrl = new URL(`http://[${words.map((w) => w.toString(16)).join(":")}]/`).hostname.slice(1, -1);
      return formatIpv6(bytes) === viaUrl;
    }),
    { numRuns: 2000 },
  );
  t.pass("property held");
});

test("decodeEndpoint handles both byte orders and rejects junk", async (t) => {
  t.same(decodeEndpoint("0100007F:115C", true), { address: "127.0.0.1", port: 4444 });
  t.same(decodeEndpoint("7F000001:115C", false), { address: "127.0.0.1", port: 4444 });
  t.same(decodeEndpoint("0000000000000000FFFF00000100007F:0050", true), { address: "::ffff:127.0.0.1", port: 80 });
  t.same(decodeEndpoint("B80D01200000000000000000A1B2C3D4:01BB", true), { address: "2001:db8::d4c3:b2a1", port: 443 });
  t.equal(decodeEndpoint("zz:00", true), undefined);
  t.equal(decodeEndpoint("0100007F", true), undefined);
  t.equal(decodeEndpoint("0100:0016", true), undefined);
});

test("parseNetFile skips the header and short lines", async (t) => {
  const rows = parseNetFile(
    [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 00000000:0016 00000000:0000 0a 00000000:00000000 00:00000000 00000000     0        0 999 1",
      "   1: short",
      "",
    ],
    6,
    2,
    7,
  );
  t.same(rows, [
    { family: 2, protocol: 6, localAddress: "0.0.0.0", localPort: 22, remoteAddress: "0.0.0.0", remotePort: 0, st: "0A", inode: "999", netNamespace: 7 },
  ]);
});

test("parseStat copes with hostile comm values", async (t) => {
  const stat = parseStat("42 (a) b) S (c) R 7 42 42 0 -1 0 0 0 0 0 9 8 0 0 20 5 2 0 12345 0 0\n");
  t.match(stat, { state: "R", parent: 7, pgroup: 42, userTicks: 9, systemTicks: 8, nice: 5, threads: 2, startTicks: 12345 });
  t.equal(parseStat("42 (x) S 1 2"), undefined, "truncated");
  t.equal(parseStat(""), undefined);
  t.match(parseStatus("Name:\tx y\nUid:\t1\t2\t3\t4\nGid:\t5\t6\t7\t8\nVmRSS:\t 12 kB\n"), { name: "x y", uid: [1, 2, 3, 4], gid: [5, 6, 7, 8], vmRssKb: 12, vmSizeKb: -1 });
});

test("parseAuthorizedKey: options with quoted spaces, comments, junk", async (t) => {
  t.same(parseAuthorizedKey('from="10.0.0.0/8,!10.1.2.3",command="/bin/echo \\"a b\\"" ssh-ed25519 AAAAkey my laptop key'), {
    options: 'from="10.0.0.0/8,!10.1.2.3",command="/bin/echo \\"a b\\""',
    algorithm: "ssh-ed25519",
    key: "AAAAkey",
    comment: "my laptop key",
  });
  t.match(parseAuthorizedKey("sk-ssh-ed25519@openssh.com AAAAsk yubi"), { options: "", algorithm: "sk-ssh-ed25519@openssh.com", key: "AAAAsk" });
  t.match(parseAuthorizedKey("restrict,pty ecdsa-sha2-nistp384 AAAAe"), { options: "restrict,pty", algorithm: "ecdsa-sha2-nistp384", comment: "" });
  t.equal(parseAuthorizedKey("   # comment"), undefined);
  t.equal(parseAuthorizedKey(""), undefined);
  t.equal(parseAuthorizedKey("ssh-rsa"), undefined, "no key material");
});

test("parseHistory: bash timestamps apply to the next command only; zsh extended format", async (t) => {
  t.same(parseHistory(["#1700000000", "id", "uname -a", "#1700000009", ": 1700000010:3;sudo -i", "#notatime", ""]), [
    { time: 1700000000, command: "id" },
    { time: 0, command: "uname -a" },
    { time: 1700000010, command: "sudo -i" },
    { time: 0, command: "#notatime" },
  ]);
});

test("parseCronLine: env lines, short lines, @events", async (t) => {
  t.equal(parseCronLine("MAILTO=root", "/f"), undefined);
  t.equal(parseCronLine("MAILTO = root", "/f"), undefined);
  t.equal(parseCronLine("* * * *", "/f"), undefined);
  t.equal(parseCronLine("@daily", "/f"), undefined);
  t.match(parseCronLine("  @hourly   /usr/bin/x  -y", "/f"), { event: "@hourly", command: "/usr/bin/x -y", minute: "" });
  t.match(parseCronLine("0 0 1 1 * echo 'a  b' > /tmp/x", "/f"), { minute: "0", month: "1", command: "echo 'a b' > /tmp/x", path: "/f" });
});

test("parseUnitEntries / summariseUnit: sections matter, comments, continuations", async (t) => {
  const entries = parseUnitEntries([
    "# comment",
    "Orphan=before any section",
    "[Unit]",
    "Description=First",
    "[Service]",
    "; another comment",
    "ExecStart=/bin/a",
    "ExecStart=/bin/b \\",
    "   --flag",
    "User=nobody",
    "Description=ignored outside [Unit]",
  ]);
  t.same(entries, [
    { section: "Unit", key: "Description", value: "First" },
    { section: "Service", key: "ExecStart", value: "/bin/a" },
    { section: "Service", key: "ExecStart", value: "/bin/b --flag" },
    { section: "Service", key: "User", value: "nobody" },
    { section: "Service", key: "Description", value: "ignored outside [Unit]" },
  ]);
  t.same(summariseUnit(entries), { description: "First", user: "nobody", hasInstall: false });
});

test("parseControl and parsePasswd tolerate CRLF-free junk", async (t) => {
  const stanzas = parseControl("Package: a\nDescription: x\n more\n\n\n\nPackage: b\n no-key-continuation\n");
  t.equal(stanzas.length, 2);
  t.equal(stanzas[0]?.get("Description"), "x\nmore");
  t.same(parsePasswd("a:x:1:2:d:/h:/bin/sh:extra\n#c:x:0:0::/:/bin/sh\nb:x:notanumber:0::/:/bin/sh\n"), [
    { username: "a", uid: 1, gid: 2, description: "d", directory: "/h", shell: "/bin/sh:extra" },
  ]);
});

test("parseUtmp: fixed-size records, NUL-terminated fields", async (t) => {
  const rec = Buffer.alloc(UTMP_RECORD_SIZE);
  rec.writeInt16LE(7, 0);
  rec.writeInt32LE(99, 4);
  rec.write("tty1", 8);
  rec.write("x".repeat(32), 44); // a full-width user field has no NUL
  rec.write("host", 76);
  rec.writeInt32LE(1234567890, 340);
  t.same(parseUtmp(Buffer.concat([rec, Buffer.alloc(10)])), [{ type: 7, pid: 99, line: "tty1", user: "x".repeat(32), host: "host", time: 1234567890 }]);
  t.same(parseUtmp(Buffer.alloc(0)), []);
});
