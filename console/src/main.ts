// The console's shell: sign-in, navigation and a hash router (#/ask, #/investigations/<id>, ...). Each page
// renders into <main> and may return a stop function (its polling ends when the page is left).
import { call, session, who, whenUnauthorized, type Whoami } from "./api.js";
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

const saved = session.key();
if (saved) {
  call<Whoami>("GET", "/v1/auth/whoami").then(
    (me) => {
      who.set(me);
      shell();
    },
    () => signIn(),
  );
} else {
  signIn();
}
