// The console's screenshots (README, docs/console.md), taken on what `make run` shows: the demo fleet of
// examples/fleet.json, nothing planted for the security tests (console.test.ts plants markup in a hostname and a
// command line to prove it stays text; pictures of that looked like a broken page). Each page is checked for what
// the picture is meant to show before it is taken.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import tap, { test } from "tap";
import { launchChromium, openPage, screenshot, screenshotOf, signIn, type Launched } from "../helpers/browser.js";
import { REPO, type ServiceName } from "../helpers/services.js";
import { api, startStack, type Stack } from "../helpers/stack.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

// The contract's example question, asking where the leads go too: the report then has evidence paths to picture.
const QUESTION = "are any prod hosts running processes that listen on unexpected ports, and what are they connected to?";
const TRACE_QUESTION = "is anything on prod talking to 198.51.100.23, and where else has it spread?";
const FLEET = JSON.parse(readFileSync(join(REPO, "examples", "fleet.json"), "utf8")) as unknown;

tap.setTimeout(300_000);

let stack: Stack;
let receiver: Receiver;
let chrome: Launched;
let investigationId = "";

test("setup: the stack with make run's demo fleet, a receiver, chromium", async () => {
  receiver = await startReceiver();
  receiver.on("/down", () => ({ status: 503, body: "down for maintenance" }));
  const opts = {
    fleet: FLEET,
    services: ["gateway", "runner", "dispatcher", "agent"] as ServiceName[],
    env: { INQUEST_ALLOW_PRIVATE_TARGETS: "true", INQUEST_RETRY_DELAYS: "50ms,50ms,50ms,50ms", INQUEST_DELIVERY_TIMEOUT: "1s" },
  };
  // As console.test.ts: a second start on a loaded machine is about the machine, not the console.
  stack = await startStack(opts).catch(() => startStack(opts));
  chrome = await launchChromium();
});

test("ask and report", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.baseUrl, stack.key);
  await w.page.getByLabel("Question").fill(QUESTION);
  await w.page.getByLabel("Tags (scope)").fill("env=prod");
  await w.page.getByLabel("Mode").selectOption("live");
  await w.page.getByText(/agent\(s\) in scope/).waitFor();
  await screenshot(w.page, "ask");
  await w.page.getByRole("button", { name: "Run investigation" }).click();
  await w.page.waitForURL(/#\/investigations\/inv_/);
  investigationId = /inv_[0-9A-Z]+/.exec(w.page.url())?.[0] ?? "";
  await w.page.getByRole("region", { name: "Summary" }).waitFor({ timeout: 60_000 });
  t.match(await w.page.getByRole("region", { name: "Summary" }).textContent(), /malicious|suspicious/, "the demo fleet's planted listener is found");
  const narrative = (await w.page.getByRole("region", { name: "Narrative" }).textContent()) ?? "";
  t.notMatch(narrative, /<img|<script|onerror/, "nothing planted for the security tests in the picture");
  await w.page.setViewportSize({ width: 1280, height: 1500 });
  await screenshot(w.page, "report", false);
  await w.page.setViewportSize({ width: 1280, height: 900 });
  // The pathfinder's graph: a question that names a lead to follow (the demo miner's pool address).
  const traced = await api(stack.baseUrl, "POST", "/v1/investigations", { key: stack.key, body: { query: TRACE_QUESTION, mode: "live", scope: { type: "selector", filter: { tags: { env: "prod" } } } } });
  t.equal(traced.status, 202);
  await w.page.goto(`${stack.baseUrl}/#/investigations/${traced.json.investigation_id}`);
  await w.page.getByRole("region", { name: "Summary" }).waitFor({ timeout: 60_000 });
  const paths = w.page.getByRole("region", { name: "Evidence paths" });
  t.ok((await paths.count()) > 0, "that report has evidence paths to picture");
  if ((await paths.count()) > 0) await screenshotOf(paths, "report-paths");
  const phone = await openPage(chrome, { width: 390, height: 844 });
  await signIn(phone, stack.baseUrl, stack.key);
  await phone.page.goto(`${stack.baseUrl}/#/investigations/${investigationId}`);
  await phone.page.getByRole("region", { name: "Summary" }).waitFor();
  await screenshot(phone.page, "report-390", false);
  await phone.close();
  await w.close();
});

test("investigations and agents", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.baseUrl, stack.key);
  await w.page.getByRole("link", { name: "Investigations" }).click();
  await w.page.getByRole("link", { name: QUESTION }).waitFor();
  await screenshot(w.page, "investigations");
  await w.page.getByRole("link", { name: "Agents" }).click();
  await w.page.locator(".host", { hasText: "web-01" }).waitFor();
  t.ok(await w.page.getByText("offline").first().isVisible(), "the demo's offline backup host shows as offline");
  await screenshot(w.page, "agents");
  await w.close();
});

test("webhooks: a healthy subscription, one whose endpoint is down (a dead letter), an inbound endpoint", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.baseUrl, stack.key);
  await w.page.getByRole("link", { name: "Webhooks" }).click();
  for (const path of ["/hooks", "/down"]) {
    // The form stays open after a create; its summary toggles it.
    if (!(await w.page.getByLabel("Receiver URL").isVisible())) await w.page.getByText("New subscription", { exact: true }).click();
    await w.page.getByLabel("Receiver URL").fill(receiver.url(path));
    await w.page.getByRole("button", { name: "Create subscription" }).click();
    await w.page.getByLabel(/^Signing secret for/).waitFor();
    await w.page.getByRole("row", { name: new RegExp(path) }).getByRole("button", { name: "Send test" }).click();
  }
  await w.page.getByText("New inbound endpoint", { exact: true }).click();
  await w.page.getByRole("button", { name: "Create endpoint" }).click();
  await w.page.getByLabel(/^Receiver URL for the generic endpoint/).waitFor();
  const dead = async (): Promise<boolean> => {
    const r = await api(stack.baseUrl, "GET", "/v1/webhooks/deliveries?status=failed_permanent", { key: stack.key });
    return (r.json?.deliveries ?? []).length > 0;
  };
  for (let i = 0; i < 100 && !(await dead()); i++) await new Promise((r) => setTimeout(r, 200));
  t.ok(await dead(), "the down endpoint's test delivery is a dead letter");
  await w.page.reload();
  await w.page.locator(".deliveries-list .badge-failed_permanent").first().waitFor();
  await w.page.getByRole("button", { name: /^Attempts of dlv_/ }).first().click();
  await w.page.getByRole("heading", { name: /^Attempts of/ }).waitFor();
  await w.page.getByText("Headers and body").last().click();
  await screenshot(w.page, "webhooks");
  await w.close();
});

test("curiosity", async (t) => {
  const w = await openPage(chrome);
  await signIn(w, stack.baseUrl, stack.key);
  await w.page.getByRole("link", { name: "Curiosity" }).click();
  for (const [question, every, tags] of [["new listening ports on prod?", "1h", "env=prod"], ["who can sudo without a password?", "1d", ""]] as const) {
    await w.page.getByLabel("Question").fill(question);
    await w.page.getByLabel("Every").fill(every);
    await w.page.getByLabel("Tags (scope)").fill(tags);
    await w.page.getByRole("button", { name: "Create" }).click();
    await w.page.getByRole("cell", { name: question }).waitFor();
  }
  await w.page.getByRole("row", { name: /new listening ports/ }).getByRole("button", { name: "History" }).click();
  await w.page.getByRole("heading", { name: /Runs of/ }).waitFor();
  t.pass("two standing questions and a run history");
  await screenshot(w.page, "curiosity");
  await w.close();
});

test("teardown", async () => {
  await chrome?.close();
  await stack?.stop();
  await receiver?.close();
});
