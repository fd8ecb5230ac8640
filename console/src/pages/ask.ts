// Ask: the question, its scope (tags and an agent picker), depth and mode, with the freshness advice shown
// before running (from the agents' snapshot ages) and the trigger's own advice after.
import { call, who } from "../api.js";
import { buildScope, parseTags, span, type Scope } from "../format.js";
import { clear, field, h, notice, select } from "../dom.js";
import type { Agent, Freshness } from "../types.js";

const STALE_SECONDS = 3600;

interface Trigger {
  investigation_id: string;
  freshness?: Freshness;
}

export async function askPage(root: HTMLElement): Promise<void> {
  root.append(h("h1", {}, "Ask a question"));
  if (!who.can("investigations:trigger")) {
    root.append(notice("This API key cannot start investigations (it lacks investigations:trigger). Read past ones under Investigations.", "info"));
    return;
  }
  const agents = who.can("investigations:read") ? ((await call<{ agents: Agent[] }>("GET", "/v1/agents?limit=200")).agents ?? []) : [];
  const question = h("textarea", { name: "query", rows: 3, required: true, maxlength: 2000, placeholder: "e.g. any cryptominers on prod?" });
  const tags = h("input", { type: "text", name: "tags", placeholder: "env=prod, role=web", autocomplete: "off" });
  const depth = select("depth", [["quick", "Quick"], ["standard", "Standard"], ["deep", "Deep"]], "standard");
  const mode = select("mode", [["auto", "Auto (cached; live for hosts without a snapshot)"], ["cached", "Cached snapshots only"], ["live", "Live (ask the agents now)"]], "auto");
  const picks = agents.map((a) => {
    const box = h("input", { type: "checkbox", name: "agent", value: a.agent_id });
    return { a, box, el: h("label", { class: "check" }, box, ` ${a.hostname} `, h("span", { class: `dot dot-${a.status === "online" ? "online" : "offline"}` }), h("span", { class: "muted" }, a.agent_id)) };
  });
  const advice = h("div", { class: "advice", "aria-live": "polite" });
  const status = h("div", { "aria-live": "polite" });

  const selected = (): { scope?: Scope; error?: string } => {
    const t = parseTags(tags.value);
    if (typeof t === "string") return { error: t };
    return { scope: buildScope(t, picks.filter((p) => p.box.checked).map((p) => p.a.agent_id)) };
  };
  const showAdvice = (): void => {
    // The picker offers only agents the tags select (ticking one outside them would make a scope of no agent).
    const typed = parseTags(tags.value);
    if (typeof typed !== "string") {
      for (const p of picks) {
        const fits = carries(p.a, typed);
        p.el.hidden = !fits;
        if (!fits) p.box.checked = false;
      }
    }
    const sel = selected();
    if (sel.error) return clear(advice, notice(sel.error, "error"));
    const f = sel.scope?.filter;
    const inScope = agents.filter((a) => (!f?.agent_ids || f.agent_ids.includes(a.agent_id)) && carries(a, f?.tags ?? {}));
    const now = Date.now();
    /** Seconds since the agent's snapshot, or null without one. */
    const ageOf = (a: Agent): number | null => (a.snapshot_collected_at ? (now - Date.parse(a.snapshot_collected_at)) / 1000 : null);
    const ages = inScope.map(ageOf).filter((s): s is number => s !== null);
    const stale = ages.filter((s) => s > STALE_SECONDS).length;
    const none = inScope.length - ages.length;
    const offline = inScope.filter((a) => a.status !== "online").length;
    // Hosts a live run could help with: online ones whose snapshot is stale or missing (an offline host answers no one).
    const askable = inScope.filter((a) => a.status === "online" && (ageOf(a) ?? Infinity) > STALE_SECONDS).length;
    const lines = [`${inScope.length} agent(s) in scope, ${offline} offline.`];
    if (ages.length) lines.push(`Oldest snapshot ${span(Math.max(...ages))} old; ${stale} older than an hour; ${none} without a snapshot.`);
    else if (inScope.length) lines.push("No snapshots yet: only a live run can answer.");
    const live = stale > 0 || none > 0;
    clear(advice, h("p", { class: live ? "notice notice-warn" : "notice notice-info" }, ...lines.map((l) => h("span", { class: "line" }, l)), h(live ? "strong" : "span", { class: "line" }, adviceText(mode.value, live, askable))));
  };
  mode.addEventListener("change", showAdvice);
  tags.addEventListener("input", showAdvice);
  for (const p of picks) p.box.addEventListener("change", showAdvice);

  const submit = h("button", { type: "submit", class: "primary" }, "Run investigation");
  const form = h(
    "form",
    { class: "card", "aria-label": "New investigation" },
    field("Question", question),
    h("div", { class: "grid2" }, field("Tags (scope)", tags, "key=value pairs, comma-separated; all must match"), h("div", { class: "grid2" }, field("Depth", depth), field("Mode", mode))),
    picks.length ? h("fieldset", { class: "agents-pick" }, h("legend", {}, "Agents (optional; none ticked = every agent matching the tags)"), ...picks.map((p) => p.el)) : null,
    advice,
    status,
    submit,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const sel = selected();
    if (sel.error) return clear(status, notice(sel.error, "error"));
    const body: Record<string, unknown> = { query: question.value.trim(), depth: depth.value, mode: mode.value };
    if (sel.scope) body.scope = sel.scope;
    submit.disabled = true;
    call<Trigger>("POST", "/v1/investigations", body).then(
      (t) => {
        const rec = t.freshness?.recommendation;
        if (rec?.should_rerun_live) sessionStorage.setItem(`inquest.advice.${t.investigation_id}`, rec.reason);
        location.hash = `#/investigations/${t.investigation_id}`;
      },
      (err: Error) => {
        submit.disabled = false;
        clear(status, notice(err.message, "error"));
      },
    );
  });
  root.append(form);
  showAdvice();
  question.focus();
}

/** Whether the agent carries every one of `tags` (how a scope's tags select agents: they AND together). */
function carries(a: Agent, tags: Record<string, string>): boolean {
  return Object.entries(tags).every(([k, v]) => a.tags[k] === v);
}

/**
 * What to do about the scope's snapshots, for the mode chosen: auto asks live only hosts that have no snapshot at
 * all (docs/engine.md#modes-and-freshness), so a stale one is asked again only by a live run.
 */
function adviceText(mode: string, stale: boolean, askable: number): string {
  if (!stale) return "Cached data is fresh enough.";
  if (askable === 0) return "The hosts with stale or missing snapshots are offline: no run can ask them now.";
  if (mode === "live") return `Live is selected: the ${askable} online host(s) with stale or missing snapshots are asked now.`;
  return `Advice: choose Live so the ${askable} online host(s) with stale or missing snapshots are asked now (${mode === "auto" ? "auto asks only hosts that have no snapshot" : "cached asks none"}).`;
}
