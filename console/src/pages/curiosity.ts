// Curiosity: recurring questions with their next run and the history of their runs; create, pause, delete.
import { call, enc, qs, who } from "../api.js";
import { ago, buildScope, parseTags, scopeText, type Scope } from "../format.js";
import { badge, clear, confirmButton, field, h, notice, onClickOneAtATime, select, table } from "../dom.js";
import { BOUND, count, PAGE, pagedList, readPages } from "../paged.js";
import type { Investigation } from "../types.js";

interface Item {
  id: string;
  query: string;
  interval: string;
  scope: Scope | null;
  depth: string;
  active: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  last_investigation_id: string | null;
  run_count: number;
}

export async function curiosityPage(root: HTMLElement): Promise<void> {
  const canWrite = who.can("curiosity:write");
  const history = h("div", { "aria-live": "polite" });
  const status = h("div", { "aria-live": "polite" });
  const { el: list, load } = pagedList<Item>(
    "curiosity items",
    async (cursor) => {
      const page = await call<{ items: Item[]; next_cursor: string | null }>("GET", `/v1/curiosity${qs({ cursor, limit: PAGE })}`);
      return { items: page.items, next: page.next_cursor };
    },
    (items): HTMLElement =>
      items.length
        ? table(
            ["Question", "Every", "Scope", "State", "Next run", "Last run", "Runs", ""],
            items.map((it) => [
              it.query,
              it.interval,
              scopeText(it.scope),
              badge(it.active ? "active" : "paused"),
              it.active ? ago(it.next_run_at) : "—",
              it.last_investigation_id ? h("a", { href: `#/investigations/${it.last_investigation_id}` }, ago(it.last_run_at)) : "never",
              String(it.run_count),
              h("span", { class: "actions" }, historyButton(it, history), canWrite ? pauseButton(it, load) : null, canWrite ? confirmButton("Delete", "Confirm delete", async () => {
                await call("DELETE", `/v1/curiosity/${enc(it.id)}`);
                await load();
              }) : null),
            ]),
          )
        : notice("No curiosity items yet.", "info"),
  );
  root.append(h("h1", {}, "Curiosity"), h("p", { class: "muted" }, "Questions Inquest asks again on a schedule; each run is an investigation marked with what is new since the last one."));
  if (canWrite) root.append(createForm(status, load));
  root.append(list, history);
  await load();
}

function pauseButton(it: Item, reload: () => Promise<void>): HTMLButtonElement {
  const b = h("button", { type: "button", class: "ghost" }, it.active ? "Pause" : "Resume");
  b.addEventListener("click", () => {
    b.disabled = true;
    void call("PATCH", `/v1/curiosity/${enc(it.id)}`, { active: !it.active }).then(reload, () => (b.disabled = false));
  });
  return b;
}

/**
 * An item's runs: curiosity investigations, newest first, whose context names the item. The list has no filter by
 * item, so the history reads the curiosity runs BOUND at a time and says how far back it has searched; "Search
 * older runs" reads the next BOUND.
 */
function historyButton(it: Item, out: HTMLElement): HTMLButtonElement {
  const b = h("button", { type: "button", class: "ghost" }, "History");
  b.addEventListener("click", () => {
    if (!who.can("investigations:read")) return showHistory(it, out, [], null, 0);
    void runsOf(it.id, null).then(({ runs, next, scanned }) => {
      showHistory(it, out, runs, next, scanned);
      out.scrollIntoView({ block: "nearest" });
    });
  });
  return b;
}

function showHistory(it: Item, out: HTMLElement, runs: Investigation[], next: string | null, scanned: number): void {
  const older = h("button", { type: "button", class: "ghost", hidden: next === null }, "Search older runs");
  onClickOneAtATime(older, async () => {
    const more = await runsOf(it.id, next);
    showHistory(it, out, [...runs, ...more.runs], more.next, scanned + more.scanned);
  });
  const reach = next === null ? `all ${count(scanned)} curiosity runs` : `the latest ${count(scanned)} curiosity runs (of every item); older ones are not searched yet`;
  clear(
    out,
    h(
      "section",
      { class: "block", "aria-label": "Run history" },
      h("h2", {}, `Runs of “${it.query}”`),
      who.can("investigations:read") ? h("p", { class: "muted" }, `${count(runs.length)} run(s) found among ${reach}.`) : notice("Reading runs needs investigations:read.", "info"),
      runs.length
        ? table(["Run", "Status", "Verdict", "Findings", "Started"], runs.map((r) => [h("a", { href: `#/investigations/${r.investigation_id}` }, r.investigation_id), badge(r.status), r.summary ? badge(r.summary.verdict) : "—", r.summary ? String(r.summary.findings_count) : "—", ago(r.started_at)]))
        : who.can("investigations:read") ? notice("No runs yet.", "info") : null,
      older,
    ),
  );
}

/** BOUND curiosity runs from `cursor` on, and those of them that are the item's. */
async function runsOf(id: string, cursor: string | null): Promise<{ runs: Investigation[]; next: string | null; scanned: number }> {
  const page = await readPages(async (c) => {
    const p = await call<{ investigations: Investigation[]; next_cursor: string | null }>("GET", `/v1/investigations${qs({ trigger_source: "curiosity", cursor: c, limit: PAGE })}`);
    return { items: p.investigations, next: p.next_cursor };
  }, BOUND, cursor);
  return { runs: page.items.filter((i) => i.context.curiosity_id === id), next: page.next, scanned: page.items.length };
}

function createForm(status: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const query = h("input", { type: "text", name: "query", required: true, maxlength: 2000, placeholder: "e.g. new listening ports on prod?" });
  const interval = h("input", { type: "text", name: "interval", required: true, pattern: "[1-9][0-9]*(s|m|h|d|w)", value: "1h", size: 6 });
  const tags = h("input", { type: "text", name: "tags", placeholder: "env=prod" });
  const depth = select("depth", [["quick", "Quick"], ["standard", "Standard"], ["deep", "Deep"]], "standard");
  const form = h(
    "form",
    { class: "card", "aria-label": "New curiosity item" },
    h("h2", {}, "New recurring question"),
    field("Question", query),
    h("div", { class: "grid3" }, field("Every", interval, "e.g. 15m, 1h, 1d"), field("Tags (scope)", tags), field("Depth", depth)),
    status,
    h("button", { type: "submit", class: "primary" }, "Create"),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const t = parseTags(tags.value);
    if (typeof t === "string") return clear(status, notice(t, "error"));
    const body: Record<string, unknown> = { query: query.value.trim(), interval: interval.value.trim(), depth: depth.value };
    const scope = buildScope(t, []);
    if (scope) body.scope = scope;
    call("POST", "/v1/curiosity", body).then(
      () => {
        form.reset();
        clear(status, notice("Created.", "success"));
        void reload();
      },
      (err: Error) => clear(status, notice(err.message, "error")),
    );
  });
  return form;
}
