// Webhooks: subscriptions (the secret shown once at creation), the delivery log with each attempt, dead letters
// with replay, and inbound endpoints (their receiver URL shown once).
import { call, enc, qs } from "../api.js";
import { ago, parseTags, when } from "../format.js";
import { badge, clear, confirmButton, field, h, notice, onClickOneAtATime, select, table } from "../dom.js";
import { PAGE, pagedList } from "../paged.js";

const EVENTS = ["investigation.queued", "investigation.started", "investigation.completed", "investigation.failed", "investigation.cancelled", "finding.discovered", "agent.registered", "agent.connected", "agent.disconnected"];

interface Subscription {
  id: string;
  url: string;
  events: string[];
  filters: { min_severity?: string };
  active: boolean;
  created_at: string;
  secret?: string;
}

interface Attempt {
  attempt: number;
  at: string;
  response_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** An attempt as GET .../attempts gives it: what the endpoint answered, beyond its code. */
interface AttemptDetail extends Attempt {
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  subscription_id: string;
  status: string;
  attempt_count: number;
  last_response_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  updated_at: string;
  replay_of: string | null;
  attempts: Attempt[];
}

interface Endpoint {
  id: string;
  provider: string;
  default_depth: string;
  active: boolean;
  url_key_prefix: string;
  created_at: string;
  has_signing_secret: boolean;
  url?: string;
}

export async function webhooksPage(root: HTMLElement): Promise<void> {
  const subs = h("section", { class: "block", "aria-labelledby": "h-subs" });
  const dels = h("section", { class: "block", "aria-labelledby": "h-dels" });
  const inbound = h("section", { class: "block", "aria-labelledby": "h-inbound" });
  root.append(h("h1", {}, "Webhooks"), subs, dels, inbound);
  const deliveries = await deliveriesSection(dels);
  await Promise.all([subscriptionsSection(subs, deliveries), inboundSection(inbound)]);
}

function secretBox(label: string, value: string): HTMLElement {
  const input = h("input", { type: "text", readonly: true, value, class: "secret", "aria-label": label });
  const copy = h("button", { type: "button", class: "ghost" }, "Copy");
  copy.addEventListener("click", () => {
    input.select();
    void navigator.clipboard?.writeText(value).then(() => (copy.textContent = "Copied"), () => undefined);
  });
  return h("div", { class: "notice notice-success once", role: "status" }, h("strong", {}, `${label} — shown only now; store it safely.`), h("div", { class: "secret-row" }, input, copy));
}

async function subscriptionsSection(el: HTMLElement, deliveries: () => Promise<void>): Promise<void> {
  const shown = h("div", { "aria-live": "polite" });
  const { el: list, load } = pagedList<Subscription>(
    "subscriptions",
    async (cursor) => {
      const page = await call<{ subscriptions: Subscription[]; next_cursor: string | null }>("GET", `/v1/webhooks/subscriptions${qs({ limit: PAGE, cursor })}`);
      return { items: page.subscriptions, next: page.next_cursor };
    },
    (subscriptions): HTMLElement =>
      subscriptions.length
        ? table(
            ["URL", "Events", "Min severity", "State", "Created", ""],
            subscriptions.map((s) => [
              h("code", { class: "url" }, s.url),
              h("span", { class: "chips" }, ...s.events.map((e) => h("span", { class: "chip" }, e))),
              s.filters.min_severity ?? "—",
              badge(s.active ? "active" : "paused"),
              ago(s.created_at),
              h("span", { class: "actions" }, testButton(s, deliveries), pauseButton(s, load), confirmButton("Delete", "Confirm delete", async () => {
                await call("DELETE", `/v1/webhooks/subscriptions/${enc(s.id)}`);
                await load();
              })),
            ]),
          )
        : notice("No subscriptions yet.", "info"),
  );
  const url = h("input", { type: "url", name: "url", required: true, placeholder: "https://example.com/hooks/inquest" });
  const boxes = EVENTS.map((e) => h("input", { type: "checkbox", name: "events", value: e, checked: e === "investigation.completed" }));
  const minSev = select("min_severity", [["", "Any"], ["low", "Low"], ["medium", "Medium"], ["high", "High"], ["critical", "Critical"]]);
  const status = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { "aria-label": "New subscription" },
    field("Receiver URL", url),
    h("fieldset", { class: "events" }, h("legend", {}, "Events"), ...boxes.map((b) => h("label", { class: "check" }, b, ` ${b.value}`))),
    field("Minimum severity", minSev),
    status,
    h("button", { type: "submit", class: "primary" }, "Create subscription"),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const events = boxes.filter((b) => b.checked).map((b) => b.value);
    if (!events.length) return clear(status, notice("Choose at least one event.", "error"));
    const body: Record<string, unknown> = { url: url.value.trim(), events };
    if (minSev.value) body.filters = { min_severity: minSev.value };
    call<Subscription>("POST", "/v1/webhooks/subscriptions", body).then(
      (s) => {
        form.reset();
        clear(status);
        clear(shown, secretBox(`Signing secret for ${s.url}`, s.secret ?? ""));
        void load();
      },
      (err: Error) => clear(status, notice(err.message, "error")),
    );
  });
  el.append(h("h2", { id: "h-subs" }, "Subscriptions"), shown, list, h("details", { class: "card" }, h("summary", {}, "New subscription"), form));
  await load();
}

function testButton(s: Subscription, deliveries: () => Promise<void>): HTMLButtonElement {
  const b = h("button", { type: "button", class: "ghost" }, "Send test");
  b.addEventListener("click", () => {
    b.disabled = true;
    void call("POST", `/v1/webhooks/subscriptions/${enc(s.id)}/test`)
      .then(deliveries)
      .finally(() => (b.disabled = false));
  });
  return b;
}

function pauseButton(s: Subscription, reload: () => Promise<void>): HTMLButtonElement {
  const b = h("button", { type: "button", class: "ghost" }, s.active ? "Pause" : "Resume");
  b.addEventListener("click", () => {
    b.disabled = true;
    void call("PATCH", `/v1/webhooks/subscriptions/${enc(s.id)}`, { active: !s.active }).then(reload, () => (b.disabled = false));
  });
  return b;
}

/**
 * The delivery log; status "failed_permanent" is the dead-letter queue. Returns its reload. 50 a page, newest
 * first, "Load more" for older ones (a dead letter past the first page could not be reached to be replayed). A
 * reply that a newer load (a filter change, a refresh) made stale is dropped.
 */
async function deliveriesSection(el: HTMLElement): Promise<() => Promise<void>> {
  const filter = select("status", [["", "All deliveries"], ["pending", "Pending"], ["delivered", "Delivered"], ["failed_permanent", "Dead letters (failed permanently)"]]);
  const list = h("div", { class: "deliveries-list", "aria-live": "polite" });
  const detail = h("div", {});
  const refresh = h("button", { type: "button", class: "ghost" }, "Refresh");
  const more = h("button", { type: "button", class: "ghost" }, "Load more deliveries");
  let items: Delivery[] = [];
  let cursor: string | null = null;
  let generation = 0;
  /** Subscription id -> its URL, so each delivery names where it goes (the first 100 subscriptions). */
  let targets = new Map<string, string>();
  const fetchPage = (after: string | null) => call<{ deliveries: Delivery[]; next_cursor: string | null }>("GET", `/v1/webhooks/deliveries${qs({ status: filter.value, limit: 50, cursor: after })}`);
  const fetchTargets = async (): Promise<Map<string, string>> => {
    const page = await call<{ subscriptions: Subscription[] }>("GET", `/v1/webhooks/subscriptions${qs({ limit: 100 })}`);
    return new Map(page.subscriptions.map((s) => [s.id, s.url]));
  };
  const render = (): void => {
    clear(
      list,
      items.length
        ? table(
            ["Delivery", "Subscription", "Event", "Status", "Attempts", "Last answer", "Updated", ""],
            items.map((d) => [
              h("code", {}, d.delivery_id),
              h("code", { class: "url", title: d.subscription_id }, targets.get(d.subscription_id) ?? d.subscription_id),
              d.event_type,
              h("span", { class: "pair" }, badge(d.status === "failed_permanent" ? "dead letter" : d.status, d.status), d.replay_of ? badge("replay", "new") : null),
              String(d.attempt_count),
              d.last_response_code !== null ? `HTTP ${d.last_response_code}` : (d.last_error ?? "—"),
              ago(d.updated_at),
              h("span", { class: "actions" }, attemptsButton(d, detail), replayButton(d, load, detail)),
            ]),
          )
        : notice(filter.value === "failed_permanent" ? "No dead letters." : "No deliveries.", "info"),
    );
    more.hidden = cursor === null;
  };
  const load = async (): Promise<void> => {
    const mine = ++generation;
    const [page, known] = await Promise.all([fetchPage(null), fetchTargets().catch(() => targets)]);
    if (mine !== generation) return;
    targets = known;
    items = page.deliveries;
    cursor = page.next_cursor;
    render();
  };
  onClickOneAtATime(more, async () => {
    if (cursor === null) return;
    const mine = generation;
    const page = await fetchPage(cursor);
    if (mine !== generation) return;
    items = [...items, ...page.deliveries];
    cursor = page.next_cursor;
    render();
  });
  filter.addEventListener("change", () => void load());
  refresh.addEventListener("click", () => void load());
  el.append(h("h2", { id: "h-dels" }, "Deliveries"), h("div", { class: "filters card" }, field("Show", filter), refresh), detail, list, more);
  await load();
  return load;
}

function attemptsButton(d: Delivery, out: HTMLElement): HTMLButtonElement {
  // Shown above the list (not below fifty rows), with each answer's headers and body from GET .../attempts.
  return panelButton("Attempts", `Attempts of ${d.delivery_id}`, out, `Attempts of ${d.delivery_id}`, async () => {
    const attempts = (await call<{ attempts: AttemptDetail[] }>("GET", `/v1/webhooks/deliveries/${enc(d.delivery_id)}/attempts`)).attempts;
    return h(
      "div",
      { class: "card" },
      h("h3", { tabindex: "-1" }, `Attempts of ${d.delivery_id}`),
      d.next_attempt_at ? h("p", { class: "muted" }, `Next attempt ${ago(d.next_attempt_at)}`) : null,
      table(
        ["#", "At", "Answer", "Duration", "Error", "Response"],
        attempts.map((a) => [String(a.attempt), when(a.at), a.response_code === null ? "—" : `HTTP ${a.response_code}`, `${a.duration_ms} ms`, a.error ?? "—", answerOf(a)]),
      ),
    );
  });
}

/**
 * A button that fills `out` with what `render` makes (its heading focused when it takes focus), or with the error
 * that stopped it, named by `what`.
 */
function panelButton(label: string, ariaLabel: string, out: HTMLElement, what: string, render: () => Promise<HTMLElement>): HTMLButtonElement {
  const b = h("button", { type: "button", class: "ghost", "aria-label": ariaLabel }, label);
  onClickOneAtATime(b, async () => {
    let shown: HTMLElement;
    try {
      shown = await render();
    } catch (err) {
      clear(out, notice(`${what}: ${(err as Error).message}`, "error"));
      return;
    }
    clear(out, shown);
    shown.querySelector<HTMLElement>("[tabindex='-1']")?.focus();
  });
  return b;
}

/** An attempt's answer headers and body, as text, folded away until asked for. */
function answerOf(a: AttemptDetail): HTMLElement | string {
  if (a.response_headers === null && a.response_body === null) return "—";
  const headers = Object.entries(a.response_headers ?? {}).map(([k, v]) => `${k}: ${v}`).join("\n");
  return h("details", {}, h("summary", {}, "Headers and body"), h("pre", { class: "answer" }, [headers, a.response_body ?? ""].filter(Boolean).join("\n\n") || "(empty)"));
}

function replayButton(d: Delivery, reload: () => Promise<void>, status: HTMLElement): HTMLButtonElement {
  const b = h("button", { type: "button", class: d.status === "failed_permanent" ? "primary" : "ghost", "aria-label": `Replay ${d.delivery_id}` }, "Replay");
  b.addEventListener("click", () => {
    b.disabled = true;
    void call<{ delivery_id: string }>("POST", `/v1/webhooks/deliveries/${enc(d.delivery_id)}/replay`).then(
      async (r) => {
        await reload();
        clear(status, notice(`Replayed ${d.delivery_id} as ${r.delivery_id} (a new delivery of the same event).`, "success"));
      },
      (err: Error) => {
        b.disabled = false;
        clear(status, notice(`Replay of ${d.delivery_id} failed: ${err.message}`, "error"));
      },
    );
  });
  return b;
}

interface Receipt {
  receipt_id: string;
  received_at: string;
  outcome: string;
  reason: string | null;
  status: number;
  investigation_id: string | null;
}

/** The endpoint's latest receipts (what was posted to it, and what came of each), shown in `out`. */
function receiptsButton(e: Endpoint, out: HTMLElement): HTMLButtonElement {
  return panelButton("Receipts", `Receipts of ${e.url_key_prefix}`, out, "Receipts", async () => {
    const page = await call<{ receipts: Receipt[] }>("GET", `/v1/webhooks/incoming/endpoints/${enc(e.id)}/receipts${qs({ limit: 20 })}`);
    return h(
      "div",
      { class: "card" },
      h("h3", {}, `Latest receipts of the ${e.provider} endpoint ${e.url_key_prefix}`),
      page.receipts.length
        ? table(
            ["Received", "Outcome", "Status", "Reason", "Investigation"],
            page.receipts.map((r) => [
              when(r.received_at),
              badge(r.outcome),
              String(r.status),
              r.reason ?? "—",
              r.investigation_id ? h("a", { href: `#/investigations/${r.investigation_id}` }, r.investigation_id) : "—",
            ]),
          )
        : notice("Nothing was posted to this endpoint yet.", "info"),
    );
  });
}

async function inboundSection(el: HTMLElement): Promise<void> {
  const shown = h("div", { "aria-live": "polite" });
  const { el: list, load } = pagedList<Endpoint>(
    "inbound endpoints",
    async (cursor) => {
      const page = await call<{ endpoints: Endpoint[]; next_cursor: string | null }>("GET", `/v1/webhooks/incoming/endpoints${qs({ limit: PAGE, cursor })}`);
      return { items: page.endpoints, next: page.next_cursor };
    },
    (endpoints): HTMLElement =>
      endpoints.length
        ? table(
            ["Provider", "Key prefix", "Depth", "Signature", "State", "Created", ""],
            endpoints.map((e) => [
              e.provider,
              h("code", {}, e.url_key_prefix),
              e.default_depth,
              e.has_signing_secret ? "verified" : "URL key only",
              badge(e.active ? "active" : "paused"),
              ago(e.created_at),
              h("span", { class: "actions" }, receiptsButton(e, shown), confirmButton("Delete", "Confirm delete", async () => {
                await call("DELETE", `/v1/webhooks/incoming/endpoints/${enc(e.id)}`);
                await load();
              })),
            ]),
          )
        : notice("No inbound endpoints yet.", "info"),
  );
  const provider = select("provider", [["generic", "Generic (JSON with a query)"], ["edr", "EDR (CrowdStrike-style)"], ["ci", "CI (GitHub-compatible)"]]);
  const secret = h("input", { type: "password", name: "provider_signing_secret", autocomplete: "off", placeholder: "optional for edr and ci" });
  const depth = select("default_depth", [["quick", "Quick"], ["standard", "Standard"], ["deep", "Deep"]], "standard");
  const scopeTags = h("input", { type: "text", name: "default_scope", placeholder: "env=prod (empty: every agent)", autocomplete: "off" });
  const status = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    { "aria-label": "New inbound endpoint" },
    h("div", { class: "grid3" }, field("Provider", provider), field("Provider signing secret", secret), field("Default depth", depth)),
    field("Default scope (tags)", scopeTags),
    status,
    h("button", { type: "submit", class: "primary" }, "Create endpoint"),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body: Record<string, unknown> = { provider: provider.value, default_depth: depth.value };
    if (secret.value) body.provider_signing_secret = secret.value;
    const tags = parseTags(scopeTags.value);
    if (typeof tags === "string") return clear(status, notice(`Default scope: ${tags}`, "error"));
    if (Object.keys(tags).length > 0) body.default_scope = { type: "selector", filter: { tags } };
    call<Endpoint>("POST", "/v1/webhooks/incoming/endpoints", body).then(
      (e) => {
        form.reset();
        clear(status);
        clear(shown, secretBox(`Receiver URL for the ${e.provider} endpoint`, e.url ?? ""));
        void load();
      },
      (err: Error) => clear(status, notice(err.message, "error")),
    );
  });
  el.append(h("h2", { id: "h-inbound" }, "Inbound endpoints"), shown, list, h("details", { class: "card" }, h("summary", {}, "New inbound endpoint"), form));
  await load();
}
