// Subscriber URL checks: scheme, and no loopback/private/link-local/metadata targets.
import { test } from "tap";
import { checkTarget, isBlockedName, isPrivateAddress, parseTargetUrl } from "../../shared/webhooks/targets.js";

test("private, loopback, link-local, metadata and reserved addresses", async (t) => {
  const blocked = [
    "127.0.0.1", "127.255.255.254", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.0.1", "169.254.169.254", "169.254.0.1",
    "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "198.18.0.1",
    "::1", "::", "fe80::1", "fe80::1%eth0", "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1",
    "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "::127.0.0.1", "2001:db8::1", "not-an-ip",
    // IPv4-translated, local-use NAT64 and 6to4: each can lead to an IPv4 address where the network routes it.
    "::ffff:0:127.0.0.1", "::ffff:0:a9fe:a9fe", "64:ff9b:1::a00:1", "2002:7f00:1::1", "2002:a9fe:a9fe::",
    // Teredo (2001::/32) tunnels to an IPv4 client address held in its last 32 bits (inverted): 80ff:fffe is 127.0.0.1.
    "2001:0:4136:e378:8000:63bf:80ff:fffe", "2001::1",
    // Benchmarking, ORCHID v1/v2 (never routed), and the 6to4 relay anycast 192.88.99.0/24.
    "2001:2::1", "2001:10::1", "2001:20::1", "192.88.99.1",
  ];
  for (const ip of blocked) t.ok(isPrivateAddress(ip), `${ip} refused`);
  const allowed = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "::ffff:0:8.8.8.8", "2001:4860:4860::8888", "2001:1::1"];
  for (const ip of allowed) t.notOk(isPrivateAddress(ip), `${ip} allowed`);
});

test("names: localhost and metadata names are refused before any lookup", async (t) => {
  for (const name of ["localhost", "LOCALHOST", "a.localhost", "localhost.", "metadata.google.internal", "metadata"]) t.ok(isBlockedName(name), name);
  t.notOk(isBlockedName("example.com"));
  t.ok(isBlockedName("127.0.0.1"));
});

test("URL shape: absolute http(s) only", async (t) => {
  t.ok(parseTargetUrl("https://example.com/x").ok);
  t.ok(parseTargetUrl("http://example.com:8080/x?y=1").ok);
  for (const bad of ["/relative", "example.com/x", "ftp://example.com/", "file:///etc/passwd", "javascript:alert(1)", "data:text/plain,x", ""]) t.notOk(parseTargetUrl(bad).ok, bad);
});

test("checkTarget resolves names and refuses any private answer; allowPrivate skips the address checks", async (t) => {
  const dns: Record<string, string[]> = { "public.test": ["93.184.216.34"], "rebind.test": ["93.184.216.34", "127.0.0.1"], "v6.test": ["fe80::1"] };
  const resolve = async (h: string) => dns[h] ?? [];
  const ok = async (url: string, allowPrivate = false) => (await checkTarget(url, { allowPrivate, resolve })).ok;
  t.ok(await ok("https://public.test/x"));
  for (const withCredentials of ["https://user:pw@public.test/x", "https://user@public.test/x", "https://:pw@public.test/x"]) {
    const r = await checkTarget(withCredentials, { allowPrivate: true, resolve });
    t.same(r.ok ? null : r.problem, "invalid_url", `${withCredentials}: credentials refused, private targets allowed or not`);
  }
  t.notOk(await ok("https://rebind.test/x"), "one private answer is enough to refuse");
  t.notOk(await ok("https://v6.test/x"));
  t.notOk(await ok("https://nowhere.test/x"), "a name that does not resolve");
  t.notOk(await ok("http://127.0.0.1/x"));
  t.notOk(await ok("http://[::1]:80/x"));
  t.ok(await ok("http://127.0.0.1/x", true), "allowed when INQUEST_ALLOW_PRIVATE_TARGETS");
  t.ok(await ok("http://localhost:1234/x", true));
  t.notOk(await ok("ftp://127.0.0.1/x", true), "the scheme is checked regardless");
});

test("checkTarget refuses what the URL parser would quietly repair: spaces, control characters, a misplaced host, port 0, backslashes, a fragment", async (t) => {
  const resolve = async (): Promise<string[]> => ["93.184.216.34"];
  const problem = async (url: string) => {
    const r = await checkTarget(url, { allowPrivate: true, resolve });
    return r.ok ? "ok" : r.message;
  };
  t.match(await problem("  http://example.com/"), /spaces or control characters/);
  t.match(await problem("http://example.com/\n"), /spaces or control characters/);
  t.match(await problem("http://exa\tmple.com/"), /spaces or control characters/);
  t.match(await problem("http:///x"), /host right after/);
  t.match(await problem("http:example.com/x"), /host right after/);
  t.match(await problem("http://example.com:0/"), /port from 1 to 65535/);
  t.match(await problem("http://127.0.0.1:18097\\bs\\path"), /backslashes/, "sent to /bs/path otherwise");
  t.match(await problem("http://evil.example\\@10.0.0.1/"), /backslashes/, "reads as host 10.0.0.1, sent to evil.example");
  t.match(await problem("http://example.com/hook#frag"), /fragment/, "a fragment is never sent");
  t.equal(await problem("HTTPS://Example.com:8443/hook?x=1"), "ok", "scheme and host case, a port, a query");
  t.equal(await problem("http://[2606:4700:4700::1111]/h"), "ok", "an IPv6 literal");
});
