// Investigations: the list with status and trigger-source filters, live progress (polled while any shown run is
// not finished) and cancel.
import { call, enc, qs, who } from "../api.js";
import { ago, TERMINAL } from "../format.js";
import { badge, clear, confirmButton, field, h, keepingFocus, notice, onClickOneAtATime, select, table } from "../dom.js";
import type { Investigation } from "../types.js";

const POLL_MS = 1500;

export function progressCell(inv: Investigation): HTMLElement {
  const p = inv.progress;
  if (!p || TERMINAL.has(inv.status)) return h("span", { class: "muted" }, p ? `${p.agents_responded}/${p.agents_targeted} agents` : "—");
  const bar = h("progress", { max: Math.max(p.plans_total, 1), value: p.plans_completed, "aria-label": `${p.phase}: ${p.plans_completed} of ${p.plans_total} plans` });
  return h("span", { class: "progress" }, bar, h("small", {}, `${p.phase} · ${p.agents_responded}/${p.agents_targeted} agents`));
}

/**
 * Each running investigation's cancel button, kept across the page's polls: a button made again at every poll lost
 * its "Confirm cancel" state (and the focus) between the two clicks, so a run could not be cancelled.
 */
export class CancelButtons {
  private readonly made = new Map<string, HTMLButtonElement>();

  constructor(private readonly after: () => void) {}

  /** The button of `id`: the same element every time. */
  for(id: string): HTMLButtonElement {
    let button = this.made.get(id);
    if (!button) {
      button = confirmButton("Cancel", "Confirm cancel", async () => {
        await call("DELETE", `/v1/investigations/${enc(id)}`);
        this.after();
      });
      this.made.set(id, button);
    }
    return button;
  }

  /** Forgets the buttons of investigations no longer shown running. */
  keepOnly(ids: Iterable<string>): void {
    const keep = new Set(ids);
    for (const id of [...this.made.keys()]) if (!keep.has(id)) this.made.delete(id);
  }
}

export function investigationRows(items: Investigation[], cancels: CancelButtons): HTMLElement {
  const canCancel = who.can("investigations:trigger");
  cancels.keepOnly(items.filter((inv) => !TERMINAL.has(inv.status)).map((inv) => inv.investigation_id));
  return table(
    ["Question", "Status", "Verdict", "Source", "Started", "Progress", ""],
    items.map((inv) => [
      h("a", { href: `#/investigations/${inv.investigation_id}` }, inv.query),
      badge(inv.status),
      inv.summary ? h("span", { class: "pair" }, badge(inv.summary.verdict), badge(inv.summary.severity)) : "—",
      inv.context.trigger_source,
      h("time", { datetime: inv.started_at, title: inv.started_at }, ago(inv.started_at)),
      progressCell(inv),
      canCancel && !TERMINAL.has(inv.status) ? cancels.for(inv.investigation_id) : null,
    ]),
  );
}

export function investigationsPage(root: HTMLElement): () => void {
  const status = select("status", [["", "Any status"], ["queued", "Queued"], ["running", "Running"], ["completed", "Completed"], ["failed", "Failed"], ["cancelled", "Cancelled"]]);
  const source = select("trigger_source", [["", "Any source"], ["api", "API"], ["curiosity", "Curiosity"], ["inbound:generic", "Inbound: generic"], ["inbound:edr", "Inbound: EDR"], ["inbound:ci", "Inbound: CI"]]);
  const list = h("div", { "aria-live": "polite" });
  const more = h("button", { type: "button", class: "ghost" }, "Load more");
  let cursors: Array<string | null> = [null];
  let pages: Investigation[][] = [];
  let timer: number | undefined;
  let stopped = false;

  const fetchPage = (cursor: string | null) => call<{ investigations: Investigation[]; next_cursor: string | null }>("GET", `/v1/investigations${qs({ status: status.value, trigger_source: source.value, cursor, limit: 25 })}`);
  const cancels = new CancelButtons(() => void load(false));
  const render = (): void => {
    const items = pages.flat();
    keepingFocus(list, () => clear(list, items.length ? investigationRows(items, cancels) : notice("No investigations match.", "info")));
    more.hidden = cursors[cursors.length - 1] === null;
  };
  /** Bumped by a filter change: a reply to a request made before it is dropped (it lists the old filter's runs). */
  let generation = 0;
  /**
   * Reloads every page shown so far (progress moves), each with the cursor the page before it just gave; a filter
   * change starts over. A page loaded by "Load more" while this ran is kept.
   */
  const load = async (reset: boolean): Promise<void> => {
    if (reset) {
      generation++;
      cursors = [null];
      pages = [];
    }
    const mine = generation;
    const wanted = Math.max(pages.length, 1);
    const fresh: Investigation[][] = [];
    const next: Array<string | null> = [null];
    for (let i = 0; i < wanted && (i === 0 || next[i] !== null); i++) {
      const page = await fetchPage(next[i] ?? null);
      if (mine !== generation) return;
      fresh.push(page.investigations);
      next.push(page.next_cursor);
    }
    pages = [...fresh, ...pages.slice(wanted)];
    cursors = [...next, ...cursors.slice(next.length)];
    render();
    schedule();
  };
  const schedule = (): void => {
    clearTimeout(timer);
    if (!stopped && pages.flat().some((i) => !TERMINAL.has(i.status))) timer = window.setTimeout(() => void load(false).catch(() => schedule()), POLL_MS);
  };
  // One page at a time (a double click asked for the same cursor twice and listed its runs twice).
  onClickOneAtATime(more, async () => {
    const c = cursors[cursors.length - 1];
    if (!c) return;
    const mine = generation;
    const page = await fetchPage(c);
    if (mine !== generation) return;
    pages.push(page.investigations);
    cursors.push(page.next_cursor);
    render();
    schedule();
  });
  status.addEventListener("change", () => void load(true));
  source.addEventListener("change", () => void load(true));
  root.append(
    h("div", { class: "page-head" }, h("h1", {}, "Investigations"), who.can("investigations:trigger") ? h("a", { href: "#/ask", class: "button primary" }, "New investigation") : null),
    h("div", { class: "filters card" }, field("Status", status), field("Trigger source", source)),
    list,
    more,
  );
  void load(true).catch((err: Error) => clear(list, notice(err.message, "error")));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
