// The browser console end to end: the real stack (gateway, runner, dispatcher, simulated fleet) driven through
// Debian's chromium. Asks a question and reads the report, replays a dead letter, checks that agent-controlled
// text stays text (XSS), the security headers, and that a read-only key is offered no write actions.
// The screenshots in docs/screenshots/ come from console-screenshots.test.ts, on the demo fleet alone.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import tap, { test, type Test } from "tap";
import type { Page } from "playwright-core";
import { launchChromium, openPage, signIn as signInAt, type Launched, type Watched } from "../helpers/browser.js";
import { issueKey } from "../helpers/cli.js";
import { REPO, type ServiceName } from "../helpers/services.js";
import { api, eventually, startStack, type Stack } from "../helpers/stack.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

const XSS_HOST = `<img src=x onerror="window.__xss='hostname'">web-09`;
const XSS_CMD = `/tmp/.x/kworker -l 4444 <script>window.__xss='script'</script><img src=x onerror="window.__xss='cmdline'">`;
const QUESTION = "are any prod hosts running processes that listen on unexpected ports, like /tmp/.x/kworker?";

const demo = JSON.parse(readFileSync(join(REPO, "examples", "fleet.json"), "utf8")) as { agents: unknown[] };
const FLEET = {
  agents: [
    ...demo.agents,
    {
      agent_id: "ag-web-09",
      hostname: XSS_HOST,
      tags: { env: "prod", role: "web", ip: "10.0.1.19" },
      tables: {
        processes: [
          { pid: 4242, name: "kworker", path: "/tmp/.x/kworker", cmdline: XSS_CMD, uid: 33, parent: 1, on_disk: 1, start_time: 1763900000 },
          { pid: 80, name: "nginx", path: "/usr/sbin/nginx", cmdline: "nginx: master process", uid: 0, parent: 1, on_disk: 1 },
        ],
        listening_ports: [
          { pid: 4242, port: 4444, protocol: 6, address: "0.0.0.0" },
          { pid: 80, port: 443, protocol: 6, address: "0.0.0.0" },
        ],
      },
    },
  ],
};

// About a minute on an idle machine; the whole stack plus a browser on a shared, loaded one can pass .taprc's 120 s.
tap.setTimeout(300_000);

let stack: Stack;
let receiver: Receiver;
let chrome: Launched;
let readOnlyKey: string;

test("setup: stack with the demo fleet, a dispatcher with short retries, chromium", async () => {
  receiver = await startReceiver();
  receiver.on("/flaky", (_req, n) => (n <= 5 ? { status: 503, body: "down" } : { status: 200, body: "ok" }));
  const opts = {
    fleet: FLEET,
    services: ["gateway", "runner", "dispatcher", "agent"] as ServiceName[],
    env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true", INQUEST_RETRY_DELAYS: "50ms,50ms,50ms,50ms", INQUEST_DELIVERY_TIMEOUT: "1s" },
  };
  // This file runs early in `make test`, beside the CPU-heavy corpus suite: on a loaded machine a service may not
  // print its ready line within the helper's 15 s. A second start (a fresh stack; the first one cleaned up) is
  // about the machine, not the console.
  stack = await startStack(opts).catch(() => startStack(opts));
  readOnlyKey = issueKey(stack.nats.url, ["investigations:read", "curiosity:read"]);
  chrome = await launchChromium();
});

async function signIn(w: Watched, key: string, base = stack.baseUrl): Promise<void> {
  await signInAt(w, base, key);
}

/** Nothing planted ran: no flag, no dialog, no element made from agent text, no CSP report, no page error. */
async function assertNothingRan(t: Test, w: Watched): Promise<void> {
  const state = (await w.page.evaluate(`({
    flag: window.__xss ?? null,
    imgs: document.querySelectorAll("img").length,
    scripts: [...document.querySelectorAll("script")].map((s) => s.getAttribute("src")),
  })`)) as { flag: string | null; imgs: number; scripts: string[] };
  t.equal(state.flag, null, "no planted script ran");
  t.equal(state.imgs, 0, "no <img> was made from agent text");
  t.same(state.scripts, ["/console/js/main.js"], "the only script is the console's own");
  t.same(w.dialogs, [], "no dialog opened");
  t.same(await w.violations(), [], "no CSP violation (nothing tried to run inline)");
  t.same(w.pageErrors, [], "no page errors");
}

test("headers: CSP, nosniff, content types, ETag revalidation; API paths untouched", async (t) => {
  const index = await fetch(`${stack.baseUrl}/`);
  t.equal(index.status, 200);
  t.match(index.headers.get("content-type"), /^text\/html/);
  const csp = index.headers.get("content-security-policy") ?? "";
  t.match(csp, /default-src 'self'/);
  t.match(csp, /script-src 'self'(;|$)/, "no unsafe-inline script");
  t.notMatch(csp, /unsafe-inline|unsafe-eval/);
  t.equal(index.headers.get("x-content-type-options"), "nosniff");
  const js = await fetch(`${stack.baseUrl}/console/js/main.js`);
  t.match(js.headers.get("content-type"), /^text\/javascript/);
  t.equal(js.headers.get("x-content-type-options"), "nosniff");
  t.equal(js.headers.get("cache-control"), "no-cache");
  const etag = js.headers.get("etag") ?? "";
  t.ok(etag.length > 2, "an ETag");
  const again = await fetch(`${stack.baseUrl}/console/js/main.js`, { headers: { "if-none-match": etag } });
  t.equal(again.status, 304, "revalidated without a body");
  const css = await fetch(`${stack.baseUrl}/console/console.css`);
  t.match(css.headers.get("content-type"), /^text\/css/);
  const missing = await api(stack.baseUrl, "GET", "/console/../../etc/passwd");
  t.equal(missing.status, 404);
  t.equal(missing.json?.error?.code, "not_found");
  const post = await api(stack.baseUrl, "POST", "/", { body: {} });
  t.equal(post.status, 405, "only GET serves the console: another method on its path is 405, not 404");
  t.equal(post.json?.error?.code, "method_not_allowed");
  t.equal(post.headers.get("allow"), "GET, HEAD");
  t.equal((await api(stack.baseUrl, "DELETE", "/console/index.html")).status, 405);
});

test("whoami: any valid key learns its own scopes; no key is 401", async (t) => {
  const me = await api(stack.baseUrl, "GET", "/v1/auth/whoami", { key: readOnlyKey });
  t.equal(me.status, 200);
  t.same(me.json.scopes, ["curiosity:read", "investigations:read"]);
  t.match(me.json.key_id, /^key_/);
  t.notOk("hash" in me.json, "no hash shown");
  t.equal((await api(stack.baseUrl, "GET", "/v1/auth/whoami")).status, 401);
});

test("sign-in: a wrong key is refused with a message and nothing is stored", async (t) => {
  const w = await openPage(chrome);
  await w.page.goto(`${stack.baseUrl}/`);
  await w.page.getByLabel("API key").fill("inq_nope");
  await w.page.getByRole("button", { name: "Sign in" }).click();
  await w.page.getByRole("alert").waitFor();
  t.match(await w.page.getByRole("alert").textContent(), /API key/);
  t.equal(await w.page.evaluate(`sessionStorage.length`), 0);
  t.notMatch(w.page.url(), /inq_/, "the key never enters the URL");
  await w.close();
});

let investigationId = "";

test("ask a question against the demo fleet, watch it run, read the report", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  t.equal(await w.page.evaluate(`sessionStorage.getItem("inquest.apiKey")`), stack.key, "the key is kept in sessionStorage");
  await w.page.getByLabel("Question").fill(QUESTION);
  await w.page.getByLabel("Tags (scope)").fill("env=prod");
  await w.page.getByLabel("Mode").selectOption("live");
  await w.page.getByText(/agent\(s\) in scope/).waitFor();
  t.match(await w.page.locator(".advice").textContent(), /5 agent\(s\) in scope, 1 offline/, "freshness advice before running");
  t.equal(await w.page.getByRole("checkbox", { name: /stage-01/ }).isVisible(), false, "the picker offers only agents the tags select (stage-01 is env=staging)");
  t.equal(await w.page.getByRole("checkbox", { name: /web-01/ }).isVisible(), true);
  t.match(await w.page.locator(".advice").textContent(), /offline: no run can ask them now/, "no live run advised for hosts that are offline");
  // stage-01's snapshot is two hours old (examples/fleet.json): the advice follows the mode chosen.
  await w.page.getByLabel("Tags (scope)").fill("env=staging");
  t.match(await w.page.locator(".advice").textContent(), /Live is selected: the 1 online host/);
  await w.page.getByLabel("Mode").selectOption("auto");
  t.match(await w.page.locator(".advice").textContent(), /choose Live .*auto asks only hosts that have no snapshot/);
  await w.page.getByLabel("Mode").selectOption("live");
  await w.page.getByLabel("Tags (scope)").fill("env=prod");
  await w.page.getByRole("button", { name: "Run investigation" }).click();
  await w.page.waitForURL(/#\/investigations\/inv_/);
  investigationId = /inv_[0-9A-Z]+/.exec(w.page.url())?.[0] ?? "";
  await w.page.getByRole("region", { name: "Summary" }).waitFor({ timeout: 60_000 });
  const summary = await w.page.getByRole("region", { name: "Summary" }).textContent();
  t.match(summary, /Verdict/);
  t.match(summary, /malicious|suspicious/, "the planted listener is found");
  t.ok(await w.page.getByRole("region", { name: "Narrative" }).isVisible());
  const evidence = w.page.locator(".evidence table").first();
  t.match(await evidence.locator("thead").textContent(), /collected_at/, "evidence tables show collected_at");
  t.ok(await w.page.getByText(XSS_CMD, { exact: true }).first().isVisible(), "the planted command line shows as text");
  t.ok(await w.page.locator(".host", { hasText: XSS_HOST }).first().isVisible(), "the planted hostname shows as text");
  t.ok((await w.page.locator("svg.graph .node").count()) > 1, "the pathfinder's paths drawn as a graph");
  t.ok((await w.page.locator("svg.graph path.edge").count()) > 0, "with links");
  t.ok((await w.page.locator("svg.graph text.edge-label").count()) > 0, "each link says its relation");
  t.notOk((await w.page.locator("svg.graph .node text:not(.kind)").allTextContents()).some((l) => /^ag-[a-z0-9-]+:\d+:\d+$/.test(l)), "process nodes by name, not by their internal key");
  t.match(await w.page.locator(".chip.attack").first().textContent(), /^T\d{4}/, "ATT&CK ids");
  await w.page.getByText("Severity inputs").click();
  t.match(await w.page.locator("details", { hasText: "Severity inputs" }).locator("thead").textContent(), /Maturity.*Base.*Exact indicator/, "the severity inputs show every input the rules use");
  await assertNothingRan(t, w);
  // Findings are paged (5 a page): the next page shows others.
  const pager = w.page.getByRole("navigation", { name: "Findings pages" });
  t.match(await pager.textContent(), /Page 1 of \d+/);
  const first = await w.page.locator(".finding h3").allTextContents();
  await pager.getByRole("button", { name: "Next →" }).click();
  await pager.getByText(/Page 2 of/).waitFor();
  const second = await w.page.locator(".finding").allTextContents();
  t.ok(second.length > 0 && second.join() !== first.join(), "page 2 holds other findings");
  await assertNothingRan(t, w);
  const phone = await openPage(chrome, { width: 390, height: 844 });
  await signIn(phone, stack.key);
  await phone.page.goto(`${stack.baseUrl}/#/investigations/${investigationId}`);
  await phone.page.getByRole("region", { name: "Summary" }).waitFor();
  const overflow = (await phone.page.evaluate(`document.documentElement.scrollWidth - window.innerWidth`)) as number;
  t.ok(overflow <= 0, `no horizontal scrolling at 390 px (overflow ${overflow})`);
  await phone.close();
  await w.close();
});

/** The finished investigation as a run still collecting, under another id (served by the page's own routes). */
async function runningCopy(id: string): Promise<Record<string, unknown>> {
  const real = (await api(stack.baseUrl, "GET", `/v1/investigations/${investigationId}`, { key: stack.key })).json;
  const progress = { phase: "collecting", plans_total: 5, plans_completed: 2, agents_targeted: 5, agents_responded: 2, agents_unreachable: 0 };
  return { ...real, investigation_id: id, status: "running", completed_at: null, summary: null, report: null, findings: [], findings_total: 0, progress };
}

/** Serves `running` at its detail (and in the list) until a DELETE cancels it; counts the polls and the DELETEs. */
async function fakeRun(page: Page, running: Record<string, unknown>): Promise<{ polls: () => number; deletes: () => number }> {
  let polls = 0;
  let deletes = 0;
  const id = running.investigation_id as string;
  const current = () => (deletes > 0 ? { ...running, status: "cancelled" } : running);
  const json = (body: unknown) => ({ status: 200, contentType: "application/json", body: JSON.stringify(body) });
  await page.route(`**/v1/investigations/${id}`, async (route) => {
    if (route.request().method() === "DELETE") deletes++;
    else polls++;
    await route.fulfill(json(current()));
  });
  await page.route(/\/v1\/investigations\?/, async (route) => {
    polls++;
    await route.fulfill(json({ investigations: [current()], next_cursor: null }));
  });
  return { polls: () => polls, deletes: () => deletes };
}

/** Clicks Cancel, lets the page poll (re-rendering) once, then confirms: the DELETE goes out and the focus stayed. */
async function cancelAcrossAPoll(t: Test, page: Page, run: { polls: () => number; deletes: () => number }): Promise<void> {
  await page.getByRole("button", { name: "Cancel" }).click();
  const before = run.polls();
  await eventually(async () => (run.polls() > before ? true : undefined), 10_000, 50);
  await page.waitForTimeout(100); // the poll's answer rendered
  t.equal(await page.evaluate(`document.activeElement?.textContent`), "Confirm cancel", "the armed button kept its state and the focus through the poll");
  await page.getByRole("button", { name: "Confirm cancel" }).click();
  await eventually(async () => (run.deletes() > 0 ? true : undefined), 10_000, 50);
  t.equal(run.deletes(), 1, "the cancel was sent");
}

test("Cancel survives the polling of the report and of the list (it was rebuilt, unarmed, at every poll)", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  const onReport = await fakeRun(w.page, await runningCopy("inv_01RUNNINGONREPORT"));
  await w.page.goto(`${stack.baseUrl}/#/investigations/inv_01RUNNINGONREPORT`);
  await w.page.getByRole("heading", { name: "Running", exact: true }).waitFor();
  await cancelAcrossAPoll(t, w.page, onReport);
  await w.page.getByText("cancelled").first().waitFor();
  await w.close();

  const l = await openPage(chrome);
  await signIn(l, stack.key);
  const onList = await fakeRun(l.page, await runningCopy("inv_01RUNNINGONLIST"));
  await l.page.getByRole("link", { name: "Investigations" }).click();
  await l.page.getByRole("button", { name: "Cancel" }).waitFor();
  await cancelAcrossAPoll(t, l.page, onList);
  await l.close();
});

test("investigations list: a reply to the filter before a change is dropped, however late it lands", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  const running = await runningCopy("inv_01RUNNINGFORFILTER");
  let slowOnce = true;
  await w.page.route(/\/v1\/investigations\?/, async (route) => {
    const status = new URL(route.request().url()).searchParams.get("status");
    if (status === "failed") return route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ investigations: [], next_cursor: null }) });
    // The unfiltered list (a run in progress, so the page polls): its second request lands after the change.
    if (!slowOnce) await new Promise((r) => setTimeout(r, 1_500));
    slowOnce = false;
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ investigations: [running], next_cursor: null }) });
  });
  await w.page.getByRole("link", { name: "Investigations" }).click();
  await w.page.getByRole("link", { name: running.query as string }).first().waitFor();
  await w.page.waitForTimeout(1_700); // the poll's request is out and held
  await w.page.getByLabel("Status").selectOption("failed");
  await w.page.getByText("No investigations match.").waitFor();
  await w.page.waitForTimeout(2_000); // the held poll's reply has landed
  t.equal(await w.page.getByText("No investigations match.").count(), 1, "the list still shows the filter chosen");
  t.equal(await w.page.getByRole("link", { name: running.query as string }).count(), 0, "not the old filter's runs");
  await w.close();
});

test("findings: a page that fails says so and can be tried again, the rest of the report does not wait; a double click moves one page", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  let failures = 1;
  await w.page.route(/\/findings(\?|$)/, async (route) => {
    if (failures-- > 0) return route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: { code: "unavailable", message: "try again shortly" } }) });
    return route.continue();
  });
  await w.page.goto(`${stack.baseUrl}/#/investigations/${investigationId}`);
  await w.page.getByRole("alert").filter({ hasText: "The findings could not be loaded" }).waitFor();
  t.ok(await w.page.getByRole("region", { name: "Evidence paths" }).isVisible(), "the sections after the findings are shown");
  await w.page.getByRole("button", { name: "Try again" }).click();
  const pager = w.page.getByRole("navigation", { name: "Findings pages" });
  await pager.getByText(/Page 1 of/).waitFor();
  const first = await api(stack.baseUrl, "GET", `/v1/investigations/${investigationId}/findings?limit=5`, { key: stack.key });
  const second = await api(stack.baseUrl, "GET", `/v1/investigations/${investigationId}/findings?limit=5&cursor=${first.json.next_cursor}`, { key: stack.key });
  await pager.getByRole("button", { name: "Next →" }).dblclick();
  await pager.getByText(/Page 2 of/).waitFor();
  await w.page.waitForTimeout(300); // a second page load, if the double click made one, has landed
  t.match(await pager.textContent(), /Page 2 of/, "one page on");
  const shown = await w.page.locator(".finding .meta").allTextContents();
  t.same(shown.map((m) => m.split(" · ").slice(1, 3).join(" · ")), (second.json.findings as Array<{ agent_id: string; detection_id: string }>).map((f) => `${f.agent_id} · ${f.detection_id}`), "page 2's findings");
  await w.close();
});

test("agent text cannot reorder what follows it (bidi isolated); paths meeting a node at two positions still draw", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  await w.page.goto(`${stack.baseUrl}/#/investigations/${investigationId}`);
  await w.page.locator(".finding .host").first().waitFor();
  t.equal(await w.page.locator(".finding .host").first().evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { unicodeBidi: string } }).getComputedStyle(el).unicodeBidi), "isolate", "a hostname is its own bidi run");
  t.equal(await w.page.locator(".evidence .val").first().evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { unicodeBidi: string } }).getComputedStyle(el).unicodeBidi), "isolate", "so is an evidence value");
  const size = (await w.page.evaluate(`import("/console/js/graph.js").then(({ pathGraph }) => {
    const g = pathGraph([{ nodes: ["host:web1", "process:x"] }, { nodes: ["user:bob", "host:web1", "process:x", "file:y"] }]);
    return [g.getAttribute("width"), g.getAttribute("height")];
  })`)) as [string, string];
  t.ok(size.every((v) => Number.isFinite(Number(v)) && Number(v) > 0), `a finite size (${size.join(" x ")})`);
  await w.close();
});

test("investigations list: filters, and agents: the planted hostname is text", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  await w.page.getByRole("link", { name: "Investigations" }).click();
  await w.page.getByRole("link", { name: QUESTION }).waitFor();
  await w.page.getByLabel("Status").selectOption("failed");
  await w.page.getByText("No investigations match.").waitFor();
  await w.page.getByLabel("Status").selectOption("completed");
  await w.page.getByRole("link", { name: QUESTION }).waitFor();
  t.equal(await w.page.getByRole("button", { name: "Load more" }).isVisible(), false, "no more pages offered on the last one");
  await w.page.getByRole("link", { name: "Agents" }).click();
  await w.page.locator(".host", { hasText: XSS_HOST }).waitFor();
  t.ok(await w.page.getByText("offline").first().isVisible(), "an offline agent is shown as such");
  await assertNothingRan(t, w);
  await w.close();
});

/** Refreshes the delivery log until it shows a delivery with that status badge. */
async function refreshUntil(page: Page, status: "failed_permanent" | "delivered"): Promise<void> {
  await eventually(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    return (await page.locator(`.deliveries-list .badge-${status}`).count()) > 0 ? true : undefined;
  }, 30_000, 300);
}

test("webhooks: secret shown once, a test delivery dead-letters, replay delivers it; inbound URL shown once", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  await w.page.getByRole("link", { name: "Webhooks" }).click();
  await w.page.getByText("New subscription", { exact: true }).click();
  await w.page.getByLabel("Receiver URL").fill(receiver.url("/flaky"));
  await w.page.getByRole("button", { name: "Create subscription" }).click();
  const secret = w.page.getByLabel(/^Signing secret for/);
  await secret.waitFor();
  t.match(await secret.inputValue(), /^whsec_/, "the secret is shown at creation");
  await w.page.getByRole("button", { name: "Send test" }).click();
  await w.page.getByLabel("Show").selectOption("failed_permanent");
  await refreshUntil(w.page, "failed_permanent");
  t.match(await w.page.locator(".deliveries-list").textContent(), /dead letter/);
  t.equal(receiver.received("/flaky").length, 5, "five attempts before the dead letter");
  await w.page.getByRole("button", { name: /^Attempts of dlv_/ }).first().click();
  t.match(await w.page.locator("h3", { hasText: "Attempts of" }).locator("..").textContent(), /HTTP 503/);
  await w.page.getByText("Headers and body").first().click();
  t.match(await w.page.locator("pre.answer").first().textContent(), /content-type: [\s\S]*down/, "each attempt's answer: headers, then the body");
  t.match(await w.page.locator(".deliveries-list").textContent(), new RegExp(receiver.url("/flaky").replace(/[.]/g, "\\.")), "each delivery names its subscription's URL");
  await w.page.getByRole("button", { name: /^Replay dlv_/ }).first().click();
  await w.page.getByText(/^Replayed dlv_\w+ as dlv_/).waitFor();
  await w.page.getByLabel("Show").selectOption("delivered");
  await refreshUntil(w.page, "delivered");
  t.match(await w.page.locator(".deliveries-list").textContent(), /replay/, "the delivered one is the replay");
  t.equal(receiver.received("/flaky").length, 6);
  t.equal(receiver.received("/flaky")[5]?.json?.event_id, receiver.received("/flaky")[0]?.json?.event_id, "same event id");

  await w.page.getByText("New inbound endpoint", { exact: true }).click();
  await w.page.getByLabel("Default scope (tags)").fill("env=prod");
  await w.page.getByRole("button", { name: "Create endpoint" }).click();
  const url = w.page.getByLabel(/^Receiver URL for the generic endpoint/);
  await url.waitFor();
  t.match(await url.inputValue(), /\/v1\/webhooks\/incoming\/generic\/whk_/, "the receiver URL is shown at creation");
  const endpoints = await api(stack.baseUrl, "GET", "/v1/webhooks/incoming/endpoints", { key: stack.key });
  t.same(endpoints.json.endpoints[0]?.default_scope, { type: "selector", filter: { tags: { env: "prod" } } }, "created with the default scope typed");
  const posted = await fetch(await url.inputValue(), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "posted from a test sender" }) });
  t.equal(posted.status, 202);
  await w.page.getByRole("button", { name: /^Receipts of whk_/ }).first().click();
  await w.page.getByRole("heading", { name: /^Latest receipts of the generic endpoint/ }).waitFor();
  t.match(await w.page.getByRole("heading", { name: /^Latest receipts/ }).locator("..").textContent(), /triggered.*inv_/, "each receipt with what came of it: the investigation it queued");
  await w.page.getByLabel("Show").selectOption("");
  await w.page.reload();
  await w.page.getByRole("heading", { name: "Inbound endpoints" }).waitFor();
  await w.page.locator("section[aria-labelledby=h-inbound] tbody tr").first().waitFor();
  t.equal(await w.page.getByLabel(/^Receiver URL for/).count(), 0, "and never again");
  t.equal(await w.page.getByLabel(/^Signing secret for/).count(), 0);
  t.notMatch(await w.page.locator("main").textContent(), /whsec_/);
  await w.close();
});

test("deliveries: older pages load on demand, so a dead letter past the first 50 can be replayed", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  const delivery = (i: number, status: string) => ({
    delivery_id: `dlv_01PAGE${String(i).padStart(20, "0")}`,
    subscription_id: "sub_01ARZ3NDEKTSV4RRFFQ69G5FAV",
    event_id: `evt_${i}`,
    event_type: "agent.connected",
    status,
    attempt_count: 5,
    last_response_code: 503,
    last_error: null,
    next_attempt_at: null,
    replay_of: null,
    created_at: "2026-11-27T10:00:00.000Z",
    updated_at: "2026-11-27T10:00:00.000Z",
    attempts: [],
  });
  const cursors: Array<string | null> = [];
  await w.page.route(/\/v1\/webhooks\/deliveries\?/, async (route) => {
    const cursor = new URL(route.request().url()).searchParams.get("cursor");
    cursors.push(cursor);
    const page = cursor === null ? { deliveries: Array.from({ length: 50 }, (_, i) => delivery(i, "failed_permanent")), next_cursor: "page-2" } : { deliveries: [delivery(50, "failed_permanent")], next_cursor: null };
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(page) });
  });
  await w.page.getByRole("link", { name: "Webhooks" }).click();
  await w.page.getByRole("button", { name: `Replay ${delivery(49, "").delivery_id}` }).waitFor();
  t.equal(await w.page.getByRole("button", { name: `Replay ${delivery(50, "").delivery_id}` }).count(), 0, "the 51st is on the next page");
  await w.page.getByRole("button", { name: "Load more deliveries" }).click();
  await w.page.getByRole("button", { name: `Replay ${delivery(50, "").delivery_id}` }).waitFor();
  t.same(cursors.slice(-2), [null, "page-2"], "the second page asked with the first page's cursor");
  t.ok(await w.page.getByRole("button", { name: "Load more deliveries" }).isHidden(), "no more pages offered after the last");
  await w.close();
});

test("agents: a double click on Load more loads the next page once", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  const agent = (i: number) => ({ agent_id: `ag-page-${i}`, hostname: `page-${i}`, tags: {}, edr_device_id: null, status: "online", registered_at: "2026-11-27T10:00:00.000Z", last_seen_at: "2026-11-27T10:00:00.000Z", snapshot_collected_at: null });
  await w.page.route(/\/v1\/agents\?/, async (route) => {
    const cursor = new URL(route.request().url()).searchParams.get("cursor");
    await new Promise((r) => setTimeout(r, 200)); // a page that takes a moment, as over a slow link
    const page = cursor === null ? { agents: [agent(1), agent(2)], next_cursor: "page-2" } : { agents: [agent(3)], next_cursor: null };
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(page) });
  });
  await w.page.getByRole("link", { name: "Agents" }).click();
  await w.page.getByText("2 agent(s), 2 online.").waitFor();
  await w.page.getByRole("button", { name: "Load more" }).dblclick();
  await w.page.getByText("3 agent(s), 3 online.").waitFor();
  await w.page.waitForTimeout(400); // a second load, if the double click made one, has landed
  t.equal(await w.page.locator("code", { hasText: "ag-page-3" }).count(), 1, "the next page's agent listed once");
  t.match(await w.page.locator("main").textContent(), /3 agent\(s\), 3 online\./);
  await w.close();
});

test("investigations: a double click on Load more loads the next page once", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  const done = (await api(stack.baseUrl, "GET", `/v1/investigations/${investigationId}`, { key: stack.key })).json;
  const run = (i: number) => ({ ...done, investigation_id: `inv_01PAGEDRUN${String(i).padStart(15, "0")}`, query: `paged question ${i}` });
  await w.page.route(/\/v1\/investigations\?/, async (route) => {
    const cursor = new URL(route.request().url()).searchParams.get("cursor");
    await new Promise((r) => setTimeout(r, 200)); // a page that takes a moment, as over a slow link
    const page = cursor === null ? { investigations: [run(1), run(2)], next_cursor: "page-2" } : { investigations: [run(3)], next_cursor: null };
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(page) });
  });
  await w.page.getByRole("link", { name: "Investigations" }).click();
  await w.page.getByRole("link", { name: "paged question 2" }).waitFor();
  await w.page.getByRole("button", { name: "Load more" }).dblclick();
  await w.page.getByRole("link", { name: "paged question 3" }).first().waitFor();
  await w.page.waitForTimeout(400); // a second load, if the double click made one, has landed
  t.equal(await w.page.getByRole("link", { name: "paged question 3" }).count(), 1, "the next page's run listed once");
  await w.close();
});

test("curiosity: create, pause, delete", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.key);
  await w.page.getByRole("link", { name: "Curiosity" }).click();
  await w.page.getByLabel("Question").fill("new listening ports on prod?");
  await w.page.getByLabel("Every").fill("1h");
  await w.page.getByLabel("Tags (scope)").fill("env=prod");
  await w.page.getByRole("button", { name: "Create" }).click();
  await w.page.getByRole("cell", { name: "new listening ports on prod?" }).waitFor();
  await w.page.getByLabel("Question").fill("who can sudo without a password?");
  await w.page.getByLabel("Every").fill("1d");
  await w.page.getByLabel("Tags (scope)").fill("");
  await w.page.getByRole("button", { name: "Create" }).click();
  await w.page.getByRole("cell", { name: "who can sudo without a password?" }).waitFor();
  const row = w.page.getByRole("row", { name: /who can sudo/ });
  await row.getByRole("button", { name: "Pause" }).click();
  await w.page.getByRole("row", { name: /who can sudo/ }).getByText("paused").waitFor();
  await w.page.getByRole("row", { name: /new listening ports/ }).getByRole("button", { name: "History" }).click();
  await w.page.getByRole("heading", { name: /Runs of/ }).waitFor();
  const items = await api(stack.baseUrl, "GET", "/v1/curiosity", { key: stack.key });
  t.equal(items.json.items.length, 2);
  const del = w.page.getByRole("row", { name: /who can sudo/ }).getByRole("button", { name: "Delete" });
  await del.click();
  await w.page.getByRole("row", { name: /who can sudo/ }).getByRole("button", { name: "Confirm delete" }).click();
  await w.page.getByRole("row", { name: /who can sudo/ }).waitFor({ state: "detached" });
  t.equal((await api(stack.baseUrl, "GET", "/v1/curiosity", { key: stack.key })).json.items.length, 1);
  await w.close();
});

test("a read-only key sees no trigger, cancel, create or delete controls", async (t) => {
  // A running investigation, so that a full key would be offered Cancel on it.
  const slow = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: "anything odd on ag-backup-01?", mode: "live", depth: "deep", scope: { type: "selector", filter: { agent_ids: ["ag-backup-01"] } } } });
  t.equal(slow.status, 202);
  const full = await openPage(chrome);
  await signIn(full, stack.key);
  await full.page.goto(`${stack.baseUrl}/#/curiosity`);
  await full.page.getByRole("button", { name: "Delete" }).first().waitFor();
  t.ok(await full.page.getByRole("form", { name: "New curiosity item" }).isVisible(), "a full key may create");
  await full.close();

  const w = await openPage(chrome);
  await signIn(w, readOnlyKey);
  const nav = await w.page.getByRole("navigation", { name: "Main" }).textContent();
  t.notMatch(nav, /Webhooks/, "no webhooks page without webhooks:manage");
  t.match(await w.page.locator("main").textContent(), /cannot start investigations/);
  t.equal(await w.page.getByRole("button", { name: "Run investigation" }).count(), 0);
  await w.page.getByRole("link", { name: "Investigations" }).click();
  await w.page.getByRole("link", { name: QUESTION }).waitFor();
  t.equal(await w.page.getByRole("link", { name: "New investigation" }).count(), 0);
  t.equal(await w.page.getByRole("button", { name: "Cancel" }).count(), 0, "no cancel in the list");
  await w.page.goto(`${stack.baseUrl}/#/investigations/${slow.json.investigation_id}`);
  await w.page.getByRole("heading", { name: "anything odd on ag-backup-01?" }).waitFor();
  t.equal(await w.page.getByRole("button", { name: "Cancel" }).count(), 0, "no cancel on the report");
  await w.page.getByRole("link", { name: "Curiosity" }).click();
  await w.page.getByRole("button", { name: "History" }).first().waitFor();
  t.equal(await w.page.getByRole("button", { name: "Delete" }).count(), 0, "no delete");
  t.equal(await w.page.getByRole("button", { name: "Pause" }).count(), 0, "no pause");
  t.equal(await w.page.getByRole("form", { name: "New curiosity item" }).count(), 0, "no create form");
  await w.close();
});

test("teardown", async () => {
  await chrome?.close();
  await stack?.stop();
  await receiver?.close();
});
