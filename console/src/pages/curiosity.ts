// Curiosity: recurring questions with their next run and the history of their runs; create, pause, delete.
import { call, enc, qs, who } from "../api.js";
import { ago, buildScope, parseTags, scopeText, type Scope } from "../format.js";
import { badge, clear, confirmButton, field, h, notice, select, table } from "../dom.js";
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
  const list = h("div", {});
  const history = h("div", { "aria-live": "polite" });
  const status = h("div", { "aria-live": "polite" });
  const load = async (): Promise<void> => {
    const items: Item[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Item[]; next_cursor: string | null } = await call("GET", `/v1/curiosity${qs({ cursor, limit: 200 })}`);
      items.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor !== null && items.length < 1000);
    clear(
      list,
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
  };
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

function historyButton(it: Item, out: HTMLElement): HTMLButtonElement {
  const b = h("button", { type: "button", class: "ghost" }, "History");
  b.addEventListener("click", () => {
    void runsOf(it.id).then((runs) => {
      clear(
        out,
        h(
          "section",
          { class: "block", "aria-label": "Run history" },
          h("h2", {}, `Runs of “${it.query}”`),
          runs.length
            ? table(["Run", "Status", "Verdict", "Findings", "Started"], runs.map((r) => [h("a", { href: `#/investigations/${r.investigation_id}` }, r.investigation_id), badge(r.status), r.summary ? badge(r.summary.verdict) : "—", r.summary ? String(r.summary.findings_count) : "—", ago(r.started_at)]))
            : notice("No runs yet.", "info"),
        ),
      );
      out.scrollIntoView({ block: "nearest" });
    });
  });
  return b;
}

/** The item's runs: curiosity investigations, newest first, whose context names the item. */
async function runsOf(id: string): Promise<Investigation[]> {
  if (!who.can("investigations:read")) return [];
  const runs: Investigation[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 5 && runs.length < 50; pages++) {
    const page: { investigations: Investigation[]; next_cursor: string | null } = await call("GET", `/v1/investigations${qs({ trigger_source: "curiosity", cursor, limit: 200 })}`);
    runs.push(...page.investigations.filter((i) => i.context.curiosity_id === id));
    cursor = page.next_cursor;
    if (cursor === null) break;
  }
  return runs;
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
