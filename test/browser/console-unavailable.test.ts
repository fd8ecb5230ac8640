// The console at load with a saved key while the service is unavailable: a 503 (the bus down, the read model
// reopening) or a failed connection is not a refused key. The console keeps the key, says the service is
// unavailable with the gateway's message, and tries again (after Retry-After) until it answers; only a 401 asks
// for the key again, and says why. A real gateway behind Debian's chromium; whoami's failures are the page's own
// routes in front of it.
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

/** whoami answers `fail` (a route handler) the first `times` calls, then the gateway answers; returns when each call came. */
async function failWhoami(page: Page, times: number, fail: (route: import("playwright-core").Route) => Promise<void>): Promise<number[]> {
  const at: number[] = [];
  await page.route("**/v1/auth/whoami", async (route) => {
    at.push(Date.now());
    if (at.length <= times) return fail(route);
    return route.continue();
  });
  return at;
}

const UNAVAILABLE = { code: "unavailable", message: "the message bus is unavailable; nothing was changed, retry" };

test("a 503 at load keeps the key, says so with the gateway's message, and retries after Retry-After", async (t) => {
  const w = await signedIn();
  const at = await failWhoami(w.page, 2, (route) => route.fulfill({ status: 503, contentType: "application/json", headers: { "retry-after": "2" }, body: JSON.stringify({ error: UNAVAILABLE }) }));
  await w.page.reload();
  const alert = w.page.getByRole("alert");
  await alert.waitFor();
  t.match(await alert.textContent(), /unavailable/i);
  t.match(await alert.textContent(), UNAVAILABLE.message, "the error body's message is shown");
  t.equal(await w.page.getByLabel("API key").count(), 0, "no sign-in form");
  t.match(await w.page.getByRole("timer").textContent(), /Retrying in [12] s/, "a visible countdown");
  await w.page.getByRole("navigation", { name: "Main" }).waitFor({ timeout: 15_000 });
  t.equal(at.length, 3, "signed in on the third call, after two 503s");
  t.ok((at[1] ?? 0) - (at[0] ?? 0) >= 1_900, `Retry-After: 2 honoured (${(at[1] ?? 0) - (at[0] ?? 0)} ms)`);
  t.equal(await w.page.evaluate(`sessionStorage.getItem("inquest.apiKey")`), stack.key, "the key was kept");
  t.same(w.pageErrors, []);
  await w.close();
});

test("a failed connection at load is retried too, backing off", async (t) => {
  const w = await signedIn();
  const at = await failWhoami(w.page, 2, (route) => route.abort("connectionrefused"));
  await w.page.reload();
  const alert = w.page.getByRole("alert");
  await alert.waitFor();
  t.match(await alert.textContent(), /could not be reached/);
  t.equal(await w.page.getByLabel("API key").count(), 0, "no sign-in form");
  await w.page.getByRole("navigation", { name: "Main" }).waitFor({ timeout: 15_000 });
  t.equal(at.length, 3);
  t.ok((at[2] ?? 0) - (at[1] ?? 0) >= 1_900, `the second retry waited longer (${(at[2] ?? 0) - (at[1] ?? 0)} ms)`);
  t.equal(await w.page.evaluate(`sessionStorage.getItem("inquest.apiKey")`), stack.key, "the key was kept");
  await w.close();
});

test("Retry now does not wait for a long Retry-After; Sign out while waiting drops the key", async (t) => {
  const w = await signedIn();
  const at = await failWhoami(w.page, 2, (route) => route.fulfill({ status: 503, contentType: "application/json", headers: { "retry-after": "600" }, body: JSON.stringify({ error: UNAVAILABLE }) }));
  await w.page.reload();
  await w.page.getByRole("timer").filter({ hasText: /Retrying in 600 s/ }).waitFor();
  await w.page.getByRole("button", { name: "Retry now" }).click();
  await w.page.getByRole("timer").filter({ hasText: /Retrying in 600 s/ }).waitFor();
  t.equal(at.length, 2, "asked again at once");
  await w.page.getByRole("button", { name: "Sign out" }).click();
  await w.page.getByLabel("API key").waitFor();
  t.equal(await w.page.evaluate(`sessionStorage.getItem("inquest.apiKey")`), null, "signed out");
  await w.close();
});

test("a 401 at load asks for the key again and says why", async (t) => {
  const w = await signedIn();
  await failWhoami(w.page, 1, (route) => route.fulfill({ status: 401, contentType: "application/json", body: JSON.stringify({ error: { code: "unauthorized", message: "invalid API key" } }) }));
  await w.page.reload();
  await w.page.getByLabel("API key").waitFor();
  await w.page.getByRole("alert").waitFor();
  t.match(await w.page.getByRole("alert").textContent(), /refused/);
  t.equal(await w.page.evaluate(`sessionStorage.getItem("inquest.apiKey")`), null, "the refused key is dropped");
  await w.close();
});

test("teardown", async () => {
  await chrome?.close();
  await stack?.stop();
});
