// The console's shell: sign-in, navigation and a hash router (#/ask, #/investigations/<id>, ...). Each page
// renders into <main> and may return a stop function (its polling ends when the page is left).
import { ApiError, call, session, who, whenUnauthorized, type Whoami } from "./api.js";
import { clear, field, h, notice } from "./dom.js";
import { agentsPage } from "./pages/agents.js";
import { askPage } from "./pages/ask.js";
import { curiosityPage } from "./pages/curiosity.js";
import { investigationsPage } from "./pages/investigations.js";
import { reportPage } from "./pages/report.js";
import { webhooksPage } from "./pages/webhooks.js";

export type Stop = () => void;
type PageFn = (root: HTMLElement, arg: string) => Promise<Stop | void> | Stop | void;

const NAV: Array<[string, string, string | null]> = [
  ["#/ask", "Ask", null],
  ["#/investigations", "Investigations", "investigations:read"],
  ["#/agents", "Agents", "investigations:read"],
  ["#/curiosity", "Curiosity", "curiosity:read"],
  ["#/webhooks", "Webhooks", "webhooks:manage"],
];

const ROUTES: Array<[RegExp, PageFn]> = [
  [/^#\/ask$/, askPage],
  [/^#\/investigations$/, investigationsPage],
  [/^#\/investigations\/(inv_[0-9A-Za-z]+)$/, reportPage],
  [/^#\/agents$/, agentsPage],
  [/^#\/curiosity$/, curiosityPage],
  [/^#\/webhooks$/, webhooksPage],
];

const app = document.getElementById("app") as HTMLElement;
let stopPage: Stop | null = null;

function signIn(message?: string): void {
  stopPage?.();
  stopPage = null;
  who.set(null);
  const input = h("input", { type: "password", name: "api-key", autocomplete: "off", required: true, spellcheck: "false" });
  const status = h("div", { "aria-live": "polite" }, message ? notice(message, "error") : null);
  const form = h(
    "form",
    { class: "card signin", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, "Inquest console"),
    h("p", { class: "muted" }, "Paste an API key. It is kept in this tab only (sessionStorage) and sent as a bearer token."),
    field("API key", input, "inq_… — issue one with: npx inquest keys create --scopes …"),
    status,
    h("button", { type: "submit", class: "primary" }, "Sign in"),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const key = input.value.trim();
    call<Whoami>("GET", "/v1/auth/whoami", undefined, key).then(
      (me) => {
        session.save(key);
        who.set(me);
        if (!location.hash || location.hash === "#/") location.hash = "#/ask";
        shell();
      },
      (err: Error) => clear(status, notice(err.message, "error")),
    );
  });
  clear(app, h("main", { id: "main", class: "signin-wrap" }, form));
  input.focus();
}

function shell(): void {
  const me = who.get();
  if (!me) return signIn();
  const links = NAV.filter(([, , scope]) => scope === null || who.can(scope)).map(([href, label]) => h("a", { href, class: "nav-link" }, label));
  const out = h("button", { type: "button", class: "ghost" }, "Sign out");
  out.addEventListener("click", () => {
    session.clear();
    location.hash = "";
    signIn();
  });
  const main = h("main", { id: "main", tabindex: "-1" });
  clear(
    app,
    h("a", { href: "#main", class: "skip" }, "Skip to content"),
    h(
      "header",
      { class: "topbar" },
      h("a", { href: "#/ask", class: "brand" }, "Inquest"),
      h("nav", { "aria-label": "Main" }, ...links),
      h("div", { class: "who" }, h("span", { class: "muted", title: me.scopes.join(", ") }, `${me.name} · ${me.display_prefix}`), out),
    ),
    main,
  );
  route(main);
}

function route(main: HTMLElement): void {
  stopPage?.();
  stopPage = null;
  const hash = location.hash || "#/ask";
  for (const a of document.querySelectorAll<HTMLAnchorElement>(".nav-link")) {
    const current = hash === a.getAttribute("href") || hash.startsWith(`${a.getAttribute("href")}/`);
    if (current) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  for (const [re, page] of ROUTES) {
    const m = re.exec(hash);
    if (!m) continue;
    // A fresh view per navigation: a page still loading for an earlier hash fills a detached view, not this one.
    const view = h("div", { class: "view" });
    clear(main, view);
    Promise.resolve(page(view, m[1] ?? "")).then(
      (stop) => {
        if (stop && view.isConnected) stopPage = stop;
        else stop?.();
      },
      (err: Error) => clear(view, notice(err.message, "error")),
    );
    return;
  }
  clear(main, h("h1", {}, "Not found"), h("p", {}, "No such page. "), h("a", { href: "#/ask" }, "Go to Ask"));
}

window.addEventListener("hashchange", () => {
  const main = document.getElementById("main");
  if (main && who.get()) route(main);
});
whenUnauthorized(() => {
  session.clear();
  signIn("The API key was refused (unknown or revoked). Sign in again.");
});

/** Seconds before asking again when the answer named no Retry-After: 1, 2, 4 … then every 30. */
const backoff = (attempt: number): number => Math.min(30, 2 ** attempt);

/**
 * Signs in again with the key this tab kept. Only a 401 means the key is unusable (whoami takes any valid key, so
 * it has no 403), and `whenUnauthorized` then asks for it again, saying why. Anything else (a 503 while the bus or
 * the gateway's read model is away, no answer at all) is the service, not the key: the key is kept, the page says
 * so and asks again.
 */
function resume(attempt = 0): void {
  const key = session.key();
  call<Whoami>("GET", "/v1/auth/whoami").then(
    (me) => {
      if (session.key() !== key) return; // signed out while waiting
      who.set(me);
      shell();
    },
    (err: unknown) => {
      if ((err instanceof ApiError && err.status === 401) || session.key() !== key) return;
      unavailable(err, attempt);
    },
  );
}

/** The service's answer and a countdown to the next try (Retry-After when it gave one); Retry now, Sign out. */
function unavailable(err: unknown, attempt: number): void {
  let left = err instanceof ApiError && err.retryAfter !== null ? Math.max(1, err.retryAfter) : backoff(attempt);
  // role=timer: read on request, not announced every second.
  const countdown = h("p", { class: "muted", role: "timer" }, `Retrying in ${left} s…`);
  const now = h("button", { type: "button", class: "primary" }, "Retry now");
  const out = h("button", { type: "button", class: "ghost" }, "Sign out");
  const retry = (): void => {
    clearInterval(timer);
    countdown.textContent = "Retrying…";
    now.disabled = true;
    resume(attempt + 1);
  };
  const timer = setInterval(() => {
    left -= 1;
    if (left > 0) countdown.textContent = `Retrying in ${left} s…`;
    else retry();
  }, 1000);
  now.addEventListener("click", retry);
  out.addEventListener("click", () => {
    clearInterval(timer);
    session.clear();
    signIn();
  });
  const reason = err instanceof Error ? err.message : String(err);
  clear(
    app,
    h(
      "main",
      { id: "main", class: "signin-wrap" },
      h(
        "div",
        { class: "card signin" },
        h("h1", {}, "Inquest console"),
        notice(`The service is unavailable: ${reason}`, "error"),
        h("p", { class: "muted" }, "Your API key is kept; the console signs in as soon as the service answers."),
        countdown,
        h("div", { class: "actions" }, now, out),
      ),
    ),
  );
}

if (session.key()) resume();
else signIn();
