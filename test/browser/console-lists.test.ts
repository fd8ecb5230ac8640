// Lists longer than one page: subscriptions, inbound endpoints and curiosity items follow next_cursor
// (docs/api.md#pagination) up to 1,000 at load, say so when there are more and load them on demand; an item's run
// history says how far back it searched and searches further on demand. A real gateway behind Debian's chromium;
// the lists are the page's own routes in front of it, paged as the API pages (by the request's limit and cursor).
import tap, { test } from "tap";
import type { Page } from "playwright-core";
import { launchChromium, openPage, signIn, type Launched, type Watched } from "../helpers/browser.js";
import { startStack, type Stack } from "../helpers/stack.js";

tap.setTimeout(180_000);

let stack: Stack;
let chrome: Launched;

test("setup: a gateway and chromium", async () => {
  stack = await startStack({ services: ["gateway"] });
  chrome = await launchChromium();
});

async function signedIn(): Promise<Watched> {
  const w = await openPage(chrome);
  await signIn(w, stack.baseUrl, stack.key);
  return w;
}

/** Serves `all` under `field` at GET requests matching `re`, a page of the request's limit after its cursor (an index). */
async function serveList(page: Page, re: RegExp, field: string, all: unknown[]): Promise<Array<string | null>> {
  const cursors: Array<string | null> = [];
  await page.route(re, async (route) => {
    if (route.request().method() !== "GET") return route.continue();
    const q = new URL(route.request().url()).searchParams;
    const cursor = q.get("cursor");
    cursors.push(cursor);
    const from = cursor === null ? 0 : Number(cursor.slice(1));
    const to = from + Number(q.get("limit") ?? 50);
    const body = { [field]: all.slice(from, to), next_cursor: to < all.length ? `c${to}` : null };
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(body) });
  });
  return cursors;
}

const AT = "2026-11-27T10:00:00.000Z";
const sub = (i: number) => ({ id: `sub_${String(i).padStart(26, "0")}`, url: `https://hooks.example/${i}`, events: ["investigation.completed"], filters: {}, active: true, created_at: AT });
const endpoint = (i: number) => ({ id: `whk_${String(i).padStart(26, "0")}`, provider: "generic", default_depth: "standard", active: true, url_key_prefix: `key${i}x`, created_at: AT, has_signing_secret: false });
const item = (i: number) => ({ id: `cur_${String(i).padStart(26, "0")}`, query: `question ${i}?`, interval: "1h", scope: null, depth: "standard", active: true, next_run_at: AT, last_run_at: null, last_investigation_id: null, run_count: 0 });

test("webhooks: every subscription and inbound endpoint past the first page is listed", async (t) => {
  const w = await signedIn();
  const subCursors = await serveList(w.page, /\/v1\/webhooks\/subscriptions\?/, "subscriptions", Array.from({ length: 450 }, (_, i) => sub(i)));
  await serveList(w.page, /\/v1\/webhooks\/incoming\/endpoints\?/, "endpoints", Array.from({ length: 230 }, (_, i) => endpoint(i)));
  await w.page.getByRole("link", { name: "Webhooks" }).click();
  await w.page.getByText("https://hooks.example/449", { exact: true }).waitFor();
  t.equal(await w.page.locator("section[aria-labelledby=h-subs] tbody tr").count(), 450, "all 450 subscriptions");
  t.ok(subCursors.length >= 3, "read page after page");
  await w.page.getByText("key229x", { exact: true }).waitFor();
  t.equal(await w.page.locator("section[aria-labelledby=h-inbound] tbody tr").count(), 230, "all 230 endpoints");
  t.equal(await w.page.getByRole("button", { name: /^Load more (subscriptions|inbound endpoints)$/ }).count(), 0, "nothing more to load");
  await w.close();
});

test("webhooks: past 1,000 subscriptions the page says so and loads the rest on demand", async (t) => {
  const w = await signedIn();
  await serveList(w.page, /\/v1\/webhooks\/subscriptions\?/, "subscriptions", Array.from({ length: 1_050 }, (_, i) => sub(i)));
  await w.page.getByRole("link", { name: "Webhooks" }).click();
  await w.page.getByText("https://hooks.example/999", { exact: true }).waitFor();
  t.equal(await w.page.locator("section[aria-labelledby=h-subs] tbody tr").count(), 1_000);
  t.match(await w.page.locator("section[aria-labelledby=h-subs]").textContent(), /first 1,000 subscriptions/, "the bound is stated");
  await w.page.getByRole("button", { name: "Load more subscriptions" }).click();
  await w.page.getByText("https://hooks.example/1049", { exact: true }).waitFor();
  t.equal(await w.page.locator("section[aria-labelledby=h-subs] tbody tr").count(), 1_050);
  t.ok(await w.page.getByRole("button", { name: "Load more subscriptions" }).isHidden(), "no more after the last page");
  await w.close();
});

test("curiosity: items past 1,000 are stated and loaded on demand", async (t) => {
  const w = await signedIn();
  await serveList(w.page, /\/v1\/curiosity\?/, "items", Array.from({ length: 1_010 }, (_, i) => item(i)));
  await w.page.getByRole("link", { name: "Curiosity" }).click();
  await w.page.getByRole("cell", { name: "question 999?", exact: true }).waitFor();
  t.match(await w.page.locator("main").textContent(), /first 1,000 curiosity items/, "the bound is stated");
  await w.page.getByRole("button", { name: "Load more curiosity items" }).click();
  await w.page.getByRole("cell", { name: "question 1009?", exact: true }).waitFor();
  t.equal(await w.page.locator("main tbody tr").count(), 1_010);
  await w.close();
});

test("curiosity: run history says how far back it searched and searches further on demand", async (t) => {
  const w = await signedIn();
  await serveList(w.page, /\/v1\/curiosity\?/, "items", [item(1), item(2)]);
  const run = (i: number, of: number) => ({
    investigation_id: `inv_${String(i).padStart(26, "0")}`,
    query: `question ${of}?`,
    status: "completed",
    started_at: AT,
    completed_at: AT,
    summary: null,
    context: { trigger_source: "curiosity", trigger_id: `cur:${i}`, curiosity_id: item(of).id, inbound_endpoint_id: null },
  });
  // 1,300 curiosity runs, item 1's at 10 and 1,200, the rest item 2's.
  const cursors = await serveList(w.page, /\/v1\/investigations\?/, "investigations", Array.from({ length: 1_300 }, (_, i) => run(i, i === 10 || i === 1_200 ? 1 : 2)));
  await w.page.getByRole("link", { name: "Curiosity" }).click();
  await w.page.getByRole("row", { name: /question 1\?/ }).getByRole("button", { name: "History" }).click();
  const history = w.page.getByRole("region", { name: "Run history" });
  await history.getByRole("link", { name: run(10, 1).investigation_id }).waitFor();
  t.match(await history.textContent(), /latest 1,000 curiosity runs/, "how far back it searched is stated");
  t.equal(await history.getByRole("link", { name: run(1_200, 1).investigation_id }).count(), 0);
  await history.getByRole("button", { name: "Search older runs" }).click();
  await history.getByRole("link", { name: run(1_200, 1).investigation_id }).waitFor();
  t.ok(cursors.every((c) => c === null || /^c\d+$/.test(c)), "every cursor sent was one the list issued");
  t.ok(await history.getByRole("button", { name: "Search older runs" }).isHidden(), "the whole history was searched");
  t.match(await history.textContent(), /all 1,300 curiosity runs/);
  await w.close();
});

test("teardown", async () => {
  await chrome?.close();
  await stack?.stop();
});
