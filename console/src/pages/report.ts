// Report: status and live progress while running, then verdict and severity with their inputs, the narrative,
// findings (paged) with evidence tables, ATT&CK ids, the pathfinder's paths as a graph, timeline, coverage gaps
// and next steps. Uses GET /v1/investigations/{id}/findings when the detail announces findings_total.
import { call, enc, qs, who } from "../api.js";
import { ago, scopeText, span, TERMINAL, when } from "../format.js";
import { badge, clear, h, keepingFocus, notice, table, type Child } from "../dom.js";
import { pathGraph } from "../graph.js";
import type { Evidence, Finding, Investigation } from "../types.js";
import { CancelButtons, progressCell } from "./investigations.js";

const POLL_MS = 1000;
const PAGE = 5;
const ATTACK_ID = /^T\d{4}(\.\d{3})?$/;

export function reportPage(root: HTMLElement, id: string): () => void {
  let timer: number | undefined;
  let stopped = false;
  const head = h("div", {});
  const body = h("div", {});
  root.append(h("p", {}, h("a", { href: "#/investigations" }, "← Investigations")), head, body);
  let rendered = "";
  const cancels = new CancelButtons(() => void load());
  const load = async (): Promise<void> => {
    const inv = await call<Investigation>("GET", `/v1/investigations/${enc(id)}`);
    if (stopped) return;
    keepingFocus(head, () => renderHead(head, inv, cancels));
    if (TERMINAL.has(inv.status)) {
      if (rendered !== inv.status) {
        rendered = inv.status;
        clear(body);
        renderReport(body, inv);
      }
    } else {
      clear(body, h("div", { class: "card running" }, h("h2", {}, "Running"), progressCell(inv), h("p", { class: "muted" }, "This page follows the run; the report appears when it completes.")));
      timer = window.setTimeout(() => void load().catch(retry), POLL_MS);
    }
  };
  const retry = (): void => {
    if (!stopped) timer = window.setTimeout(() => void load().catch(retry), POLL_MS * 3);
  };
  void load().catch((err: Error) => clear(body, notice(err.message, "error")));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function renderHead(el: HTMLElement, inv: Investigation, cancels: CancelButtons): void {
  // The record's own recommendation: a verdict drawn from stale or missing snapshots says so at the top, whoever
  // asked and wherever from (not only in the browser session that asked).
  const rec = inv.freshness?.recommendation;
  const ctx = inv.context;
  clear(
    el,
    h("div", { class: "page-head" }, h("h1", { class: "question" }, inv.query), who.can("investigations:trigger") && !TERMINAL.has(inv.status) ? cancels.for(inv.investigation_id) : null),
    h(
      "dl",
      { class: "facts" },
      ...fact("Status", badge(inv.status)),
      ...fact("Scope", scopeText(inv.scope)),
      ...fact("Depth / mode", `${inv.depth} / ${inv.mode}`),
      ...fact("Source", ctx.trigger_source),
      // Both times absolute, so they compare at a glance; how long ago in the tooltip.
      ...fact("Started", h("time", { datetime: inv.started_at, title: ago(inv.started_at) }, when(inv.started_at))),
      ...fact("Completed", inv.completed_at ? when(inv.completed_at) : "—"),
      ...fact("Id", h("code", {}, inv.investigation_id)),
      ...(ctx.previous_investigation_id ? fact("Previous run", h("a", { href: `#/investigations/${ctx.previous_investigation_id}` }, ctx.previous_investigation_id)) : []),
    ),
    rec?.should_rerun_live ? notice(`Drawn from cached snapshots that are not fresh: ${rec.reason} A live run asks the hosts now.`, "warn") : null,
    inv.error ? notice(`${inv.error.code}: ${inv.error.message}`, "error") : null,
  );
}

function fact(term: string, value: Child): HTMLElement[] {
  return [h("dt", {}, term), h("dd", {}, value)];
}

function renderReport(el: HTMLElement, inv: Investigation): void {
  const s = inv.summary;
  const r = inv.report ?? {};
  if (!s) {
    el.append(notice(`This investigation ended ${inv.status} without a report.`, "info"));
    return;
  }
  el.append(
    h(
      "section",
      { class: "summary card", "aria-label": "Summary" },
      h("div", { class: "verdict" }, h("span", { class: "label" }, "Verdict"), badge(s.verdict)),
      h("div", { class: "verdict" }, h("span", { class: "label" }, "Severity"), badge(s.severity)),
      h("div", { class: "verdict" }, h("span", { class: "label" }, "Findings"), h("strong", {}, String(s.findings_count))),
      h("div", { class: "verdict" }, h("span", { class: "label" }, "Route"), h("span", {}, s.route)),
    ),
    section("Narrative", ...s.narrative.split(/\n+/).map((p) => h("p", { class: "narrative" }, p))),
  );
  if (r.severity_reason || r.severity_inputs?.length) {
    el.append(
      h(
        "details",
        { class: "card" },
        h("summary", {}, "Severity inputs"),
        r.severity_reason ? h("p", {}, r.severity_reason) : null,
        // Every input the rules use (docs/engine.md#severity): a score alone does not say why an exact indicator is
        // critical at 75 and an experimental detection medium at 102.
        table(
          ["Detection", "Agent", "Maturity", "Base", "Exact indicator", "Impact", "Precision", "Asset weight", "Score", "Severity"],
          (r.severity_inputs ?? []).map((i) => [
            i.detection_id,
            i.agent_id,
            i.maturity ?? "—",
            i.base_severity ?? "—",
            i.exact_ioc ? "yes" : "no",
            i.impact,
            i.precision,
            i.asset_weight,
            i.score.toFixed(2),
            i.severity ? badge(i.severity) : "—",
          ]),
        ),
      ),
    );
  }
  const findings = h("div", {});
  el.append(section("Findings", findings));
  findingsPager(findings, inv);
  if (r.paths?.length) {
    el.append(
      section(
        "Evidence paths",
        h("div", { class: "graph-wrap" }, pathGraph(r.paths, r.choke_points)),
        h("ol", { class: "paths" }, ...r.paths.map((p) => h("li", {}, h("span", { class: "muted" }, `score ${p.score.toFixed(2)} · `), p.explanation))),
      ),
    );
  }
  if (r.timeline?.length) el.append(section("Timeline", table(["Time", "Host", "Event", "Detection"], r.timeline.map((t) => [h("time", { datetime: t.time }, when(t.time)), t.hostname, t.event, t.detection_id]))));
  if (r.coverage_gaps?.length) el.append(section("Coverage gaps", h("ul", {}, ...r.coverage_gaps.map((g) => h("li", {}, g)))));
  const steps = Object.entries(r.next_steps ?? {}).filter(([, v]) => v.length > 0);
  if (steps.length) el.append(section("Next steps", h("div", { class: "steps" }, ...steps.map(([k, v]) => h("div", { class: "card step" }, h("h3", {}, k), h("ul", {}, ...v.map((x) => h("li", {}, x))))))));
  if (inv.freshness) {
    const f = inv.freshness;
    el.append(section("Data freshness", h("p", {}, `Data age ${f.data_age_seconds === null ? "unknown" : span(f.data_age_seconds)}; ${f.stale_agents} stale agent(s); ${f.agents_without_snapshot} without a snapshot. ${f.recommendation.reason}`)));
  }
}

function section(title: string, ...children: Child[]): HTMLElement {
  return h("section", { class: "block", "aria-label": title }, h("h2", {}, title), ...children);
}

/**
 * Findings a page at a time: from the paginated endpoint when the API has it, else from the detail. The rest of the
 * report does not wait for them. While a page loads the pager's buttons wait too (a double click moved two pages
 * with one page's cursor), and a page that fails to load says so, with a button to try again.
 */
function findingsPager(el: HTMLElement, inv: Investigation): void {
  const all = inv.findings ?? [];
  const paged = typeof inv.findings_total === "number";
  const total = paged ? (inv.findings_total as number) : all.length;
  const pages = Math.max(1, Math.ceil(total / PAGE));
  /** cursors[i]: the cursor of page i (null for the first), known once page i - 1 was read. */
  const cursors: Array<string | null> = [null];
  let loading = false;
  const show = async (index: number): Promise<void> => {
    if (loading) return;
    loading = true;
    for (const b of el.querySelectorAll("nav.pager button")) (b as HTMLButtonElement).disabled = true;
    try {
      let items: Finding[];
      let hasNext: boolean;
      if (paged) {
        const page = await call<{ findings: Finding[]; next_cursor: string | null }>("GET", `/v1/investigations/${enc(inv.investigation_id)}/findings${qs({ limit: PAGE, cursor: cursors[index] })}`);
        items = page.findings;
        cursors[index + 1] = page.next_cursor;
        hasNext = page.next_cursor !== null;
      } else {
        items = all.slice(index * PAGE, (index + 1) * PAGE);
        hasNext = (index + 1) * PAGE < all.length;
      }
      const prev = h("button", { type: "button", class: "ghost", disabled: index === 0 }, "← Previous");
      const next = h("button", { type: "button", class: "ghost", disabled: !hasNext }, "Next →");
      prev.addEventListener("click", () => void show(index - 1));
      next.addEventListener("click", () => void show(index + 1));
      clear(
        el,
        items.length ? h("div", { class: "findings" }, ...items.map(findingCard)) : notice("No findings.", "info"),
        total > PAGE ? h("nav", { class: "pager", "aria-label": "Findings pages" }, prev, h("span", {}, `Page ${index + 1} of ${pages} · ${total} findings`), next) : null,
      );
    } catch (err) {
      const again = h("button", { type: "button", class: "ghost" }, "Try again");
      again.addEventListener("click", () => void show(index));
      clear(el, notice(`The findings could not be loaded: ${err instanceof Error ? err.message : String(err)}`, "error"), again);
    } finally {
      loading = false;
    }
  };
  void show(0);
}

function findingCard(f: Finding): HTMLElement {
  return h(
    "article",
    { class: `finding card sev-${f.severity.replace(/[^a-z]/g, "")}` },
    h(
      "header",
      {},
      h("h3", {}, f.title),
      h("div", { class: "chips" }, badge(f.severity), f.new_since_last_run ? badge("new since last run", "new") : null, ...f.attack.map(attackChip)),
    ),
    h("p", { class: "meta" }, h("span", { class: "host" }, f.hostname), ` · ${f.agent_id} · ${f.detection_id} · confidence ${Math.round(f.confidence * 100)}%`),
    h("p", {}, f.summary),
    ...evidenceTables(f.evidence),
  );
}

function attackChip(id: string): HTMLElement {
  if (!ATTACK_ID.test(id)) return h("span", { class: "chip" }, id);
  return h("a", { class: "chip attack", href: `https://attack.mitre.org/techniques/${id.replace(".", "/")}/`, rel: "noopener noreferrer", target: "_blank" }, id);
}

/** One table per telemetry table: its rows' columns in first-seen order, then when each row was collected. */
function evidenceTables(evidence: Evidence[]): HTMLElement[] {
  const byTable = new Map<string, Evidence[]>();
  for (const e of evidence) byTable.set(e.table, [...(byTable.get(e.table) ?? []), e]);
  return [...byTable.entries()].map(([name, rows]) => {
    const cols: string[] = [];
    for (const r of rows) for (const k of Object.keys(r.row ?? {})) if (!cols.includes(k)) cols.push(k);
    return h(
      "div",
      { class: "evidence" },
      table([...cols, "collected_at"], rows.map((r) => [...cols.map((c) => cell(r.row[c])), r.collected_at ? when(r.collected_at) : "—"]), `Evidence: ${name}`),
    );
  });
}

function cell(v: unknown): Child {
  if (v === null || v === undefined) return "";
  return h("span", { class: "val" }, typeof v === "object" ? JSON.stringify(v) : String(v));
}
