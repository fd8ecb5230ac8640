// The gateway with a small bound on its LMDB file's mapped pages (INQUEST_LMDB_MAPPED_MB=1), over real HTTP
// against a real nats-server: while investigations are created and listed, the gateway reopens the file (its
// metrics count it), and every request still answers as it should; the lists end with every investigation once.
import { test } from "tap";
import { sample } from "../helpers/metrics.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";

let stack: Stack;
const CREATED = 1_500;


test("setup: a gateway keeping at most 1 MiB of its LMDB file mapped", async () => {
  stack = await startStack({ services: ["gateway"], env: { INQUEST_LMDB_MAPPED_MB: "1", INQUEST_MAX_BACKLOG: "100000" } });
});

test("the gateway reopens its LMDB file past the bound while it serves; nothing is lost or repeated", async (t) => {
  const failures: string[] = [];
  let creating = true;
  let listed = 0;
  // Lists walked again and again while investigations are created: reads that meet every reopen.
  const lister = (async () => {
    while (creating) {
      const r = await api(stack.baseUrl, "GET", "/v1/investigations?limit=200", { key: stack.key });
      if (r.status !== 200) failures.push(`list ${r.status} ${r.text}`);
      listed++;
    }
  })();
  let next = 0;
  const creators = Array.from({ length: 16 }, async () => {
    while (next < CREATED) {
      const i = next++;
      const r = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: `are hosts listening on unexpected ports? (${i})`, mode: "cached" } });
      if (r.status !== 202) failures.push(`create ${r.status} ${r.text}`);
    }
  });
  await Promise.all(creators);
  const reopens = await eventually(async () => {
    const m = await api(stack.baseUrl, "GET", "/metrics");
    const n = sample(m.text, "inquest_lmdb_reopens_total ") ?? 0;
    return n >= 1 ? n : undefined;
  }, 20_000);
  creating = false;
  await lister;
  t.ok(reopens >= 1, `the gateway reopened its LMDB file ${reopens} times`);
  t.ok(listed > 0, `${listed} lists were read meanwhile`);
  t.same(failures, [], "every create answered 202 and every list 200");

  const seen = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const path: string = `/v1/investigations?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await api(stack.baseUrl, "GET", path, { key: stack.key });
    t.equal(page.status, 200);
    const body = page.json as { investigations: Array<{ investigation_id: string }>; next_cursor: string | null };
    for (const item of body.investigations) {
      if (seen.has(item.investigation_id)) t.fail(`${item.investigation_id} listed twice`);
      seen.add(item.investigation_id);
    }
    cursor = body.next_cursor;
    pages++;
  } while (cursor && pages < 100);
  t.equal(seen.size, CREATED, "the list holds every investigation once");
  const mapped = sample((await api(stack.baseUrl, "GET", "/metrics")).text, "inquest_lmdb_mapped_bytes ");
  t.ok(mapped !== undefined, "the mapped bytes are a metric");
});

test("teardown", async () => {
  await stack.stop();
});
