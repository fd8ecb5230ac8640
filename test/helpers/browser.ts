// Debian's chromium driven by playwright-core (which never downloads a browser): one launch per test file.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { REPO } from "./services.js";

export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOTS = join(REPO, "docs", "screenshots");

export interface Launched {
  /** One browser profile (a fresh --user-data-dir); each page is its own tab with its own sessionStorage. */
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches chromium headless; a missing browser is an error that says how to install it (never a skip). */
export async function launchChromium(): Promise<Launched> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the browser tests need Debian's chromium ('make deps' as root installs it, or 'sudo apt-get install chromium')`);
  const profile = mkdtempSync(join(tmpdir(), "inquest-chromium-"));
  // playwright passes the profile as --user-data-dir (it refuses the flag in args).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface Watched {
  page: Page;
  /** Dialogs opened (alert/confirm/prompt) and CSP violations reported by the page: both must stay empty. */
  dialogs: string[];
  violations(): Promise<string[]>;
  pageErrors: string[];
  close(): Promise<void>;
}

/** A new tab (its own sessionStorage) that records dialogs, CSP violations and errors. */
export async function openPage(chrome: Launched, viewport = { width: 1280, height: 900 }): Promise<Watched> {
  const page = await chrome.context.newPage();
  await page.setViewportSize(viewport);
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  // Runs before the console's own script (the test's hook, not the page's: CSP does not apply to it).
  await page.addInitScript(`window.__csp = []; document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));`);
  return { page, dialogs, pageErrors, violations: async () => (await page.evaluate("window.__csp")) as string[], close: () => page.close() };
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.evaluate("window.scrollTo(0, 0)"); // a full-page shot of a scrolled page repeats the sticky header
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage, animations: "disabled" });
}

export async function screenshotOf(locator: Locator, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await locator.screenshot({ path: join(SCREENSHOTS, `${name}.png`), animations: "disabled" });
}

/** Signs in at the console of `baseUrl` with `key` and waits for its main navigation. */
export async function signIn(w: Watched, baseUrl: string, key: string): Promise<void> {
  await w.page.goto(`${baseUrl}/`);
  await w.page.getByLabel("API key").fill(key);
  await w.page.getByRole("button", { name: "Sign in" }).click();
  await w.page.getByRole("navigation", { name: "Main" }).waitFor();
}
